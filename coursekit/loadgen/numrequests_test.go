package loadgen_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/trace"
)

// --num-requests stops the schedule after N requests planned in the window, in
// either loop; the window then ends when the last attempt ended, so every
// rate is over the time the N requests took, not the planned window.
func TestNumRequestsEndsTheRun(t *testing.T) {
	_, url := startSim(t, fast)
	for _, cfg := range []loadgen.Config{
		{URL: url, Model: "m", Rate: 500, Duration: time.Minute, NumRequests: 25, Warmup: 20 * time.Millisecond},
		{URL: url, Model: "m", Concurrency: 4, Duration: time.Minute, NumRequests: 13},
	} {
		res, tr, _ := run(t, context.Background(), cfg)
		// Counted by planned send time: a warm-up request sent late may be
		// stamped inside the window, as without the cap.
		in, warm := 0, 0
		last := 0.0
		for _, a := range tr.Attempts {
			var m struct {
				Sched float64 `json:"scheduled_ms"`
			}
			if err := json.Unmarshal(a.Meta, &m); err != nil {
				t.Fatal(err)
			}
			if m.Sched >= tr.Header.Window.StartMS {
				in++
			} else {
				warm++
			}
			last = max(last, a.EndMS)
		}
		re, err := tr.Header.RunEnd()
		if err != nil || re == nil {
			t.Fatalf("run_end: %v %v", re, err)
		}
		if in != int(cfg.NumRequests) || re.Reason != trace.RunNumRequests || re.NumRequests != cfg.NumRequests {
			t.Errorf("concurrency %d: %d attempts in the window (and %d in warm-up), run_end %+v; want %d, %q",
				cfg.Concurrency, in, warm, re, cfg.NumRequests, trace.RunNumRequests)
		}
		if w := tr.Header.Window; !(w.EndMS >= last && w.EndMS < 60000+w.StartMS) || res.Window != w {
			t.Errorf("window %+v, last attempt ended at %g ms: want the window to end at the drain, inside the planned minute", w, last)
		}
	}
}

// The window still bounds a run that has not reached N: it says so.
func TestNumRequestsBoundedByTheWindow(t *testing.T) {
	_, url := startSim(t, fast)
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Model: "m", Rate: 20, Duration: 200 * time.Millisecond, NumRequests: 1000})
	re, err := tr.Header.RunEnd()
	if err != nil || re == nil || re.Reason != trace.RunCompleted || re.NumRequests != 1000 || re.AtMS != nil {
		t.Fatalf("run_end %+v (%v), want completed with the cap recorded", re, err)
	}
	if len(tr.Attempts) >= 1000 || tr.Header.Window.EndMS != 200 {
		t.Errorf("%d attempts, window %+v", len(tr.Attempts), tr.Header.Window)
	}
}
