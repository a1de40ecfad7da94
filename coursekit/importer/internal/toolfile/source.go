// Package toolfile is what every importer of a benchmark tool's result
// file shares: Source, the file read as JSON with Python's bare NaN and
// Infinity kept, every error located by file:line:col or JSON path; Obj,
// one decoded object; Result, an import held in memory until it is whole
// (Result.Write validates it and writes trace v1); the helpers that turn a
// tool's rows into attempts (PickRun, EventsFrom, Classify, DerivedStats)
// and that read a separate summary file's numbers (SumStat, AddStats).
// Options, Report and Stat are the importer package's API, aliased there.
package toolfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/llmperf-course/course/coursekit/trace"
)

// Source is the raw file with Python's bare NaN/Infinity tokens replaced,
// and what is needed to map a decoder offset back to file:line:col.
type Source struct {
	Name string
	orig []byte
	data []byte // sanitised
	// shifts[i] is a replacement at sanitised offset at, growing the text by delta.
	shifts []shift
	// twin is the first key met that differs from a key the importer
	// looked up only in case (Obj.Get); CaseTwin returns it.
	twin error
}

type shift struct{ at, delta int }

// Sentinels stand for the bare tokens Python's json.dump writes for
// non-finite floats (allow_nan=True); no tool writes these strings itself.
const (
	sentNaN    = `"#NaN"`
	sentPosInf = `"#Infinity"`
	sentNegInf = `"#-Infinity"`
)

func NewSource(name string, raw []byte) *Source {
	s := &Source{Name: name, orig: raw}
	s.data = s.sanitize(raw)
	return s
}

// sanitize replaces bare NaN, Infinity and -Infinity outside strings with
// sentinel strings. vLLM writes them (json.dump's allow_nan default), and
// so can any Python tool, so every importer reads through it. Go's decoder rejects the bare tokens; replacing them
// with null would lose the fact that a value was NaN, which the importer
// must report as an error at its path rather than import as missing.
func (s *Source) sanitize(b []byte) []byte {
	var out []byte
	inStr, esc := false, false
	last := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		var tok, rep string
		switch {
		case c == '"':
			inStr = true
			continue
		case c == 'N' && bytes.HasPrefix(b[i:], []byte("NaN")):
			tok, rep = "NaN", sentNaN
		case c == 'I' && bytes.HasPrefix(b[i:], []byte("Infinity")):
			tok, rep = "Infinity", sentPosInf
		case c == '-' && bytes.HasPrefix(b[i:], []byte("-Infinity")):
			tok, rep = "-Infinity", sentNegInf
		default:
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b)+64)
		}
		out = append(out, b[last:i]...)
		s.shifts = append(s.shifts, shift{at: len(out), delta: len(rep) - len(tok)})
		out = append(out, rep...)
		i += len(tok) - 1
		last = i + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// origOffset maps an offset in the sanitised text back to the file.
func (s *Source) origOffset(off int) int {
	d := 0
	for _, sh := range s.shifts {
		if sh.at >= off {
			break
		}
		d += sh.delta
	}
	if off-d < 0 {
		return 0
	}
	return off - d
}

// lineCol is the 1-based line and column of a sanitised offset.
func (s *Source) lineCol(off int) (int, int) {
	o := min(s.origOffset(off), len(s.orig))
	line := 1 + bytes.Count(s.orig[:o], []byte{'\n'})
	col := o - bytes.LastIndexByte(s.orig[:o], '\n')
	return line, col
}

// ErrAt is a positioned error; trace.Error makes the CLI exit with code 2.
func (s *Source) ErrAt(line int, path, msg string) error {
	return &trace.Error{File: s.Name, Line: line, Field: path, Msg: msg}
}

// jsonErr locates a decoder error by line and column.
func (s *Source) jsonErr(err error, base int, path string) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		line, col := s.lineCol(base + max(int(se.Offset)-1, 0))
		return s.ErrAt(line, path, fmt.Sprintf("column %d: malformed JSON: %v", col, se))
	case errors.As(err, &te):
		line, col := s.lineCol(base + int(te.Offset))
		p := path
		if te.Field != "" {
			p = JoinPath(path, te.Field)
		}
		return s.ErrAt(line, p, fmt.Sprintf("column %d: is a JSON %s, want %s", col, te.Value, te.Type))
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, _ := s.lineCol(len(s.data))
		return s.ErrAt(line, path, "malformed JSON: the file ends in the middle of a value (truncated?)")
	}
	return s.ErrAt(0, path, "malformed JSON: "+err.Error())
}

func JoinPath(base, field string) string {
	if base == "" {
		return field
	}
	if strings.HasPrefix(field, "[") {
		return base + field
	}
	return base + "." + field
}

// Values decodes the JSON values of the file one after another (one for a
// plain JSON file, several for JSON Lines or appended runs) with the line
// each starts on.
// OneObject is the file's one JSON value, an object (file names the file
// as the tool writes it, for the error).
func (s *Source) OneObject(file string) (*Obj, error) {
	vals, lines, err := s.Values()
	if err != nil {
		return nil, err
	}
	if len(vals) != 1 {
		return nil, s.ErrAt(lines[1], "", "want one JSON object ("+file+"), found more values after it")
	}
	return s.Object(vals[0], lines[0], "")
}

