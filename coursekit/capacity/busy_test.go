package capacity

import (
	"cmp"
	"context"
	"math"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/sim"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The busy share of a step is that step's own: on one simulator, a light
// step after nothing and an overloaded step right after the light one (the
// case a trailing-window gauge gets wrong: it still remembers the light
// step) read low and near 1, from the counter's rate over each window.
//
// The counter counts only the simulator's steps; between two steps its
// executor hands the tokens out and refills the batch, and that needs a CPU.
// With 2 ms steps at 300 req/s (3× the saturation of 2 slots), on a shared
// 2-core machine at load average 14 under -race (make test's go test -race
// ./...), the executor waited for one between steps behind the load
// generator's and the server's hundreds of goroutines in this same process:
// the overloaded step read busy 0.707 over 3 reads while its queue held 60
// to 341 requests. The test's simulator now steps every 5 ms (busyStep):
// the same wait is 2.5 times smaller a share, and 3× saturation is 120 req/s,
// 2.5 times fewer goroutines competing with the executor.
const busyStep = 5 * time.Millisecond

func TestStepRecordsBusy(t *testing.T) {
	s := sim.New(sim.Config{MaxBatch: overloadBatch, DecodeStep: busyStep, DefaultMaxTokens: simTokens, Seed: 1})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	c := config(t, ts.URL)
	c.BusyGauge = SimBusyCounter
	c.StepDuration = time.Second
	// Saturation: each slot serves one request per simTokens steps.
	saturationBusy := float64(overloadBatch) / (simTokens * busyStep.Seconds())
	// 5 req/s, each holding a slot for 50 ms: some slot is busy about 22 %
	// of the time (1 − e^−0.25), and under half on a slow machine.
	low, err := c.runStepOnce(context.Background(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if low.BusyMean == nil || low.BusyMax == nil || low.BusyReads < 2 || low.BusyMethod != BusyCounterRate {
		t.Fatalf("5 req/s: busy mean %s max %s over %d reads by %q, want a counter rate from at least 2 reads", fmtp(low.BusyMean), fmtp(low.BusyMax), low.BusyReads, low.BusyMethod)
	}
	// The device is busy only while some attempt is in flight, so the
	// light step's share is at most the share of its reads' span that the
	// client saw an attempt in flight. On an idle machine that is under
	// half; under load the simulator's 5 ms steps overrun and both grow
	// (CI's flake hunt at load average 15, the client 637 ms late: busy
	// 0.540, against a fixed bound of 0.5 then). The 0.1 is the counter's
	// clocks: its rate divides the server's busy seconds by the span
	// between two scrapes on the client's clock (BusyShown).
	inFlight := inFlightShare(t, low)
	if *low.BusyMean > inFlight+0.1 || *low.BusyMax < *low.BusyMean {
		t.Errorf("5 req/s (12.5 %% of saturation): busy mean %.3f, max %.3f; want mean ≤ %.3f (the share of the reads' span with an attempt in flight) + 0.1 and max ≥ mean", *low.BusyMean, *low.BusyMax, inFlight)
	}
	// 3× saturation on the same simulator: the device never rests (the
	// step stops early on overload).
	c.StepDuration, c.StepMaxDuration = 6*time.Second, 6*time.Second
	high, err := c.runStepOnce(context.Background(), 3*saturationBusy)
	if err != nil {
		t.Fatal(err)
	}
	if high.BusyMean == nil || *high.BusyMean < 0.9 || high.BusyReads < 2 {
		t.Errorf("3× saturation: busy mean %s over %d reads, want ≥ 0.9", fmtp(high.BusyMean), high.BusyReads)
	}
	t.Logf("busy: 5 req/s %.3f (max %.3f, %d reads, in flight %.3f); %g req/s %s (%d reads, %s)", *low.BusyMean, *low.BusyMax, low.BusyReads, inFlight, high.Rate, fmtp(high.BusyMean), high.BusyReads, high.Reason)
	for _, s := range []Step{low, high} {
		b, err := os.ReadFile(s.Metrics)
		if err != nil {
			t.Fatalf("step %g: metrics sidecar: %v", s.Rate, err)
		}
		sc, err := parseScrapes(b)
		if err != nil || len(sc) < s.BusyReads {
			t.Errorf("step %g: sidecar %s has %d scrapes (%v), fewer than the %d reads used", s.Rate, s.Metrics, len(sc), err, s.BusyReads)
		}
	}
}

// inFlightShare is the share of the span of step s's busy reads in its
// window during which the client had some attempt in flight (the union of
// the attempts' send-to-end intervals), from its trace and metrics sidecar.
func inFlightShare(t *testing.T, s Step) float64 {
	t.Helper()
	tr, err := trace.ReadFile(s.Trace)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.Metrics)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := parseScrapes(b)
	if err != nil {
		t.Fatal(err)
	}
	w := tr.Header.Window
	from, to := math.Inf(1), math.Inf(-1)
	for _, r := range sc { // the reads busyOver uses
		if at := r.TMS + r.DurMS/2; r.Error == "" && at >= w.StartMS && at <= w.EndMS {
			from, to = min(from, at), max(to, at)
		}
	}
	if !(to > from) {
		t.Fatalf("step %g: fewer than two reads in its window [%g, %g] ms", s.Rate, w.StartMS, w.EndMS)
	}
	type span struct{ a, b float64 }
	var spans []span
	for _, a := range tr.Attempts {
		end := to
		if a.HasEnd {
			end = min(a.EndMS, to)
		}
		if start := max(a.StartMS, from); end > start {
			spans = append(spans, span{start, end})
		}
	}
	slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.a, y.a) })
	covered, reach := 0.0, from
	for _, sp := range spans {
		if sp.b > reach {
			covered += sp.b - max(sp.a, reach)
			reach = sp.b
		}
	}
	return covered / (to - from)
}

