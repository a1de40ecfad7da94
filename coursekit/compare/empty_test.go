package compare_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/trace"
)

// A run with no attempt in its window (a header-only trace) is refused,
// naming it, on either side and among several runs (the fifth engineer
// walk: it counted as a run of zero throughput and goodput, "worse" with
// an interval excluding 0, while the percentiles left it out).
func TestARunWithoutAttemptsIsRefused(t *testing.T) {
	o := compare.Options{}
	g := failing(40, 4)
	empty := failing(0, 0)
	for _, c := range []struct {
		a, b []compare.Run
	}{
		{[]compare.Run{run(g, "a.jsonl", o)}, []compare.Run{run(empty, "empty.jsonl", o)}},
		{[]compare.Run{run(empty, "empty.jsonl", o)}, []compare.Run{run(g, "b.jsonl", o)}},
		{[]compare.Run{run(g, "a1.jsonl", o), run(empty, "empty.jsonl", o)}, []compare.Run{run(g, "b.jsonl", o)}},
	} {
		_, err := compare.Compare(c.a, c.b, o)
		if !trace.IsBadInput(err) || !strings.Contains(err.Error(), "empty.jsonl") {
			t.Errorf("%d and %d runs: %v; want bad input naming empty.jsonl", len(c.a), len(c.b), err)
		}
	}
}
