package trace

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/internal/jsontok"
)

// scanner reads one trace line with the shared strict, allocation-free
// tokenizer (coursekit/internal/jsontok) and words its errors for a trace:
// the column of the unexpected character and what was expected there.
type scanner struct {
	jsontok.Scanner
	buf []byte // decoded strings that had escapes
}

// syntaxError is bad JSON at the current column of the line.
func (s *scanner) syntaxError(what string) error { return s.errAt(s.I, what) }

func (s *scanner) errAt(off int, what string) error {
	if off >= len(s.B) {
		return &Error{Msg: fmt.Sprintf("not valid JSON (truncated: the line ends inside a value): unexpected end of line after column %d (%s)", len(s.B), what)}
	}
	c := s.B[off]
	show := strconv.QuoteRune(rune(c))
	if c >= utf8.RuneSelf {
		r, _ := utf8.DecodeRune(s.B[off:])
		show = strconv.QuoteRune(r)
	}
	return &Error{Msg: fmt.Sprintf("not valid JSON: unexpected %s at column %d (%s)", show, off+1, what)}
}

// wrap words a tokenizer error for a trace.
func (s *scanner) wrap(err error) error {
	e, ok := err.(*jsontok.Error)
	if !ok {
		return err
	}
	switch e.Kind {
	case jsontok.BadUTF8:
		return &Error{Msg: "not valid UTF-8 in a string"}
	case jsontok.NonFinite:
		return &Error{Msg: "not valid JSON: NaN and Infinity are not JSON numbers"}
	}
	return s.errAt(e.Off, e.What)
}

func (s *scanner) peek() byte { return s.Peek() }

func (s *scanner) expect(c byte, what string) error {
	if s.Peek() != c {
		return s.syntaxError(what)
	}
	s.I++
	return nil
}

// str reads a string; the result aliases the line or the scratch buffer
// and is only valid until the next call.
func (s *scanner) str() ([]byte, error) {
	if s.Peek() != '"' {
		return nil, s.syntaxError("want a string")
	}
	t, err := s.String()
	if err != nil || t.Escaped {
		return s.strSlow(t, err)
	}
	return s.B[t.Start:t.End], nil
}

// strSlow is str's rare part: an error, or escapes to decode.
func (s *scanner) strSlow(t jsontok.Str, err error) ([]byte, error) {
	if err != nil {
		return nil, s.wrap(err)
	}
	s.buf = jsontok.AppendUnescaped(s.buf[:0], t.Raw(s.B))
	return s.buf, nil
}

// key reads an object key and the colon after it.
func (s *scanner) key() ([]byte, error) {
	k, err := s.str()
	if err != nil {
		return nil, err
	}
	return k, s.expect(':', "want ':' after a key")
}

// null consumes a null if one is next.
func (s *scanner) null() bool { return s.Null() }

// number reads a JSON number. msg is set (and err nil) for numbers that are
// valid tokens but not allowed in a trace; err is set for bad JSON. NaN and
// Infinity, which Python's json module writes, get their own message.
func (s *scanner) number() (f float64, msg string, err error) {
	s.WS()
	switch s.NonFiniteLiteral() {
	case "NaN":
		return 0, "is NaN (not a JSON number)", nil
	case "Infinity", "-Infinity":
		return 0, "is infinite (not a JSON number)", nil
	}
	n, err := s.Number()
	if err != nil {
		return 0, "", s.wrap(err)
	}
	f = n.Float(s.B)
	switch {
	case math.IsInf(f, 0):
		return 0, "is infinite", nil
	case f < 0:
		return 0, "is negative (" + strconv.FormatFloat(f, 'g', -1, 64) + ")", nil
	}
	return f + 0, "", nil // + 0 turns -0 into 0
}

// skip validates and skips any JSON value, for free-form fields.
func (s *scanner) skip() error { return s.wrap(s.Skip(MaxMetaDepth)) }

// MaxMetaDepth bounds the nesting of free-form values (an attempt's meta):
// deeper is an error, so that a hostile line cannot exhaust the stack.
const MaxMetaDepth = 64

// CheckMeta checks an attempt's meta object as the reader does (strict
// JSON, UTF-8 strings, nesting within MaxMetaDepth), so that a tool that
// copies data from elsewhere into meta can refuse what the reader would
// refuse before it is written. The error says what is wrong, without a
// position.
func CheckMeta(b []byte) error {
	s := scanner{}
	s.UTF8 = true
	s.B = b
	if s.Peek() != '{' {
		return &Error{Field: "meta", Msg: "not a JSON object"}
	}
	err := s.skip()
	if err == nil && !s.AtEOF() {
		err = s.syntaxError("want the end of meta")
	}
	if err != nil {
		if e, ok := err.(*Error); ok {
			return &Error{Field: "meta", Msg: e.Msg}
		}
		return err
	}
	return nil
}
