package capacity

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// A step interrupted in its warm-up (Ctrl-C just as it began) measured
// nothing: its trace's window is a one-microsecond placeholder, and the
// overload test divided by it printed a completion interval of
// [0.00, 3688879.46]/s. It has no load figures and no busy share (null in
// the JSON), a window of 0 and a reason that says so.
func TestStepInterruptedBeforeItsWindowMeasuredNothing(t *testing.T) {
	c := config(t, newSim(t, simBatch))
	c.Warmup = 2 * time.Second
	c.BusyGauge = SimBusyCounter
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.Bench.Progress = func(p loadgen.Progress) {
		if p.Phase == "warmup" {
			cancel()
		}
	}
	s, err := c.runStepOnce(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	if s.Verdict != Interrupted || !s.BeforeWindow || !strings.Contains(s.Reason, "before this step's window began") {
		t.Fatalf("step interrupted in its warm-up: verdict %s, before window %v, reason %q", s.Verdict, s.BeforeWindow, s.Reason)
	}
	if s.Load != nil || s.WindowS != 0 || s.BusyMean != nil {
		t.Errorf("a step that measured nothing: load %+v, window %g s, busy %v", s.Load, s.WindowS, s.BusyMean)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"load":null`) || !strings.Contains(string(b), `"interrupted_before_window":true`) {
		t.Errorf("JSON: %s", b)
	}
}