// OneArray is the file's one JSON value, a non-empty array of rows.
func (s *Source) OneArray(file string) ([]json.RawMessage, error) {
	vals, lines, err := s.Values()
	if err != nil {
		return nil, err
	}
	if len(vals) != 1 {
		return nil, s.ErrAt(lines[1], "", "want one JSON array ("+file+"), found more values after it")
	}
	rows, err := s.Array(vals[0], lines[0], "")
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, s.ErrAt(lines[0], "", "the array is empty: no attempts to import")
	}
	return rows, nil
}

func (s *Source) Values() ([]json.RawMessage, []int, error) {
	dec := json.NewDecoder(bytes.NewReader(s.data))
	var vals []json.RawMessage
	var lines []int
	for {
		off := int(dec.InputOffset())
		var v json.RawMessage
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			if cut := s.cutLine(off); cut != nil {
				return nil, nil, cut
			}
			return nil, nil, s.jsonErr(err, 0, "")
		}
		// The value starts after any whitespace following off.
		for off < len(s.data) && (s.data[off] == ' ' || s.data[off] == '\n' || s.data[off] == '\r' || s.data[off] == '\t') {
			off++
		}
		line, _ := s.lineCol(off)
		vals = append(vals, v)
		lines = append(lines, line)
	}
	return vals, lines, nil
}

// cutLine is the error for a JSON Lines file whose value starting at off
// (after whitespace) is a line cut short, or nil. The decoder reads a cut
// line on into the next one and fails there (walk 35l: a cut line 2 read
// "line 4: invalid character '{' after object key:value pair"); a line that
// is not valid JSON followed by one that is a whole value is a cut record,
// named at its own line. A pretty-printed file's next line (`"key": 1,`)
// is never a whole value, so its errors stay the decoder's.
func (s *Source) cutLine(off int) error {
	for off < len(s.data) && (s.data[off] == ' ' || s.data[off] == '\n' || s.data[off] == '\r' || s.data[off] == '\t') {
		off++
	}
	line, _ := s.lineCol(off)
	lines := bytes.Split(s.data, []byte{'\n'})
	if line >= len(lines) {
		return nil
	}
	this, next := bytes.TrimSpace(lines[line-1]), bytes.TrimSpace(lines[line])
	if len(this) == 0 || json.Valid(this) || len(next) == 0 || !json.Valid(next) {
		return nil
	}
	return s.ErrAt(line, "", "not valid JSON (truncated or malformed): the line is not one whole JSON value, while the next line is one")
}

// Obj is one decoded JSON object with the position used in its errors.
// Read its keys with Get (or Has, Num, ...), not M directly, so that a
// case twin of a key read is refused.
type Obj struct {
	Src  *Source
	Line int
	Path string
	M    map[string]json.RawMessage
	// folds is true when two of M's keys differ only in case.
	folds bool
}

func (s *Source) Object(raw json.RawMessage, line int, path string) (*Obj, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, s.ErrAt(line, path, "want a JSON object, got "+Kind(raw))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, s.ErrAt(line, path, "malformed object: "+err.Error())
	}
	return &Obj{Src: s, Line: line, Path: path, M: m, folds: hasFoldTwins(m)}, nil
}

func (o *Obj) Err(key, msg string) error {
	return o.Src.ErrAt(o.Line, JoinPath(o.Path, key), msg)
}

// Get is o[key]. A key of o that differs from key only in case, beside it
// ("TTFTS" and "ttfts") or instead of it, is recorded on the Source and
// refused by the import (CaseTwin): the tool, Python and pandas read only
// the exact key, so taking either the real key (the twin ignored) or none
// ("missing") would hide what the file holds. Keys never looked up stay
// free, as they are to the tool.
func (o *Obj) Get(key string) (json.RawMessage, bool) {
	v, ok := o.M[key]
	if (!ok || o.folds) && o.Src.twin == nil {
		o.CheckTwin(key, func(k string) bool { return k != key && strings.EqualFold(k, key) })
	}
	return v, ok
}

// Raw is Get's value alone (nil when key is absent).
func (o *Obj) Raw(key string) json.RawMessage {
	v, _ := o.Get(key)
	return v
}

// CheckTwin records, as Get does, the first key of o (in sorted order) for
// which twin is true, as a case twin of want. vLLM's importer uses it for
// keys it matches by pattern ("P99_TTFT_MS" for p99_ttft_ms).
func (o *Obj) CheckTwin(want string, twin func(string) bool) {
	if o.Src.twin != nil {
		return
	}
	first, found := "", false
	for k := range o.M {
		if twin(k) && (!found || k < first) {
			first, found = k, true
		}
	}
	if found {
		o.Src.twin = o.Err(first, fmt.Sprintf("differs from the key %q only in case: the tool and other readers see only %q, so the file is refused", want, want))
	}
}

