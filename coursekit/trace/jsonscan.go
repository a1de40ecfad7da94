package trace

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// scanner is a strict, allocation-free JSON tokenizer over one line. The
// trace schema is fixed and flat, so reading it field by field is several
// times faster than building a document tree, and it can name the exact
// column of a syntax error.
type scanner struct {
	b   []byte
	i   int
	buf []byte // scratch for strings with escapes
}

// syntaxError is bad JSON at a column of the line.
func (s *scanner) syntaxError(what string) error {
	col := s.i + 1
	if s.i >= len(s.b) {
		return &Error{Msg: fmt.Sprintf("not valid JSON: unexpected end of line after column %d (%s)", len(s.b), what)}
	}
	c := s.b[s.i]
	show := strconv.QuoteRune(rune(c))
	if c >= utf8.RuneSelf {
		r, _ := utf8.DecodeRune(s.b[s.i:])
		show = strconv.QuoteRune(r)
	}
	return &Error{Msg: fmt.Sprintf("not valid JSON: unexpected %s at column %d (%s)", show, col, what)}
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) expect(c byte, what string) error {
	if s.peek() != c {
		return s.syntaxError(what)
	}
	s.i++
	return nil
}

// str reads a string; the result aliases the line or the scratch buffer
// and is only valid until the next call.
func (s *scanner) str() ([]byte, error) {
	if s.peek() != '"' {
		return nil, s.syntaxError("want a string")
	}
	s.i++
	start := s.i
	ascii := true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			out := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(out) {
				return nil, &Error{Msg: "not valid UTF-8 in a string"}
			}
			return out, nil
		case c == '\\':
			return s.escaped(start)
		case c < 0x20:
			return nil, s.syntaxError("control character in a string")
		case c >= utf8.RuneSelf:
			ascii = false
		}
		s.i++
	}
	return nil, s.syntaxError("unterminated string")
}

// escaped finishes a string that has escapes, decoding into s.buf.
func (s *scanner) escaped(start int) ([]byte, error) {
	s.buf = append(s.buf[:0], s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			if !utf8.Valid(s.buf) {
				return nil, &Error{Msg: "not valid UTF-8 in a string"}
			}
			return s.buf, nil
		case c < 0x20:
			return nil, s.syntaxError("control character in a string")
		case c != '\\':
			s.buf = append(s.buf, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			s.i++
			return nil, s.syntaxError("unterminated escape")
		}
		s.i++
		switch e := s.b[s.i]; e {
		case '"', '\\', '/':
			s.buf = append(s.buf, e)
		case 'b':
			s.buf = append(s.buf, '\b')
		case 'f':
			s.buf = append(s.buf, '\f')
		case 'n':
			s.buf = append(s.buf, '\n')
		case 'r':
			s.buf = append(s.buf, '\r')
		case 't':
			s.buf = append(s.buf, '\t')
		case 'u':
			r, ok := s.hex4(s.i + 1)
			if !ok {
				return nil, s.syntaxError("bad \\u escape")
			}
			s.i += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := s.hex4(s.i + 3); ok && s.i+2 < len(s.b) && s.b[s.i+1] == '\\' && s.b[s.i+2] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						s.i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			s.buf = utf8.AppendRune(s.buf, r)
		default:
			return nil, s.syntaxError("bad escape")
		}
		s.i++
	}
	return nil, s.syntaxError("unterminated string")
}

func (s *scanner) hex4(at int) (rune, bool) {
	if at+4 > len(s.b) {
		return 0, false
	}
	var r rune
	for _, c := range s.b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
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
func (s *scanner) null() bool {
	if s.peek() == 'n' && s.i+4 <= len(s.b) && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// number reads a JSON number. msg is set (and err nil) for numbers that are
// valid tokens but not allowed in a trace; err is set for bad JSON. NaN and
// Infinity, which Python's json module writes, get their own message.
func (s *scanner) number() (f float64, msg string, err error) {
	s.ws()
	start := s.i
	for _, lit := range [...]struct{ tok, msg string }{{"NaN", "is NaN"}, {"Infinity", "is infinite"}, {"-Infinity", "is infinite"}} {
		if s.i+len(lit.tok) <= len(s.b) && string(s.b[s.i:s.i+len(lit.tok)]) == lit.tok {
			s.i += len(lit.tok)
			return 0, lit.msg + " (not a JSON number)", nil
		}
	}
	neg := false
	if s.i < len(s.b) && s.b[s.i] == '-' {
		neg = true
		s.i++
	}
	var mant uint64
	digits, fracDigits := 0, 0
	intStart := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		if digits < 19 {
			mant = mant*10 + uint64(s.b[s.i]-'0')
		}
		digits++
		s.i++
	}
	if s.i == intStart {
		s.i = start
		return 0, "", s.syntaxError("want a number")
	}
	if s.b[intStart] == '0' && s.i-intStart > 1 {
		s.i = intStart + 1
		return 0, "", s.syntaxError("leading zero in a number")
	}
	simple := true
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		fs := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			if digits < 19 {
				mant = mant*10 + uint64(s.b[s.i]-'0')
				fracDigits++
			}
			digits++
			s.i++
		}
		if s.i == fs {
			return 0, "", s.syntaxError("want digits after the decimal point")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		simple = false
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		es := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
		if s.i == es {
			return 0, "", s.syntaxError("want digits in the exponent")
		}
	}
	// Clinger's fast path: an exact mantissa below 2^53 divided by an exact
	// power of ten is correctly rounded. Everything else goes to strconv.
	if simple && digits <= 19 && mant < 1<<53 && fracDigits < len(pow10) {
		f = float64(mant) / pow10[fracDigits]
	} else {
		tok := s.b[start:s.i]
		f, err = strconv.ParseFloat(unsafe.String(unsafe.SliceData(tok), len(tok)), 64)
		if err != nil && !math.IsInf(f, 0) {
			return 0, "", &Error{Msg: "not valid JSON: bad number " + strconv.Quote(string(tok))}
		}
		err = nil
		neg = false // ParseFloat already applied the sign
	}
	if neg {
		f = -f
	}
	switch {
	case math.IsInf(f, 0):
		return 0, "is infinite", nil
	case f < 0:
		return 0, "is negative (" + strconv.FormatFloat(f, 'g', -1, 64) + ")", nil
	}
	return f + 0, "", nil // + 0 turns -0 into 0
}

// skip validates and skips any JSON value, for free-form fields.
func (s *scanner) skip(depth int) error {
	if depth > 64 {
		return s.syntaxError("nested too deep")
	}
	switch s.peek() {
	case '{':
		s.i++
		if s.peek() == '}' {
			s.i++
			return nil
		}
		for {
			if _, err := s.key(); err != nil {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.i++
			case '}':
				s.i++
				return nil
			default:
				return s.syntaxError("want ',' or '}'")
			}
		}
	case '[':
		s.i++
		if s.peek() == ']' {
			s.i++
			return nil
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.i++
			case ']':
				s.i++
				return nil
			default:
				return s.syntaxError("want ',' or ']'")
			}
		}
	case '"':
		_, err := s.str()
		return err
	case 't', 'f', 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if s.i+len(lit) <= len(s.b) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				return nil
			}
		}
		return s.syntaxError("want a value")
	default:
		_, msg, err := s.number()
		if err == nil && msg != "" && msg[len(msg)-1] == ')' && len(msg) > 20 && msg[len(msg)-20:] == "(not a JSON number)" {
			return &Error{Msg: "not valid JSON: NaN and Infinity are not JSON numbers"}
		}
		return err
	}
}
