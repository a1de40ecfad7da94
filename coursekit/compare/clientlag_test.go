package compare_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// Several runs whose client was late give one client-lag note naming them
// all, with the range of their counts and maxima, not one near-identical
// 500-character note per run (the walk's six); one such run keeps the
// card's own note.
func TestClientLagOneNote(t *testing.T) {
	o := compare.Options{}
	late := func(name string, over int, maxMS float64) compare.Run {
		tr := failing(40, 4)
		for i := range tr.Attempts {
			lag := 1.0
			if i < over {
				lag = 6 + (maxMS-6)*float64(i)/float64(max(over-1, 1))
			}
			tr.Attempts[i].Meta = json.RawMessage(fmt.Sprintf(`{"client_lag_ms":%g}`, lag))
		}
		return run(tr, name, o)
	}
	a := []compare.Run{late("a1", 5, 120), late("a2", 9, 59.3), late("a3", 7, 80)}
	b := []compare.Run{late("b1", 0, 0), late("b2", 12, 1520)}
	r, err := compare.Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, w := range r.Warnings {
		if w.Kind == compare.WarnClientLag {
			notes = append(notes, w.Text)
		}
	}
	if len(notes) != 1 {
		t.Fatalf("%d client-lag notes, want one:\n%s", len(notes), strings.Join(notes, "\n"))
	}
	for _, want := range []string{"A a1, A a2, A a3, B b2", "5–12 attempts", "59.3–1520 ms"} {
		if !strings.Contains(notes[0], want) {
			t.Errorf("the note does not say %q:\n%s", want, notes[0])
		}
	}
	var text bytes.Buffer
	if err := compare.Write(&text, r, cardfmt.Text, lang.ZH); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), "测量客户端自己迟到了"); n != 1 {
		t.Errorf("the Chinese report has %d client-lag notes, want one:\n%s", n, text.String())
	}
	one, err := compare.Compare(a[:1], b[:1], o)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range one.Warnings {
		if w.Kind == compare.WarnClientLag && !strings.Contains(w.Text, "during 5 attempts (at most 120 ms") {
			t.Errorf("one late run: %q", w.Text)
		}
	}
}