// hasFoldTwins reports whether two keys of m differ only in case. Keys
// that are their own fold (foldKey: "ttfts", not "TTFTS") cannot be twins
// of each other, so the usual object, all lower case, costs no map.
func hasFoldTwins(m map[string]json.RawMessage) bool {
	var folded map[string]bool
	for k := range m {
		if foldKey(k) != k {
			folded = make(map[string]bool, len(m))
			break
		}
	}
	if folded == nil {
		return false
	}
	for k := range m {
		fk := foldKey(k)
		if folded[fk] {
			return true
		}
		folded[fk] = true
	}
	return false
}

// foldKey is the same for two keys exactly when strings.EqualFold says
// they are equal: each rune becomes the lower case of the smallest rune of
// its case-folding orbit ("K", "k" and the Kelvin sign all become "k"), so
// a lower-case ASCII key is its own fold (and strings.Map copies nothing).
func foldKey(k string) string {
	return strings.Map(func(r rune) rune {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		return unicode.ToLower(m)
	}, k)
}

// CaseTwin is the first case twin of a key looked up (Get), or nil. An
// import returns it before any other error: the other is its consequence.
func (s *Source) CaseTwin() error { return s.twin }

func (o *Obj) Has(key string) bool {
	v, ok := o.Get(key)
	return ok && !IsNull(v)
}

func (o *Obj) Sub(key string) (*Obj, error) {
	v, ok := o.Get(key)
	if !ok || IsNull(v) {
		return nil, o.Err(key, "missing")
	}
	return o.Src.Object(v, o.Line, JoinPath(o.Path, key))
}

func (o *Obj) OptSub(key string) (*Obj, error) {
	if !o.Has(key) {
		return nil, nil
	}
	return o.Sub(key)
}

func (o *Obj) Array(key string) ([]json.RawMessage, error) {
	v, ok := o.Get(key)
	if !ok || IsNull(v) {
		return nil, o.Err(key, "missing")
	}
	return o.Src.Array(v, o.Line, JoinPath(o.Path, key))
}

func (s *Source) Array(raw json.RawMessage, line int, path string) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, s.ErrAt(line, path, "want a JSON array, got "+Kind(raw))
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, s.ErrAt(line, path, "malformed array: "+err.Error())
	}
	return a, nil
}

// Num reads a number that may be a sanitised NaN/Infinity; null is an error.
func (o *Obj) Num(key string) (float64, error) {
	v, ok := o.Get(key)
	if !ok {
		return 0, o.Err(key, "missing")
	}
	return o.Src.Num(v, o.Line, JoinPath(o.Path, key))
}

// OptNum is nil when key is absent or null.
func (o *Obj) OptNum(key string) (*float64, error) {
	if !o.Has(key) {
		return nil, nil
	}
	v, err := o.Num(key)
	return &v, err
}

func (o *Obj) Str(key string) (string, error) {
	v, ok := o.Get(key)
	if !ok || IsNull(v) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", o.Err(key, "want a string, got "+Kind(v))
	}
	return s, nil
}

func (s *Source) Num(raw json.RawMessage, line int, path string) (float64, error) {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case sentNaN:
		return math.NaN(), nil
	case sentPosInf:
		return math.Inf(1), nil
	case sentNegInf:
		return math.Inf(-1), nil
	}
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return 0, s.ErrAt(line, path, "want a number, got "+Kind(raw))
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, s.ErrAt(line, path, "want a number, got "+string(raw))
	}
	return f, nil
}

// Time checks a duration or timestamp: finite and ≥ 0.
func (s *Source) Time(raw json.RawMessage, line int, path string) (float64, error) {
	v, err := s.Num(raw, line, path)
	if err != nil {
		return 0, err
	}
	return v, s.CheckTime(v, line, path)
}

func (s *Source) CheckTime(v float64, line int, path string) error {
	switch {
	case math.IsNaN(v):
		return s.ErrAt(line, path, "is NaN, want a time")
	case math.IsInf(v, 0):
		return s.ErrAt(line, path, "is infinite, want a time")
	case v < 0:
		return s.ErrAt(line, path, fmt.Sprintf("is negative (%g), want a time", v))
	}
	return nil
}

// Count reads a whole number ≥ 0 (token counts, status codes).
func (s *Source) Count(raw json.RawMessage, line int, path string) (int, error) {
	v, err := s.Num(raw, line, path)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v != math.Trunc(v) || v > 1e12 {
		return 0, s.ErrAt(line, path, fmt.Sprintf("is %v, want a whole number ≥ 0", v))
	}
	return int(v), nil
}

func IsNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// Kind names a JSON value's type for error messages.
func Kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		switch string(raw) {
		case sentNaN, sentPosInf, sentNegInf:
			return "a bare " + strings.Trim(string(raw), `"#`)
		}
		if len(raw) > 40 {
			raw = append(raw[:37:37], "...\""...)
		}
		return "the string " + string(raw)
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "the number " + string(raw)
}
