package notebook

import (
	"bytes"
	"encoding/json"
	"strings"
)

// SourceLines is nbformat's list-of-lines form of a cell source.
func SourceLines(src string) json.RawMessage {
	lines := strings.SplitAfter(src, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if lines == nil {
		lines = []string{}
	}
	b, _ := MarshalRaw(lines)
	return b
}

// MarshalRaw is json.Marshal without HTML escaping: markdown cells keep
// their "<" and "&" as Jupyter writes them.
func MarshalRaw(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// MarshalNotebook writes JSON the way Jupyter does: one-space indent, keys
// sorted, no HTML escaping, a final newline.
func MarshalNotebook(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