func TestBusyAbsentStaysNull(t *testing.T) {
	c := config(t, newSim(t, simBatch))
	c.BusyGauge = "no_such_gauge"
	c.StepDuration = 500 * time.Millisecond
	s, err := c.runStepOnce(context.Background(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if s.BusyMean != nil || s.BusyMax != nil || s.BusyReads != 0 {
		t.Errorf("a gauge the server lacks: mean %s max %s reads %d, want null, null, 0", fmtp(s.BusyMean), fmtp(s.BusyMax), s.BusyReads)
	}
}

// busyOver's arithmetic on made-up scrapes: window bounds, failed
// scrapes, a counter's rate and its highest interval, a gauge's mean and
// max, and a counter that went back.
func TestBusyOver(t *testing.T) {
	at := func(tms float64, vals map[string]float64) loadgen.Scrape {
		return loadgen.Scrape{TMS: tms - 1, DurMS: 2, Values: vals} // read at tms
	}
	sc := []loadgen.Scrape{
		at(0, map[string]float64{"c_total": 0, "g": 0.1}),       // before the window
		at(1000, map[string]float64{"c_total": 0.5, "g": 0.4}),  // window start
		at(1500, map[string]float64{"c_total": 0.75, "g": 0.6}), // 0.5 busy
		{TMS: 1700, Error: "timeout"},
		at(2000, map[string]float64{"c_total": 1.25, "g": 0.8}), // 1.0 busy
		at(3000, map[string]float64{"c_total": 1.5, "g": 0.2}),  // 0.25 busy
		at(3500, map[string]float64{"c_total": 9, "g": 1}),      // after the window
	}
	near := func(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }
	b := busyOver(sc, "c_total", 1000, 3000)
	if !near(b.mean, 0.5) || !near(b.max, 1) || b.reads != 4 || b.method != BusyCounterRate {
		t.Errorf("counter: mean %s max %s reads %d %s; want 0.5 (1 s busy in 2 s), 1, 4, %s", fmtp(b.mean), fmtp(b.max), b.reads, b.method, BusyCounterRate)
	}
	g := busyOver(sc, "g", 1000, 3000)
	if !near(g.mean, 0.5) || !near(g.max, 0.8) || g.reads != 4 || g.method != BusyGaugeMean {
		t.Errorf("gauge: mean %s max %s reads %d %s; want 0.5, 0.8, 4, %s", fmtp(g.mean), fmtp(g.max), g.reads, g.method, BusyGaugeMean)
	}
	if b := busyOver(sc, "c_total", 1000, 1200); b.mean != nil || b.reads != 1 {
		t.Errorf("one counter read: mean %s, reads %d; want null, 1", fmtp(b.mean), b.reads)
	}
	if b := busyOver(sc, "missing", 0, 4000); b.mean != nil || b.max != nil || b.reads != 0 {
		t.Errorf("missing metric: mean %s, reads %d", fmtp(b.mean), b.reads)
	}
	reset := []loadgen.Scrape{at(0, map[string]float64{"c_total": 5}), at(1000, map[string]float64{"c_total": 0.2})}
	if b := busyOver(reset, "c_total", 0, 1000); b.mean != nil {
		t.Errorf("a counter that went back gives %s, want null", fmtp(b.mean))
	}
}

func fmtp(v *float64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64)
}

// A password in --url stays out of every step's trace: the busy sidecar's
// metrics URL, derived from --url, is recorded redacted as bench records
// it (the attacker walk found "u:pw2@" in each step trace's metrics_url).
func TestStepTraceHoldsNoURLPassword(t *testing.T) {
	s := sim.New(sim.Config{MaxBatch: overloadBatch, DecodeStep: busyStep, DefaultMaxTokens: simTokens, Seed: 1})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	c := config(t, strings.Replace(ts.URL, "http://", "http://u:pw2secret@", 1))
	c.BusyGauge = SimBusyCounter
	c.StepDuration, c.StepMaxDuration = time.Second, time.Second
	step, err := c.runStepOnce(context.Background(), 5)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(step.Trace)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "pw2secret") {
		t.Errorf("step trace %s holds the URL password", step.Trace)
	}
	if !strings.Contains(string(raw), `"metrics_url"`) {
		t.Errorf("step trace %s records no metrics_url: the test checks nothing", step.Trace)
	}
}
