package compare_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// When the runs' event gaps go by different names (one token per event in
// some runs, several in others), one note says which runs' gaps are ITL
// and which not, and why (the fifth engineer walk read "Event gaps (…: ITL), Event gaps (…:
// not ITL)" without knowing which was which); one name for all is said
// once, without runs.
func TestEventGapNamesSayWhichRuns(t *testing.T) {
	o := compare.Options{}
	one := failing(40, 0)
	multi := failing(40, 0)
	multi.Attempts = append([]trace.Attempt(nil), one.Attempts...)
	for i := range multi.Attempts {
		a := &multi.Attempts[i]
		a.Events = []trace.Event{{TMS: a.StartMS + 100, Tokens: 3}, {TMS: a.StartMS + 150, Tokens: 3}}
	}
	gapLine := func(a, b []compare.Run) string {
		r, err := compare.Compare(a, b, o)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, lang.EN); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(buf.String(), "\n") {
			if strings.HasPrefix(line, "itl_ms are") {
				return line
			}
		}
		t.Fatalf("no event-gap line:\n%s", buf.String())
		return ""
	}
	line := gapLine([]compare.Run{run(one, "a1.jsonl", o), run(multi, "a2.jsonl", o)}, []compare.Run{run(one, "b1.jsonl", o)})
	// One note, not one card name per group: which runs are ITL, which
	// not and why (the fresh walk read "not ITL" (5 runs) beside "ITL"
	// (1 run) as two notes).
	if !strings.Contains(line, "ITL in a1.jsonl, b1.jsonl (1 token per event)") || !strings.Contains(line, "not ITL in a2.jsonl, where some events carry several tokens") ||
		strings.Contains(line, "Event gaps (") {
		t.Errorf("mixed names: %s", line)
	}
	line = gapLine([]compare.Run{run(one, "a1.jsonl", o)}, []compare.Run{run(one, "b1.jsonl", o)})
	if strings.Contains(line, "a1.jsonl") || strings.Count(line, "Event gaps") != 1 {
		t.Errorf("one name for every run: %s", line)
	}
}
