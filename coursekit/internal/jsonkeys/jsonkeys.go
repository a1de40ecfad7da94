// Package jsonkeys finds the keys encoding/json would match to a struct field only by ignoring
// case. Go's decoder matches "CELLS", "Cells" and "cells" (and "coursekit" spelled with the
// Kelvin sign U+212A) to the same field and lets the last one win, while Python, pandas, DuckDB
// and Jupyter read only the exact key: a file with a real "cells" and a shadow "CELLS" would be
// read here on the shadow, which no other reader sees. Readers refuse such keys, with where
// they are. Keys that match no field in any case are left alone, and so is anything decoded
// into a map, raw JSON or a type with its own UnmarshalJSON.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	unmarshalerTyp = reflect.TypeFor[json.Unmarshaler]()
)

// Folded walks data as encoding/json would decode it into a value of type t and returns the
// first key (in document path order, keys of an object sorted) that matches one of a struct's
// keys only case-insensitively: where it is (a path like "cells[2].metadata", below the given
// where), the key, and the struct's key it shadows. ok is false when there is none.
func Folded(data []byte, t reflect.Type, where string) (at, key, field string, ok bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType || reflect.PointerTo(t).Implements(unmarshalerTyp) {
		return "", "", "", false
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "", "", "", false
	}
	switch t.Kind() {
	case reflect.Struct:
		var m map[string]json.RawMessage
		if data[0] != '{' || json.Unmarshal(data, &m) != nil {
			return "", "", "", false // not an object: the decoding itself says what is wrong
		}
		fields := jsonFields(t)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if ft, ok := fields[k]; ok {
				if at, key, field, ok := Folded(m[k], ft, join(where, k)); ok {
					return at, key, field, true
				}
				continue
			}
			for _, name := range slices.Sorted(maps.Keys(fields)) {
				if strings.EqualFold(k, name) {
					return where, k, name, true
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "", "", "", false
		}
		var xs []json.RawMessage
		if data[0] != '[' || json.Unmarshal(data, &xs) != nil {
			return "", "", "", false
		}
		for i, x := range xs {
			if at, key, field, ok := Folded(x, t.Elem(), fmt.Sprintf("%s[%d]", where, i)); ok {
				return at, key, field, true
			}
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if data[0] != '{' || json.Unmarshal(data, &m) != nil {
			return "", "", "", false
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if at, key, field, ok := Folded(m[k], t.Elem(), join(where, k)); ok {
				return at, key, field, true
			}
		}
	}
	return "", "", "", false
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
