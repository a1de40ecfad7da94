package loadgen_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/sim"
)

// --max-concurrency with --rate: arrivals stay open-loop, but never more
// than C attempts overlap, and an arrival that had to wait shows its wait
// as send lag (start_ms − meta.scheduled_ms).
func TestMaxConcurrencyCapsOpenLoop(t *testing.T) {
	slow := sim.Config{MaxBatch: 32, DecodeStep: 5 * time.Millisecond, DefaultMaxTokens: 8}
	_, url := startSim(t, slow)
	const c = 2
	res, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Model: "m", Rate: 200, Arrival: loadgen.Constant, Duration: 300 * time.Millisecond, MaxTokens: 8, MaxConcurrency: c})
	type edge struct {
		t float64
		d int
	}
	var edges []edge
	maxLag := 0.0
	for _, a := range tr.Attempts {
		edges = append(edges, edge{a.StartMS, +1}, edge{a.EndMS, -1})
		var m struct {
			Sched float64 `json:"scheduled_ms"`
		}
		if err := json.Unmarshal(a.Meta, &m); err != nil {
			t.Fatal(err)
		}
		maxLag = max(maxLag, a.StartMS-m.Sched)
	}
	slices.SortFunc(edges, func(x, y edge) int {
		if x.t != y.t {
			if x.t < y.t {
				return -1
			}
			return 1
		}
		return x.d - y.d // an end before a start at the same instant
	})
	in, peak := 0, 0
	for _, e := range edges {
		in += e.d
		peak = max(peak, in)
	}
	t.Logf("attempts %d unsent %d peak %d maxlag %.3f", len(tr.Attempts), res.Unsent, peak, maxLag)
	if peak > c {
		t.Errorf("%d attempts in flight at once, cap %d", peak, c)
	}
	// 60 arrivals at 5 ms for answers of ~40 ms through 2 slots: most wait.
	if maxLag < 20 {
		t.Errorf("largest send lag %.3f ms: the waiting arrivals' lag is not recorded", maxLag)
	}
	if res.Unsent == 0 || int64(len(tr.Attempts))+res.Unsent < 59 {
		t.Errorf("%d sent, %d unsent: want the arrivals left waiting at the window's end counted", len(tr.Attempts), res.Unsent)
	}
}
