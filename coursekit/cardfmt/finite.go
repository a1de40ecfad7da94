package cardfmt

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// notFiniteNote explains the card's "not_finite" member.
const notFiniteNote = "these derived numbers are not finite (beyond a float64, such as a rate over an extremely short window or a cost near the largest float times 1000; or 0 / 0 over a window that is 0 in seconds): null here is not a missing sample; the text card prints them as ∞ or ?"

// notFiniteText is the text card's footer when a derived number overflowed.
var notFiniteText = lang.Msg{
	"注意：这些派生数值不是有限数（超出 float64 的范围，如极短窗口上的速率、接近最大浮点数的成本乘 1000；或窗口短到按秒算为 0 时的 0 ÷ 0），指标口径卡里印作 ∞ 或 ?，JSON 里是 null（不是缺失样本）：%s。",
	"Note: these derived numbers are not finite (beyond a float64, such as a rate over an extremely short window or a cost near the largest float times 1000; or 0 / 0 over a window that is 0 in seconds); the card prints them as ∞ or ?, the JSON card as null (not a missing sample): %s.",
}

// notFinite lists the JSON paths of the card's numbers that are not finite.
func notFinite(s *metrics.Summary) []string {
	e := finiteEncoder{}
	if e.value(reflect.ValueOf(s), "") != nil {
		return nil
	}
	return e.bad
}

// writeJSON writes the card as encoding/json would, indented by two
// spaces, except that a float that is not finite is written null: a valid
// trace can make a derived number overflow (a rate over a window of
// 5e-324 ms is +Inf, 0 over it is NaN), and encoding/json refuses such a
// value, failing the whole card. When any was nulled, a last member
// "not_finite" lists their paths (e.g. "throughput.attempts_per_s.value")
// with a note, so a reader never takes a null for a missing sample. The
// trace's strings are written as safetext.JSON writes them (C1 controls
// and bidi overrides as \u escapes).
func writeJSON(w io.Writer, s *metrics.Summary) error {
	withWarnings := *s
	withWarnings.Warnings = Warnings(s)
	e := finiteEncoder{}
	if err := e.value(reflect.ValueOf(&withWarnings), ""); err != nil {
		return err
	}
	raw := e.b.Bytes()
	if len(e.bad) > 0 {
		extra, err := json.Marshal(struct {
			Fields []string `json:"fields"`
			Note   string   `json:"note"`
		}{e.bad, notFiniteNote})
		if err != nil {
			return err
		}
		raw = append(append(append(raw[:len(raw)-1:len(raw)-1], `,"not_finite":`...), extra...), '}')
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err := w.Write(safetext.JSON(out.Bytes()))
	return err
}

// JSONIndent is v as json.MarshalIndent(v, "", "  ") writes it, except
// that every float is written as the JSON card writes it (numfmt.Clean:
// without the float noise of arithmetic on trace times, 323.3 not
// 323.3000000000029). compare and capacity write their JSON so. A float
// that is not finite is an error, as it is to encoding/json.
func JSONIndent(v any) ([]byte, error) {
	e := finiteEncoder{}
	if err := e.value(reflect.ValueOf(v), ""); err != nil {
		return nil, err
	}
	if len(e.bad) > 0 {
		return nil, fmt.Errorf("json: unsupported value: not finite: %s", strings.Join(e.bad, ", "))
	}
	var out bytes.Buffer
	if err := json.Indent(&out, e.b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// finiteEncoder is the part of encoding/json the card's types use (structs
// with json tags and omitempty, an embedded struct, pointers, maps with
// string keys, slices, json.Marshaler leaves), writing a non-finite float
// as null and noting its path.
type finiteEncoder struct {
	b   bytes.Buffer
	bad []string
	// nulls are the members of the struct being written that it writes as
	// null (nuller), so that its own MarshalJSON is not needed.
	nulls []string
}

// nuller is a struct whose MarshalJSON writes some members as null
// (metrics.Condition when its figures are unknown): the encoder writes it
// member by member, those as null, and still nulls a non-finite float.
type nuller interface{ NullJSON() []string }

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

func (e *finiteEncoder) leaf(v reflect.Value) error {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return err
	}
	e.b.Write(b)
	return nil
}

func (e *finiteEncoder) value(v reflect.Value, path string) error {
	if !v.IsValid() {
		e.b.WriteString("null")
		return nil
	}
	t := v.Type()
	if n, ok := v.Interface().(nuller); ok && t.Kind() == reflect.Struct {
		saved := e.nulls
		e.nulls = n.NullJSON()
		defer func() { e.nulls = saved }()
		return e.object(v, path)
	}
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) {
		if (t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface) && v.IsNil() {
			e.b.WriteString("null")
			return nil
		}
		return e.leaf(v)
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			e.b.WriteString("null")
			return nil
		}
		return e.value(v.Elem(), path)
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			e.b.WriteString("null")
			e.bad = append(e.bad, path)
			return nil
		}
		return e.leaf(reflect.ValueOf(numfmt.Clean(v.Float())))
	case reflect.Struct:
		return e.object(v, path)
	case reflect.Map:
		if v.IsNil() {
			e.b.WriteString("null")
			return nil
		}
		if t.Key().Kind() != reflect.String {
			return e.leaf(v)
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		e.b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.b.WriteByte(',')
			}
			if err := e.leaf(reflect.ValueOf(k.String())); err != nil {
				return err
			}
			e.b.WriteByte(':')
			if err := e.value(v.MapIndex(k), join(path, k.String())); err != nil {
				return err
			}
		}
		e.b.WriteByte('}')
		return nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 || (t.Kind() == reflect.Slice && v.IsNil()) {
			return e.leaf(v) // []byte is base64; a nil slice is null
		}
		e.b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				e.b.WriteByte(',')
			}
			if err := e.value(v.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		e.b.WriteByte(']')
		return nil
	}
	return e.leaf(v)
}

// object writes struct v as a JSON object.
func (e *finiteEncoder) object(v reflect.Value, path string) error {
	e.b.WriteByte('{')
	first := true
	if err := e.fields(v, path, &first); err != nil {
		return err
	}
	e.b.WriteByte('}')
	return nil
}

// fields writes the members of struct v, flattening embedded structs
// without a json name.
func (e *finiteEncoder) fields(v reflect.Value, path string, first *bool) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				ft, fv = ft.Elem(), fv.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if err := e.fields(fv, path, first); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(","+opts+",", ",omitempty,") && isEmpty(fv) {
			continue
		}
		if !*first {
			e.b.WriteByte(',')
		}
		*first = false
		if err := e.leaf(reflect.ValueOf(name)); err != nil {
			return err
		}
		e.b.WriteByte(':')
		if slices.Contains(e.nulls, name) {
			e.b.WriteString("null")
			continue
		}
		saved := e.nulls
		e.nulls = nil // a member's own members are its own
		err := e.value(fv, join(path, name))
		e.nulls = saved
		if err != nil {
			return err
		}
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// isEmpty is encoding/json's omitempty rule.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
