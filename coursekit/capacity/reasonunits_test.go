package capacity

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/internal/numfmt"
)

// A step's reason gives attainment and the target in percent, the unit of
// the text's interval and of the Chinese lines (walk 35l: the English
// stderr said "Wilson upper bound 0.785 < target 0.9" beside the text's
// "[21.5%, 78.5%]"), in the Step and in its JSON "reason".
func TestStepReasonInPercent(t *testing.T) {
	c := config(t, newSim(t, simBatch))
	c.SLOTTFTMS = 0.001 // no answer is that fast: nothing qualifies, the step fails
	s, err := c.runStepOnce(context.Background(), 20)
	if err != nil {
		t.Fatal(err)
	}
	if s.Verdict != Fails || s.CIHigh == nil {
		t.Fatalf("step: %s (%s), want fails", s.Verdict, s.Reason)
	}
	want := "Wilson upper bound " + numfmt.PctFixed(*s.CIHigh) + " < target 90%"
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{s.Reason, back.Reason} {
		if !strings.HasPrefix(r, want) || regexp.MustCompile(`\b0\.\d{3}\b`).MatchString(r) {
			t.Errorf("reason %q, want it to start %q, in percent", r, want)
		}
	}
	for v, w := range map[string]string{
		Meets:     "Wilson lower bound 93.6% ≥ target 57%",
		Fails:     "Wilson upper bound 78.5% < target 57%",
		Undecided: "Wilson interval [21.5%, 78.5%] holds the target 57%",
	} {
		lo, hi := 0.215, 0.785
		if v == Meets {
			lo = 0.936
		}
		if got := wilsonReason(v, lo, hi, 0.57); got != w {
			t.Errorf("%s: %q, want %q", v, got, w)
		}
	}
}
