package toolfile

import (
	"encoding/json"
	"strings"

	"github.com/llmperf-course/course/coursekit/lang"
)

// Note is one note of an import (Report.Notes), held in both languages so
// that the comparison prints it in the reader's (import --lang). It can
// only be made from a lang.Msg (NewNote, JoinNotes), so every note has a
// Chinese and an English text, as lang's test of every Msg checks. Anything
// machine-readable keeps the English: String and the JSON form (a plain
// string, as before notes had two languages).
type Note struct{ zh, en string }

// NewNote is m formatted with a in both languages; an argument that is a
// Note (or a lang.Msg) is its text in the language being formatted.
// Without a, m's texts are taken as they are (a % in them is plain text).
func NewNote(m lang.Msg, a ...any) Note {
	if len(a) == 0 {
		return Note{m.In(lang.ZH), m.In(lang.EN)}
	}
	in := func(l lang.Lang) string {
		b := make([]any, len(a))
		for i, x := range a {
			switch v := x.(type) {
			case Note:
				b[i] = v.In(l)
			case lang.Msg:
				b[i] = v.In(l)
			default:
				b[i] = x
			}
		}
		return m.F(l, b...)
	}
	return Note{in(lang.ZH), in(lang.EN)}
}

// JoinNotes is parts joined by sep, each language by its own separator.
func JoinNotes(parts []Note, sep lang.Msg) Note {
	var zh, en []string
	for _, p := range parts {
		zh, en = append(zh, p.zh), append(en, p.en)
	}
	return Note{strings.Join(zh, sep.In(lang.ZH)), strings.Join(en, sep.In(lang.EN))}
}

// In is the note in l (Chinese for anything but EN, as lang.Msg.In).
func (n Note) In(l lang.Lang) string {
	if l == lang.EN {
		return n.en
	}
	return n.zh
}

// String is the English text.
func (n Note) String() string { return n.en }

// IsZero reports whether n is the zero Note (no note).
func (n Note) IsZero() bool { return n == Note{} }

// MarshalJSON writes the English text as a JSON string.
func (n Note) MarshalJSON() ([]byte, error) { return json.Marshal(n.en) }

// NotesIn are the report's notes in l, in order.
func (r *Report) NotesIn(l lang.Lang) []string {
	out := make([]string, len(r.Notes))
	for i, n := range r.Notes {
		out[i] = n.In(l)
	}
	return out
}

// Count is lang.N(n, one, many) as a Note, an argument of NewNote: in
// English "1 attempt" or "2 attempts", in Chinese the number alone.
func Count(n int, one, many string) Note {
	return Note{lang.N(lang.ZH, n, one, many), lang.N(lang.EN, n, one, many)}
}
