// Package jsontok is the strict, allocation-free JSON tokenizer under the
// course's two hot-path readers: the trace reader (coursekit/trace, one
// attempt per line, a million lines per card) and the client's SSE chunk
// scanner (coursekit/loadgen, once per streamed event). Both read a fixed
// schema field by field, which is several times faster than building a
// document or reflecting into structs, and both must reject what
// encoding/json rejects.
//
// A Scanner walks one buffer: whitespace, Peek, strings (a span of the raw
// contents, escapes validated; AppendUnescaped decodes them into a buffer
// the caller owns), the number grammar (with the digits gathered for a
// correctly rounded fast path), literals, Skip for free-form values, and
// Object and Array walkers. Nothing allocates unless there is an error.
// An *Error carries the byte offset and what was expected; each reader
// words it for its users (a trace names the column, the client the offset).
package jsontok

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Scanner reads the JSON in B from offset I.
type Scanner struct {
	B []byte
	I int
	// UTF8 makes strings that are not valid UTF-8 an error (Kind BadUTF8),
	// as the trace format requires; encoding/json instead replaces them
	// with U+FFFD, and so does a scanner without UTF8.
	UTF8 bool
}

// Kind tells the errors apart.
type Kind uint8

const (
	// Syntax is bad JSON at Off.
	Syntax Kind = iota
	// BadUTF8 is a string that is not valid UTF-8 (only with UTF8 set).
	BadUTF8
	// NonFinite is NaN, Infinity or -Infinity where Skip expected a
	// value: Python's json module writes them, JSON has no such numbers.
	NonFinite
)

// Error is a tokenizer error: What was expected at byte offset Off
// (len(B) when the input ended first).
type Error struct {
	Off  int
	What string
	Kind Kind
}

func (e *Error) Error() string {
	return "offset " + strconv.Itoa(e.Off) + ": " + e.What
}

// Fail is a Syntax error at the current offset.
func (s *Scanner) Fail(what string) error { return &Error{Off: s.I, What: what} }

// AtEnd reports whether an error offset is the end of the input.
func (s *Scanner) AtEnd(e *Error) bool { return e.Off >= len(s.B) }

// WS skips JSON whitespace.
func (s *Scanner) WS() {
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Peek skips whitespace and returns the next byte, or 0 at the end.
func (s *Scanner) Peek() byte {
	s.WS()
	if s.I < len(s.B) {
		return s.B[s.I]
	}
	return 0
}

// AtEOF skips whitespace and reports whether the input is used up (Peek
// also returns 0 for a NUL byte, which is not the end).
func (s *Scanner) AtEOF() bool {
	s.WS()
	return s.I >= len(s.B)
}

// Eat consumes c if it is the next byte (no whitespace skipped).
func (s *Scanner) Eat(c byte) bool {
	if s.I < len(s.B) && s.B[s.I] == c {
		s.I++
		return true
	}
	return false
}

// Lit consumes the literal lit (true, false, null) if it comes next.
func (s *Scanner) Lit(lit string) bool {
	if len(s.B)-s.I >= len(lit) && string(s.B[s.I:s.I+len(lit)]) == lit {
		s.I += len(lit)
		return true
	}
	return false
}

// Null skips whitespace and consumes a null if one is next.
func (s *Scanner) Null() bool {
	return s.Peek() == 'n' && s.Lit("null")
}

// Str is a scanned string: B[Start:End] are its raw contents between the
// quotes. Escaped says they hold backslash escapes (decode them with
// AppendUnescaped); ASCII says every raw byte is below 0x80.
type Str struct {
	Start, End     int
	Escaped, ASCII bool
}

// Raw is the string's raw contents, aliasing the input.
func (t Str) Raw(b []byte) []byte { return b[t.Start:t.End] }

// String scans the string at I, which must start with '"' (no whitespace
// is skipped). Escapes are validated, not decoded.
func (s *Scanner) String() (Str, error) {
	if s.I >= len(s.B) || s.B[s.I] != '"' {
		return Str{}, s.Fail("want a string")
	}
	s.I++
	t := Str{Start: s.I, ASCII: true}
	for s.I < len(s.B) {
		c := s.B[s.I]
		if !special[c] {
			s.I++
			continue
		}
		switch {
		case c == '"':
			t.End = s.I
			s.I++
			if s.UTF8 && !t.ASCII && !utf8.Valid(s.B[t.Start:t.End]) {
				return Str{}, &Error{Off: t.Start, What: "not valid UTF-8 in a string", Kind: BadUTF8}
			}
			return t, nil
		case c == '\\':
			t.Escaped = true
			if s.I+1 >= len(s.B) {
				s.I++
				return Str{}, s.Fail("unterminated escape")
			}
			s.I++
			switch s.B[s.I] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := hex4(s.B, s.I+1); !ok {
					return Str{}, s.Fail("bad \\u escape")
				}
				s.I += 4
			default:
				return Str{}, s.Fail("bad escape")
			}
		case c < 0x20:
			return Str{}, s.Fail("control character in a string")
		default: // c >= utf8.RuneSelf
			t.ASCII = false
		}
		s.I++
	}
	return Str{}, s.Fail("unterminated string")
}

