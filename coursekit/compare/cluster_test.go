package compare_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/trace"
)

// correlatedGaps is a run of 60 attempts whose event gaps are correlated
// within an attempt, as a real engine's are (an attempt's gaps share its
// batch and its server state): each attempt draws its own typical gap
// (8–14 ms), and its 40 gaps scatter a little around it.
func correlatedGaps(seed uint64) *trace.Trace {
	r := rand.New(rand.NewPCG(seed, 11))
	t := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 30000}}}
	for i := range 60 {
		start := float64(i) * 500
		a := trace.Attempt{ID: fmt.Sprint("a", i), StartMS: start, Outcome: trace.OK, Quality: trace.Pass}
		base := 8 + 6*r.Float64()
		at := start + 100*math.Exp(0.3*r.NormFloat64())
		for range 40 {
			a.Events = append(a.Events, trace.Event{TMS: at, Tokens: 1})
			at += base * math.Exp(0.05*r.NormFloat64())
		}
		a.EndMS, a.HasEnd = at, true
		t.Attempts = append(t.Attempts, a)
	}
	return t
}

// An A/A comparison of two runs drawn from one distribution, whose gaps
// are correlated within each attempt, finds no difference in the event
// gaps at least 90 % of the time: the bootstrap redraws attempts, not
// gaps one by one (which would treat 2,340 correlated gaps as independent
// and call most A/A pairs better or worse).
func TestEventGapsResampledByAttempt(t *testing.T) {
	o := compare.Options{Resamples: 1000}
	const pairs = 200
	same := map[string]int{}
	for k := range pairs {
		a, b := correlatedGaps(uint64(2*k+1)), correlatedGaps(uint64(2*k+2))
		res, err := compare.Compare([]compare.Run{run(a, "a", o)}, []compare.Run{run(b, "b", o)}, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"itl_ms.p50", "itl_ms.p95"} {
			if m := metric(t, res, name); m.Verdict == compare.Same {
				same[name]++
			}
		}
	}
	for _, name := range []string{"itl_ms.p50", "itl_ms.p95"} {
		t.Logf("%s: ~ in %d of %d A/A pairs", name, same[name], pairs)
		if same[name] < pairs*9/10 {
			t.Errorf("%s: ~ in %d of %d A/A pairs, want at least 90 %%", name, same[name], pairs)
		}
	}
}
