// Package safetext makes untrusted text safe where a person reads it: on
// a terminal and in HTML (control codes shown escaped, never
// interpreted), in JSON a
// person may cat or open in a viewer (the same codes as \u escapes) and
// in a spreadsheet (a cell that would start a formula prefixed with ').
//
// Untrusted text is anything coursekit did not write itself: zip entry
// and file names, learners' answers, a trace's clock, currency, attempt
// ids and error texts. It is escaped where it is printed, with the
// helpers here, so that every command escapes the same way.
package safetext

import (
	"fmt"
	"html"
	"io"
	"strings"
	"unicode/utf8"
)

// escapeRune is how Term shows r, or "" when r is shown as itself.
// multiline keeps newlines and tabs.
func escapeRune(r rune, multiline bool) string {
	switch {
	case r == '\n' || r == '\t':
		if multiline {
			return ""
		}
		if r == '\n' {
			return `\n`
		}
		return `\t`
	case r == '\r':
		return `\r`
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf(`\x%02x`, r)
	case spoofs(r):
		return fmt.Sprintf(`\u%04x`, r)
	}
	return ""
}

// spoofs reports whether r is a character beyond ASCII that a terminal
// or a text viewer acts on instead of showing: a C1 control (CSI, OSC,
// NEL...), a bidi override or isolate, which reorders what follows, a
// bidi mark (LRM, RLM, ALM: U+200E, U+200F, U+061C), which reorders the
// neutral characters around it, or the line and paragraph separators
// (U+2028, U+2029), which break a line where none is shown and end a
// line in JavaScript.
func spoofs(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
		r == 0x200e || r == 0x200f || r == 0x061c || r == 0x2028 || r == 0x2029
}

// needs reports whether s has anything Term or Line would escape.
func needs(s string, multiline bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || escapeRune(r, multiline) != "" {
			return true
		}
		i += n
	}
	return false
}

func escape(s string, multiline bool) string {
	if !needs(s, multiline) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch e := escapeRune(r, multiline); {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case e != "":
			b.WriteString(e)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Term is s as it can be printed on a terminal: newlines and tabs kept;
// other C0 controls, DEL and invalid UTF-8 bytes as \x1b, \r, \xff; C1
// controls and bidi overrides as \u009b, \u202e. Text without any of
// these is returned unchanged.
func Term(s string) string { return escape(s, true) }

// Line is Term for a value that must stay on one line (a file name, an
// id): newlines and tabs are escaped too (\n, \t).
func Line(s string) string { return escape(s, false) }

// Name is a name as outputs show it: invalid UTF-8 replaced by U+FFFD
// (so that CSV, HTML and JSON get valid text), then escaped as Line.
// Show the original bytes with Line, for a person to find the file.
func Name(s string) string { return Line(strings.ToValidUTF8(s, "\uFFFD")) }

// Text is a learner's multi-line text (an answer) as outputs show it:
// invalid UTF-8 replaced by U+FFFD (so CSV, HTML and Markdown get valid
// text), then escaped as Term (newlines and tabs kept; ESC, OSC, C1
// controls and bidi overrides shown as \x1b, \u202e).
func Text(s string) string { return Term(strings.ToValidUTF8(s, "\uFFFD")) }

// HTML is Term(s) escaped as HTML text: control codes, C1 controls and
// bidi overrides shown as \x1b, \u202e (a page's title and text cannot
// hide or reorder what follows), then <, >, &, ' and " as entities.
func HTML(s string) string { return html.EscapeString(Term(s)) }

// Chart is s as chart text (a label, a tooltip, a title or subtitle of an ECharts chart): the one
// helper every chart's text goes through. go-echarts writes the option JSON unescaped into a
// <script>, and ECharts tooltips are HTML, so '<' and '>' become the look-alikes '‹' and '›'
// ("</script>" reads "‹/script›"); '{' and '}' become '｛' '｝' so ECharts does not read them as
// {a}/{b} template variables; the marker "__f__", which go-echarts strips to turn strings into
// JavaScript functions, is broken up; C0 controls, DEL and invalid UTF-8 become spaces; C1
// controls, bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069) and marks (U+200E,
// U+200F, U+061C), which would reorder what follows in a tooltip or a subtitle, and the line
// and paragraph separators (U+2028, U+2029) are shown escaped (\u202e), as Term shows them.
func Chart(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '<':
			b.WriteRune('‹')
		case r == '>':
			b.WriteRune('›')
		case r == '{':
			b.WriteRune('｛')
		case r == '}':
			b.WriteRune('｝')
		case r == utf8.RuneError || r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		case spoofs(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	out := b.String()
	for strings.Contains(out, "__f__") {
		out = strings.ReplaceAll(out, "__f__", "_\u200b_f_\u200b_")
	}
	return out
}

// JSON is the JSON text b with the characters JSON allows raw in a string
// but a terminal or a viewer acts on written as \u escapes: DEL, the C1
// controls (U+0080–U+009F), the bidi overrides, isolates and marks
// (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) and the line
// and paragraph separators, e.g. \u009b, \u202e; an invalid UTF-8
// byte becomes \ufffd, as encoding/json writes it. encoding/json leaves
// the others raw. Such a character can only stand inside a string of
// valid JSON, where the escape is the same character: every reader
// decodes the same values, and the layout (newlines, indentation) is
// kept. Every JSON file coursekit writes with strings from a trace, a
// tool's file or a learner goes through it. b is returned as it is when
// it has none of them.
func JSON(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf && b[i] != 0x7f {
		i++
	}
	if i == len(b) || !jsonNeeds(b[i:]) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	out = append(out, b[:i]...)
	for i < len(b) {
		if c := b[i]; c < utf8.RuneSelf && c != 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = append(out, `\ufffd`...)
		case r == 0x7f || spoofs(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// jsonNeeds reports whether JSON would change anything in b.
func jsonNeeds(b []byte) bool {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			if c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 || spoofs(r) {
			return true
		}
		i += n
	}
	return false
}

// Writer passes what is written through Term. A UTF-8 sequence split
// across two writes is held until it completes; Flush writes what is
// held (escaped, when it never completed).
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter is a Writer onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes Term(p) to the underlying writer (and reports len(p)).
func (t *Writer) Write(p []byte) (int, error) {
	buf := append(t.pending, p...)
	cut := len(buf)
	// Hold back a trailing incomplete rune (at most 3 bytes) that the
	// next write may complete.
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-3; i-- {
		if utf8.RuneStart(buf[i]) {
			if buf[i] >= utf8.RuneSelf && !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	t.pending = append([]byte(nil), buf[cut:]...)
	if cut == 0 {
		return len(p), nil
	}
	_, err := io.WriteString(t.w, Term(string(buf[:cut])))
	return len(p), err
}

// Flush writes what Write held back.
func (t *Writer) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	s := string(t.pending)
	t.pending = nil
	_, err := io.WriteString(t.w, Term(s))
	return err
}

// CSVCell keeps a spreadsheet from reading s as a formula: a cell
// starting with =, +, @, a tab or a carriage return, or with - when it is
// not a plain decimal number (-3.5 and -1e-3 stay numbers), gets a
// leading '. Every CSV coursekit writes for a spreadsheet uses it.
func CSVCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '@', '\t', '\r':
		return "'" + s
	case '-':
		if !decimal(s[1:]) {
			return "'" + s
		}
	}
	return s
}

// decimal reports whether s is digits with an optional fraction and
// exponent: 3, 3.5, .5, 3., 1e-3 (no sign, no hex, no Inf or NaN).
func decimal(s string) bool {
	i, digits := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}