// special marks the bytes a string scan must look at: the quote, the
// backslash, control characters and the bytes of multi-byte UTF-8.
var special = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
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

// AppendUnescaped appends the decoded contents of a string that String
// accepted (raw = Str.Raw) to dst and returns it, as encoding/json decodes
// them: a surrogate pair is one rune, a lone surrogate is U+FFFD. It
// allocates only when dst has no room.
func AppendUnescaped(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		switch e := raw[i]; e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(raw, i+1)
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := hex4(raw, i+3)
				if d := utf16.DecodeRune(r, r2); ok && i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, e)
		}
	}
	return dst
}

// Num is a scanned number token B[Start:End]. Mant holds its first 19
// significant digits (integer and fraction digits run together), Digits
// counts all of them and FracDigits those of the fraction within Mant.
type Num struct {
	Start, End         int
	Mant               uint64
	Digits, FracDigits int
	Neg, Frac, Exp     bool // a leading '-', a fraction, an exponent
}

// NonFiniteLiteral consumes NaN, Infinity or -Infinity at I (no
// whitespace skipped) and returns it; "" if none is there.
func (s *Scanner) NonFiniteLiteral() string {
	if s.I >= len(s.B) || (s.B[s.I] != 'N' && s.B[s.I] != 'I' && s.B[s.I] != '-') {
		return ""
	}
	for _, lit := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if s.Lit(lit) {
			return lit
		}
	}
	return ""
}

// Number scans the number at I by the JSON grammar (no whitespace is
// skipped). A token without digits leaves I at its start.
func (s *Scanner) Number() (Num, error) {
	n := Num{Start: s.I}
	if s.I < len(s.B) && s.B[s.I] == '-' {
		n.Neg = true
		s.I++
	}
	intStart := s.I
	s.digits(&n)
	if s.I == intStart {
		s.I = n.Start
		return Num{}, s.Fail("want a number")
	}
	if s.B[intStart] == '0' && s.I-intStart > 1 {
		s.I = intStart + 1
		return Num{}, s.Fail("leading zero in a number")
	}
	if s.I < len(s.B) && s.B[s.I] == '.' {
		n.Frac = true
		s.I++
		fs := s.I
		n.FracDigits = s.digits(&n)
		if s.I == fs {
			return Num{}, s.Fail("want digits after the decimal point")
		}
	}
	if s.I < len(s.B) && (s.B[s.I] == 'e' || s.B[s.I] == 'E') {
		n.Exp = true
		s.I++
		if s.I < len(s.B) && (s.B[s.I] == '+' || s.B[s.I] == '-') {
			s.I++
		}
		es := s.I
		for s.I < len(s.B) && s.B[s.I] >= '0' && s.B[s.I] <= '9' {
			s.I++
		}
		if s.I == es {
			return Num{}, s.Fail("want digits in the exponent")
		}
	}
	n.End = s.I
	return n, nil
}

// digits gathers the decimal digits at I into n, the first 19 of the
// number into Mant, and returns how many of these went into Mant.
func (s *Scanner) digits(n *Num) (kept int) {
	for s.I < len(s.B) && s.B[s.I] >= '0' && s.B[s.I] <= '9' {
		if n.Digits < 19 {
			n.Mant = n.Mant*10 + uint64(s.B[s.I]-'0')
			kept++
		}
		n.Digits++
		s.I++
	}
	return kept
}

