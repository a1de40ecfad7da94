package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Go's encoding/json matches an object key to a struct field
// case-insensitively ("CELLS" and "Cells" fill Cells; "coursekit" spelled with the
// Kelvin sign U+212A for its k fills Coursekit) and
// lets the last match win, while Jupyter and Python read only the exact
// key. A notebook with a real "cells" and a shadow "CELLS" would be graded
// on the shadow, which no one sees in JupyterLab. So before a notebook's
// JSON is decoded into a struct, every key that differs from one of the
// struct's keys only in case is refused (ReasonFoldedKey), with where it
// is. Keys that match no field in any case are left alone (nbformat
// allows extra metadata), and so is anything decoded into a map, raw JSON
// or a type with its own UnmarshalJSON.

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	unmarshalerTyp = reflect.TypeFor[json.Unmarshaler]()
)

// unmarshalStrict is json.Unmarshal(data, v) after checkFoldedKeys; where
// locates data in the notebook ("" for the whole file). A decoding error
// is returned as it is, for the caller's message.
func unmarshalStrict(data []byte, v any, where string) (folded *Ungradable, err error) {
	if u := checkFoldedKeys(data, reflect.TypeOf(v), where); u != nil {
		return u, nil
	}
	return nil, json.Unmarshal(data, v)
}

// checkFoldedKeys walks data as encoding/json would decode it into a
// value of type t and returns the first key (in document path order,
// keys of an object sorted) that matches one of a struct's keys only
// case-insensitively.
func checkFoldedKeys(data []byte, t reflect.Type, where string) *Ungradable {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType || reflect.PointerTo(t).Implements(unmarshalerTyp) {
		return nil
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		var m map[string]json.RawMessage
		if data[0] != '{' || json.Unmarshal(data, &m) != nil {
			return nil // not an object: the decoding itself says what is wrong
		}
		fields := jsonFields(t)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if ft, ok := fields[k]; ok {
				if u := checkFoldedKeys(m[k], ft, join(where, k)); u != nil {
					return u
				}
				continue
			}
			for _, name := range slices.Sorted(maps.Keys(fields)) {
				if strings.EqualFold(k, name) {
					return foldedKey(where, k, name)
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		var xs []json.RawMessage
		if data[0] != '[' || json.Unmarshal(data, &xs) != nil {
			return nil
		}
		for i, x := range xs {
			if u := checkFoldedKeys(x, t.Elem(), fmt.Sprintf("%s[%d]", where, i)); u != nil {
				return u
			}
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if data[0] != '{' || json.Unmarshal(data, &m) != nil {
			return nil
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if u := checkFoldedKeys(m[k], t.Elem(), join(where, k)); u != nil {
				return u
			}
		}
	}
	return nil
}

// jsonFields maps each JSON key of struct type t to its field's type, as
// encoding/json names them (the tag's name, else the field's name).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}

// foldedKey is the reason for key, at where, shadowing name.
func foldedKey(where, key, name string) *Ungradable {
	place := "顶层"
	if where != "" {
		place = where
	}
	var cell int
	if _, err := fmt.Sscanf(where, "cells[%d]", &cell); err == nil {
		place = fmt.Sprintf("第 %d 个单元格（%s）", cell+1, where)
	}
	if r := []rune(key); len(r) > 40 {
		key = string(r[:40]) + "…"
	}
	return NewUngradable(ReasonFoldedKey, "笔记本的 JSON 在 %s 处有键 %q，和 nbformat 的键 %q 只差大小写。Jupyter 只认 %q，评分不猜该用哪一个，所以无法评分：请在 JupyterLab 里打开笔记本、保存后再提交，不要手工编辑 .ipynb 文件。",
		place, key, name, name)
}
