package jsontok

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var seeds = []string{
	`{"a":[1,-2.5e3,true,false,null,{"b":"c\u00e9\ud83d\ude00\n"}],"d":{}}`,
	`[]`, `{}`, `""`, `"\ud800"`, `"\ude00\ud83d"`, `"\u12G4"`, `"\q"`, "\"\x01\"", `"\`, `"abc`,
	`0`, `-0`, `01`, `-`, `1.`, `1.e5`, `1e`, `1e+`, `1E-07`, `123456789012345678901234567890`, `1e400`, `-1e-400`,
	`NaN`, `Infinity`, `-Infinity`, `tru`, `nul`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{,}`, ` { "x" : [ ] } `,
	"\"\xff\"", `"é"`, `{"a":1}x`,
}

// Skip accepts exactly what encoding/json accepts (strings need not be
// UTF-8 without UTF8, as with encoding/json), and a string decodes as
// encoding/json decodes it.
func FuzzAgainstEncodingJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := Scanner{B: in}
		err := s.Skip(10000)
		ok := err == nil && s.AtEOF()
		if want := json.Valid(in); ok != want {
			t.Fatalf("%q: Skip ok %v (%v), json.Valid %v", in, ok, err, want)
		}
		// A string literal on its own.
		s = Scanner{B: in}
		if s.Peek() != '"' {
			return
		}
		st, err := s.String()
		var want string
		jerr := json.Unmarshal(in, &want)
		if ok := err == nil && s.AtEOF(); ok != (jerr == nil) {
			t.Fatalf("%q: String ok %v (%v), json %v", in, ok, err, jerr)
		}
		if jerr == nil && utf8.Valid(in) {
			if got := string(AppendUnescaped(nil, st.Raw(in))); got != want {
				t.Fatalf("%q decodes to %q, encoding/json %q", in, got, want)
			}
		}
	})
}

// A number token's value is strconv's, fast path or not.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "12.5", "0.1", "9007199254740993", "1e22", "123456789.123456789", "-1.5E+2", "5e-324", "1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		s := Scanner{B: []byte(tok)}
		n, err := s.Number()
		if err != nil || s.I != len(tok) {
			return
		}
		want, _ := strconv.ParseFloat(tok, 64)
		if got := n.Float(s.B); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("%s: %v, strconv %v", tok, got, want)
		}
		if v, ok := n.Int(); ok && float64(v) != want {
			t.Fatalf("%s: Int %d, value %v", tok, v, want)
		}
	})
}

func TestSeeds(t *testing.T) {
	for _, s := range seeds {
		sc := Scanner{B: []byte(s)}
		err := sc.Skip(10000)
		if ok := err == nil && sc.AtEOF(); ok != json.Valid([]byte(s)) {
			t.Errorf("%q: Skip ok %v (%v), json.Valid %v", s, ok, err, !ok)
		}
	}
}

// Errors name the offset of the unexpected byte and what was expected.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		off  int
		what string
		kind Kind
	}{
		{`{"a" 1}`, 5, "want ':' after a key", Syntax},
		{`{"a":1 "b"}`, 7, "want ',' or '}'", Syntax},
		{`[1 2]`, 3, "want ',' or ']'", Syntax},
		{`{1:2}`, 1, "want a string", Syntax},
		{`"ab`, 3, "unterminated string", Syntax},
		{`"a\`, 3, "unterminated escape", Syntax},
		{`"a\x"`, 3, "bad escape", Syntax},
		{`"\u12"`, 2, `bad \u escape`, Syntax},
		{"\"a\x1f\"", 2, "control character in a string", Syntax},
		{`01`, 1, "leading zero in a number", Syntax},
		{`-x`, 0, "want a number", Syntax},
		{`1.x`, 2, "want digits after the decimal point", Syntax},
		{`1e+`, 3, "want digits in the exponent", Syntax},
		{`tru`, 0, "want a value", Syntax},
		{`[NaN]`, 1, "NaN is not a JSON number", NonFinite},
		{`-Infinity`, 0, "-Infinity is not a JSON number", NonFinite},
		{`[[[1]]]`, 2, "nested too deep", Syntax},
	} {
		s := Scanner{B: []byte(c.in)}
		err := s.Skip(1)
		e, ok := err.(*Error)
		if !ok || e.Off != c.off || e.What != c.what || e.Kind != c.kind {
			t.Errorf("%s: %#v, want offset %d %q kind %d", c.in, err, c.off, c.what, c.kind)
		}
	}
	s := Scanner{B: []byte("\"a\xff\""), UTF8: true}
	if _, err := s.String(); err == nil || err.(*Error).Kind != BadUTF8 {
		t.Errorf("invalid UTF-8 with UTF8 set: %v", err)
	}
	s = Scanner{B: []byte("\"a\xff\"")}
	if _, err := s.String(); err != nil {
		t.Errorf("invalid UTF-8 without UTF8: %v", err)
	}
}

// The hot paths do not allocate: strings, numbers, skipping, decoding
// into a buffer with room.
func TestNoAllocations(t *testing.T) {
	in := []byte(`{"attempt":"q12","start_ms":1234.567,"events":[{"t_ms":1240.5,"tokens":2}],"meta":{"a":[1,"x\u00e9",null]},"s":"a\nb"}`)
	buf := make([]byte, 0, 64)
	n := testing.AllocsPerRun(200, func() {
		s := Scanner{B: in, UTF8: true}
		if err := s.Object(func(key []byte) error {
			switch string(key) {
			case "start_ms":
				n, err := s.Number()
				_ = n.Float(s.B)
				return err
			case "s":
				st, err := s.String()
				buf = AppendUnescaped(buf[:0], st.Raw(s.B))
				return err
			}
			return s.Skip(64)
		}); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 || string(buf) != "a\nb" {
		t.Errorf("%v allocations per object; decoded %q", n, buf)
	}
}

func TestNumberFields(t *testing.T) {
	s := Scanner{B: []byte("-12.50e3")}
	n, err := s.Number()
	if err != nil || !n.Neg || !n.Frac || !n.Exp || n.Float(s.B) != -12500 || n.End != 8 {
		t.Errorf("%+v %v", n, err)
	}
	if _, ok := n.Int(); ok {
		t.Error("-12.50e3 is not a token count")
	}
	s = Scanner{B: []byte("42")}
	n, _ = s.Number()
	if v, ok := n.Int(); !ok || v != 42 {
		t.Errorf("Int %d %v", v, ok)
	}
	s = Scanner{B: []byte(strings.Repeat("9", 16))}
	n, _ = s.Number()
	if _, ok := n.Int(); ok {
		t.Error("16 digits taken as a count")
	}
}
