package cardfmt_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// A count of 1 reads right in English: the walk saw the card's client-lag
// note say "during 1 attempts", and capacity's step note likewise.
func TestClientLagCountOfOne(t *testing.T) {
	s := &metrics.Summary{ClientLag: &metrics.ClientLag{Attempts: 1, OverBound: 1, BoundMS: 5, MaxMS: 11.7}}
	for l, want := range map[lang.Lang][]string{
		lang.EN: {"during 1 attempt (", "1 attempt records it"},
		lang.ZH: {"在 1 次尝试期间", "1 次记录了它"},
	} {
		got := cardfmt.ClientLagNoteIn(l, s)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%v: %q does not say %q", l, got, w)
			}
		}
		if strings.Contains(got, "1 attempts") {
			t.Errorf("%v: %q", l, got)
		}
	}
	s.ClientLag.Attempts, s.ClientLag.OverBound = 40, 5
	if got := cardfmt.ClientLagNoteIn(lang.EN, s); !strings.Contains(got, "during 5 attempts (") || !strings.Contains(got, "40 attempts record it") {
		t.Errorf("5 of 40: %q", got)
	}
	step := capacity.Step{ClientLag: &metrics.ClientLag{Attempts: 3, OverBound: 1, BoundMS: 5, MaxMS: 9}}
	if got := cardfmt.CapacityLatenessIn(lang.EN, step); !strings.Contains(got, "in 1 attempt (") {
		t.Errorf("capacity step: %q", got)
	}
}

// Over several runs, each late during one attempt: "during 1 attempt per
// run", not "1 attempts".
func TestClientLagRunsCountOfOne(t *testing.T) {
	one := &metrics.ClientLag{Attempts: 9, OverBound: 1, BoundMS: 5, MaxMS: 7}
	if got := cardfmt.ClientLagRunsNoteIn(lang.EN, []*metrics.ClientLag{one, one}, "a, b"); !strings.Contains(got, "during 1 attempt per run") {
		t.Errorf("%q", got)
	}
	two := &metrics.ClientLag{Attempts: 9, OverBound: 3, BoundMS: 5, MaxMS: 7}
	if got := cardfmt.ClientLagRunsNoteIn(lang.EN, []*metrics.ClientLag{one, two}, "a, b"); !strings.Contains(got, "during 1–3 attempts per run") {
		t.Errorf("%q", got)
	}
	if got := cardfmt.ClientLagRunsNoteIn(lang.ZH, []*metrics.ClientLag{one, two}, "a, b"); !strings.Contains(got, "每次运行 1–3 次尝试期间") {
		t.Errorf("%q", got)
	}
}
