package loadgen_test

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/sim"
	"github.com/llmperf-course/course/coursekit/trace"
)

// slowAnswers keep many attempts streaming at any moment: 100 tokens of
// 5 ms each, well past any interrupt below.
var slowAnswers = sim.Config{MaxBatch: 256, DecodeStep: 5 * time.Millisecond, DefaultMaxTokens: 100}

// checkInterrupted states what an interrupted run's trace must say,
// whatever the machine's load: every send recorded, the window ending at
// the recorded interrupt, and every attempt unfinished then in flight
// (never a failure).
func checkInterrupted(t *testing.T, res *loadgen.Result, tr *trace.Trace, planned trace.Window) *trace.RunEnd {
	t.Helper()
	re, err := tr.Header.RunEnd()
	if err != nil || re == nil {
		t.Fatalf("header has no run_end: %v\n%s", err, tr.Header.Conditions)
	}
	if re.Reason != trace.RunInterrupted || re.AtMS == nil || re.PlannedWindow != planned || re.PlannedDurationMS != planned.EndMS-planned.StartMS {
		t.Fatalf("run_end %+v, planned %+v", re, planned)
	}
	at := *re.AtMS
	if !res.Interrupted || res.RunEnd.AtMS == nil || *res.RunEnd.AtMS != at || res.Window != tr.Header.Window {
		t.Errorf("result %+v does not match the header", res)
	}
	// The window ends at the interrupt (within ±50 ms, the bound; it
	// is the very same number).
	if math.Abs(tr.Header.Window.EndMS-at) > 50 || tr.Header.Window.EndMS != at {
		t.Errorf("window %+v, interrupted at %g ms", tr.Header.Window, at)
	}
	// Stamps are rounded to the µs, hence the 0.001 ms.
	if at > ms(res.Elapsed)+0.001 {
		t.Errorf("interrupted at %g ms, after the run returned (%s)", at, res.Elapsed)
	}
	inflight := 0
	for _, a := range tr.Attempts {
		switch a.Outcome {
		case trace.OK:
			if a.EndMS > ms(res.Elapsed)+0.001 {
				t.Errorf("%s ended at %g ms, after the run returned", a.ID, a.EndMS)
			}
		case trace.InFlight:
			inflight++
			if a.HasEnd || a.Error == "" {
				t.Errorf("in-flight attempt %+v", a)
			}
		default:
			t.Errorf("attempt %s is %s: an attempt unfinished at the interrupt is in_flight, not a failure (%s)", a.ID, a.Outcome, a.Error)
		}
		if a.StartMS < at && !tr.Header.Window.Contains(a.StartMS) && a.StartMS >= planned.StartMS {
			t.Errorf("%s started at %g ms, before the interrupt, but is outside the window %+v", a.ID, a.StartMS, tr.Header.Window)
		}
	}
	if inflight == 0 {
		t.Errorf("no attempt was in flight at the interrupt (%d attempts): the test proves nothing", len(tr.Attempts))
	}
	s := metrics.Summarize(tr, metrics.Options{})
	if s.Failures != 0 || s.InFlight+s.CompleteSuccess != s.Attempts || s.Attempts+s.OutsideWindow != int64(len(tr.Attempts)) {
		t.Errorf("card: %d attempts, %d ok, %d in flight, %d failures, %d outside", s.Attempts, s.CompleteSuccess, s.InFlight, s.Failures, s.OutsideWindow)
	}
	if math.Abs(s.WindowS-(at-planned.StartMS)/1000) > 1e-9 && at > planned.StartMS {
		t.Errorf("card window %g s, interrupted %g ms into a window starting at %g", s.WindowS, at, planned.StartMS)
	}
	return re
}

// Interrupted at a random moment, with the moment known to the canceller
// (as a signal handler knows it): the window ends exactly there.
func TestInterruptAtARandomMoment(t *testing.T) {
	_, url := startSim(t, slowAnswers)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range 3 {
		after := time.Duration(200+rng.IntN(800)) * time.Millisecond
		warmup := time.Duration(rng.IntN(2)) * 100 * time.Millisecond
		t.Logf("seed %d, run %d: interrupt after %s, warm-up %s", seed, i, after, warmup)
		ctx, cancel := context.WithCancelCause(context.Background())
		var at time.Time
		stop := time.AfterFunc(after, func() { at = time.Now(); cancel(loadgen.Interrupted{At: at}) })
		res, tr, _ := run(t, ctx, loadgen.Config{URL: url, Rate: 100, Warmup: warmup, Duration: 20 * time.Second, Timeout: 30 * time.Second, Seed: uint64(i)})
		stop.Stop()
		re := checkInterrupted(t, res, tr, trace.Window{StartMS: ms(warmup), EndMS: ms(warmup + 20*time.Second)})
		if want := ms(at.Sub(res.Start)); math.Abs(*re.AtMS-want) > 0.002 {
			t.Errorf("interrupt recorded at %g ms, asked at %g ms", *re.AtMS, want)
		}
	}
}

// A plain cancellation (no moment given): the run stamps it when it
// notices, which is after the cancel and before Run returns.
func TestInterruptByPlainCancel(t *testing.T) {
	_, url := startSim(t, slowAnswers)
	after := time.Duration(200+rand.IntN(500)) * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	var before time.Time
	stop := time.AfterFunc(after, func() { before = time.Now(); cancel() })
	res, tr, _ := run(t, ctx, loadgen.Config{URL: url, Rate: 100, Duration: 20 * time.Second, Seed: 3})
	stop.Stop()
	re := checkInterrupted(t, res, tr, trace.Window{StartMS: 0, EndMS: 20000})
	if lo := ms(before.Sub(res.Start)); *re.AtMS < lo {
		t.Errorf("interrupt stamped at %g ms, before the cancel at %g ms", *re.AtMS, lo)
	}
}

// A trace written to something that is not a file (a pipe, a buffer) gets
// the same final header: the attempts are spooled and written after it.
func TestInterruptToABuffer(t *testing.T) {
	_, url := startSim(t, slowAnswers)
	ctx, cancel := context.WithCancel(context.Background())
	stop := time.AfterFunc(300*time.Millisecond, cancel)
	defer stop.Stop()
	var buf bytes.Buffer
	res, err := loadgen.Run(ctx, loadgen.Config{URL: url, Rate: 100, Duration: 20 * time.Second, Seed: 4}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(&buf, "buffer")
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(tr.Attempts)) != res.Sent || res.Sent != res.Recorded {
		t.Fatalf("sent %d, recorded %d, read %d", res.Sent, res.Recorded, len(tr.Attempts))
	}
	checkInterrupted(t, res, tr, trace.Window{StartMS: 0, EndMS: 20000})
}

// A run that ends on schedule says so, and keeps its planned window.
func TestCompletedRunEnd(t *testing.T) {
	_, url := startSim(t, fast)
	res, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Rate: 50, Duration: 300 * time.Millisecond, Seed: 5})
	re, err := tr.Header.RunEnd()
	if err != nil || re == nil || re.Reason != trace.RunCompleted || re.CutShort() || res.Interrupted {
		t.Fatalf("run_end %+v %v", re, err)
	}
	if tr.Header.Window != (trace.Window{StartMS: 0, EndMS: 300}) || re.PlannedWindow != tr.Header.Window {
		t.Errorf("window %+v, planned %+v", tr.Header.Window, re.PlannedWindow)
	}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
