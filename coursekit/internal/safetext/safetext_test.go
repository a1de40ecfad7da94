package safetext

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestTermLineName(t *testing.T) {
	for _, c := range []struct{ in, term, line, name string }{
		{"plain 中文 -3.5", "plain 中文 -3.5", "plain 中文 -3.5", "plain 中文 -3.5"},
		{"a\x1b[2K\rb", `a\x1b[2K\rb`, `a\x1b[2K\rb`, `a\x1b[2K\rb`},
		{"l1\n\tl2", "l1\n\tl2", `l1\n\tl2`, `l1\n\tl2`},
		{"del\x7f c1\u009b bidi\u202e", `del\x7f c1\u009b bidi\u202e`, `del\x7f c1\u009b bidi\u202e`, `del\x7f c1\u009b bidi\u202e`},
		{"bad\xff\xfe", `bad\xff\xfe`, `bad\xff\xfe`, "bad\uFFFD"},
	} {
		if got := Term(c.in); got != c.term {
			t.Errorf("Term(%q) = %q, want %q", c.in, got, c.term)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := Name(c.in); got != c.name {
			t.Errorf("Name(%q) = %q, want %q", c.in, got, c.name)
		}
	}
}

// A rune split across two writes is written whole; an invalid byte at the
// end is escaped by Flush.
func TestWriterSplitRune(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	s := []byte("时钟\x1b")
	w.Write(s[:2])
	w.Write(s[2:4])
	w.Write(s[4:])
	w.Write([]byte{0xe6})
	w.Flush()
	if got, want := b.String(), `时钟\x1b\xe6`; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestCSVCell(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "text": "text", "=1+1": "'=1+1", "+1": "'+1", "@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx", "\rx": "'\rx",
		"-3.5": "-3.5", "-1e-3": "-1e-3", "-.5": "-.5", "-3.": "-3.", "-": "'-", "-2+3": "'-2+3", "-Inf": "'-Inf",
		"-0x1p-2": "'-0x1p-2", "-1e": "'-1e", "-cmd|' /C calc'!A0": "'-cmd|' /C calc'!A0", "3.5": "3.5",
	} {
		if got := CSVCell(in); got != want {
			t.Errorf("CSVCell(%q) = %q, want %q", in, got, want)
		}
	}
}

// JSON escapes DEL, C1 controls, bidi overrides and invalid bytes inside
// strings, keeps everything else (newlines and indentation, other
// non-ASCII text) and decodes to the same values.
func TestJSON(t *testing.T) {
	plain := []byte("{\n  \"a\": \"中文 ‹x› \\u001b\"\n}\n")
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Errorf("text without any: copied, want it returned as it is")
	}
	in := "{\n  \"clock\": \"c\u009b31m\u202eok\u2066\x7f\",\n  \"bad\": \"\xff\",\n  \"zh\": \"时钟\u2069\"\n}\n"
	want := "{\n  \"clock\": \"c\\u009b31m\\u202eok\\u2066\\u007f\",\n  \"bad\": \"\\ufffd\",\n  \"zh\": \"时钟\\u2069\"\n}\n"
	got := JSON([]byte(in))
	if string(got) != want {
		t.Fatalf("JSON(%q)\n= %q\nwant %q", in, got, want)
	}
	var a, b map[string]string
	if err := json.Unmarshal([]byte(in), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		t.Fatal(err)
	}
	if a["clock"] != b["clock"] || a["zh"] != b["zh"] || b["bad"] != "\uFFFD" {
		t.Errorf("decoded %q, want %q", b, a)
	}
}

func TestHTML(t *testing.T) {
	in := "<b>\"a\" & 'b'\x1b[2J\u202e\u009b\n\t中文</b>"
	want := "&lt;b&gt;&#34;a&#34; &amp; &#39;b&#39;\\x1b[2J\\u202e\\u009b\n\t中文&lt;/b&gt;"
	if got := HTML(in); got != want {
		t.Errorf("HTML(%q) = %q, want %q", in, got, want)
	}
}