var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Float is the number's value, correctly rounded; ±Inf when it is out of
// range. Clinger's fast path (an exact mantissa below 2^53 divided by an
// exact power of ten) covers the decimals traces are made of; the rest
// goes to strconv.
func (n Num) Float(b []byte) float64 {
	if !n.Exp && n.Digits <= 19 && n.Mant < 1<<53 && n.FracDigits < len(pow10) {
		f := float64(n.Mant) / pow10[n.FracDigits]
		if n.Neg {
			f = -f
		}
		return f
	}
	return n.parse(b)
}

func (n Num) parse(b []byte) float64 {
	tok := b[n.Start:n.End]
	f, _ := strconv.ParseFloat(unsafe.String(unsafe.SliceData(tok), len(tok)), 64) // the grammar was checked: only range errors remain, as ±Inf or 0
	return f
}

// Int is the number's value when it is a non-negative integer of at most
// 15 digits, written without fraction or exponent (a token count).
func (n Num) Int() (int, bool) {
	if n.Neg || n.Frac || n.Exp || n.Digits > 15 {
		return 0, false
	}
	return int(n.Mant), true
}

// Key reads an object key at the next non-space byte and the colon after
// it; the key is the raw span (object keys of the schemas have no escapes).
func (s *Scanner) Key() (Str, error) {
	if s.Peek() != '"' {
		return Str{}, s.Fail("want a string")
	}
	k, err := s.String()
	if err != nil {
		return Str{}, err
	}
	if s.Peek() != ':' {
		return Str{}, s.Fail("want ':' after a key")
	}
	s.I++
	return k, nil
}

// Object walks the object whose '{' is the next non-space byte: for each
// member it reads the key and the colon and calls each with the raw key
// and I at the value, which each must consume.
func (s *Scanner) Object(each func(key []byte) error) error {
	if s.Peek() != '{' {
		return s.Fail("want an object")
	}
	s.I++
	if s.Peek() == '}' {
		s.I++
		return nil
	}
	for {
		// Key's work, written out: this loop runs for every member.
		if s.Peek() != '"' {
			return s.Fail("want a string")
		}
		k, err := s.String()
		if err != nil {
			return err
		}
		if s.Peek() != ':' {
			return s.Fail("want ':' after a key")
		}
		s.I++
		if err := each(s.B[k.Start:k.End]); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.I++
		case '}':
			s.I++
			return nil
		default:
			return s.Fail("want ',' or '}'")
		}
	}
}

// Array walks the array whose '[' is the next non-space byte, calling each
// with I before every element, which each must consume.
func (s *Scanner) Array(each func() error) error {
	if s.Peek() != '[' {
		return s.Fail("want an array")
	}
	s.I++
	if s.Peek() == ']' {
		s.I++
		return nil
	}
	for {
		if err := each(); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.I++
		case ']':
			s.I++
			return nil
		default:
			return s.Fail("want ',' or ']'")
		}
	}
}

// Skip validates and skips the next value, nested at most maxDepth deep.
func (s *Scanner) Skip(maxDepth int) error { return s.skip(0, maxDepth) }

func (s *Scanner) skip(depth, maxDepth int) error {
	if depth > maxDepth {
		return s.Fail("nested too deep")
	}
	switch s.Peek() {
	case '{':
		return s.Object(func([]byte) error { return s.skip(depth+1, maxDepth) })
	case '[':
		return s.Array(func() error { return s.skip(depth+1, maxDepth) })
	case '"':
		_, err := s.String()
		return err
	case 't', 'f', 'n':
		if s.Lit("true") || s.Lit("false") || s.Lit("null") {
			return nil
		}
		return s.Fail("want a value")
	}
	if s.AtEOF() { // a cut line: nothing here to be a number
		return s.Fail("want a value")
	}
	at := s.I
	if lit := s.NonFiniteLiteral(); lit != "" {
		return &Error{Off: at, What: lit + " is not a JSON number", Kind: NonFinite}
	}
	_, err := s.Number()
	return err
}
