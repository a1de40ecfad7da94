package capacity

import (
	"strings"
	"testing"
	"time"
)

// At the longest window, a step that met while its queue grew and the
// overload test could not decide is undecided, with a reason that names
// the window and what would decide it; a step that met with a steady
// queue, or failed, keeps its verdict.
func TestLongestWindowGrowingQueueIsUndecided(t *testing.T) {
	decide := 40.0
	growing := &LoadCheck{InFlightStart: 2, InFlightEnd: 9, GrowthZ: 2.1, Completions: 150, WindowS: 16,
		CompletionPerS: 9.4, CompletionLow: 7.9, CompletionHigh: 11, OfferedPerS: 10, SlopePerS: 0.6,
		GrowingUndecided: true, DecideWindowS: &decide}
	s := Step{Rate: 10, Verdict: Meets, Reason: "meets", Load: growing}
	s.settleAtLongest(16 * time.Second)
	if s.Verdict != Undecided {
		t.Fatalf("verdict %s, want %s", s.Verdict, Undecided)
	}
	for _, want := range []string{"overload undecided at the longest window (--step-max-duration 16s)", "in flight 2 → 9", "a window of about 40.0 s would decide it"} {
		if !strings.Contains(s.Reason, want) {
			t.Errorf("reason %q lacks %q", s.Reason, want)
		}
	}
	for _, keep := range []Step{
		{Rate: 10, Verdict: Meets, Reason: "meets", Load: &LoadCheck{InFlightStart: 3, InFlightEnd: 3}},
		{Rate: 10, Verdict: Meets, Reason: "meets"},
		{Rate: 10, Verdict: Fails, Reason: "overload", Load: growing},
	} {
		before := keep
		keep.settleAtLongest(16 * time.Second)
		if keep.Verdict != before.Verdict || keep.Reason != before.Reason {
			t.Errorf("%+v became %s (%s)", before, keep.Verdict, keep.Reason)
		}
	}
}
