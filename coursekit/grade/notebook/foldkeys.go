package notebook

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/llmperf-course/course/coursekit/internal/jsonkeys"
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

// unmarshalStrict is json.Unmarshal(data, v) after checkFoldedKeys; where
// locates data in the notebook ("" for the whole file). A decoding error
// is returned as it is, for the caller's message.
func unmarshalStrict(data []byte, v any, where string) (folded *Ungradable, err error) {
	if u := checkFoldedKeys(data, reflect.TypeOf(v), where); u != nil {
		return u, nil
	}
	return nil, json.Unmarshal(data, v)
}

// checkFoldedKeys is jsonkeys.Folded as the grader's reason.
func checkFoldedKeys(data []byte, t reflect.Type, where string) *Ungradable {
	if at, key, field, ok := jsonkeys.Folded(data, t, where); ok {
		return foldedKey(at, key, field)
	}
	return nil
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
