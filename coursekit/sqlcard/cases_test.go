package sqlcard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/tracegen"
)

// sqlCase is one trace the SQL card must compute exactly as the Go card does.
type sqlCase struct {
	name string
	slos []float64
	cost *float64 // --window-cost
	// lat are the SLOs beyond TTFT (--slo-e2e); judged says the header
	// asked for a judge (conditions.dataset).
	lat    metrics.LatencySLO
	judged bool
	// parts > 1 exports the trace as that many Parquet files of one header.
	parts int
	write func(t *testing.T, path string)
}

func ptr(v float64) *float64 { return &v }

// writeTrace writes a trace of header h and attempts as through the trace writer.
func writeTrace(t *testing.T, path string, h trace.Header, atts []trace.Attempt) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := trace.NewWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range atts {
		if err := w.Write(&atts[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

func header(cost *float64) trace.Header {
	return trace.Header{Clock: "client", Window: trace.Window{StartMS: 1000, EndMS: 11000}, WindowCost: cost, Currency: "CNY"}
}

func ok(id, req string, start float64, q trace.Quality, ts ...float64) trace.Attempt {
	a := trace.Attempt{ID: id, Request: req, StartMS: start, Outcome: trace.OK, Quality: q, HasEnd: true}
	for _, v := range ts {
		a.Events = append(a.Events, trace.Event{TMS: v, Tokens: 1})
	}
	a.EndMS = ts[len(ts)-1] + 0.25
	return a
}

func failed(id, req string, start float64, o trace.Outcome) trace.Attempt {
	return trace.Attempt{ID: id, Request: req, StartMS: start, Outcome: o, HasEnd: true, EndMS: start + 3000, Error: "e"}
}

// randomAttempts draws n attempts with every outcome, retries, quality
// labels and times on a coarse grid, so ties at the percentile ranks are common.
func randomAttempts(seed uint64, n int) []trace.Attempt {
	r := rand.New(rand.NewPCG(seed, 25))
	outcomes := trace.Outcomes
	var atts []trace.Attempt
	for i := range n {
		req := fmt.Sprintf("r%d", i)
		if i > 0 && r.IntN(5) == 0 {
			req = atts[r.IntN(len(atts))].Request // a retry
		}
		start := float64(r.IntN(12000)) + float64(r.IntN(4))*0.1 // some before and after the window
		a := trace.Attempt{ID: fmt.Sprintf("a%d", i), Request: req, StartMS: start}
		a.Outcome = outcomes[r.IntN(len(outcomes))]
		if r.IntN(2) == 0 {
			a.Outcome = trace.OK
		}
		ne := r.IntN(6)
		if a.Outcome == trace.OK && ne == 0 {
			ne = 1
		}
		if a.Outcome == trace.ConnectError {
			ne = 0
		}
		t := start
		for range ne {
			t += float64(r.IntN(40)) * 12.5
			a.Events = append(a.Events, trace.Event{TMS: t, Tokens: 1 + r.IntN(3)})
		}
		if a.Outcome != trace.InFlight {
			a.HasEnd, a.EndMS = true, t+float64(r.IntN(3))
		}
		if a.Outcome == trace.OK {
			a.Quality = trace.Quality(r.IntN(3))
		}
		atts = append(atts, a)
	}
	return atts
}

var sqlCases = []sqlCase{
	{name: "mixed", slos: []float64{1000, 500, 137.5}, write: func(t *testing.T, p string) {
		writeTrace(t, p, header(ptr(12.5)), []trace.Attempt{
			ok("a1", "r1", 1000, trace.Pass, 1137.5, 1150, 1162.5),
			ok("a2", "r2", 2000.1, trace.Fail, 2400.2, 2400.3),
			failed("a3", "r3", 3000, trace.Timeout),
			failed("a4", "r3", 6000, trace.HTTPError), // a retry that failed again
			ok("a5", "r3", 9000.7, trace.Pass, 9600.7),
			{ID: "a6", Request: "r6", StartMS: 10999.9, Outcome: trace.InFlight, Events: []trace.Event{{TMS: 11000.5, Tokens: 2}}},
			ok("a7", "r7", 11000, trace.Pass, 11001), // starts at the window's end: outside
			ok("a8", "r8", 999.9, trace.Pass, 1000),  // before the window: outside
			ok("a9", "r9", 4000, trace.Unrated, 4100, 4300),
			failed("a10", "r10", 5000, trace.StreamError),
		})
	}},
	{name: "empty-window", write: func(t *testing.T, p string) {
		writeTrace(t, p, header(ptr(3)), []trace.Attempt{ok("a1", "r1", 20000, trace.Pass, 20100)})
	}},
	{name: "no-attempts", write: func(t *testing.T, p string) {
		writeTrace(t, p, header(nil), nil)
	}},
	{name: "failures-only", cost: ptr(7), write: func(t *testing.T, p string) {
		writeTrace(t, p, header(nil), []trace.Attempt{
			failed("a1", "r1", 1000, trace.Timeout), failed("a2", "r1", 4000, trace.ConnectError),
			failed("a3", "r3", 5000, trace.Cancelled),
		})
	}},
	{name: "one-success", slos: []float64{100, 99.99}, write: func(t *testing.T, p string) {
		writeTrace(t, p, header(ptr(1)), []trace.Attempt{ok("a1", "r1", 1234.5, trace.Pass, 1334.5)})
	}},
	{name: "ties-at-rank", slos: []float64{300, 200}, write: func(t *testing.T, p string) {
		// 20 successes: ⌈0.95·20⌉ = 19 exactly, with the 18th to 20th TTFT tied and the 19th, 20th differing.
		var atts []trace.Attempt
		for i := range 20 {
			ttft := 100.0
			switch {
			case i >= 10 && i < 19:
				ttft = 200
			case i == 19:
				ttft = 300
			}
			start := 1000 + float64(i)*100
			atts = append(atts, ok(fmt.Sprintf("a%d", i), fmt.Sprintf("r%d", i), start, trace.Pass, start+ttft, start+ttft+50, start+ttft+100))
		}
		writeTrace(t, p, header(ptr(2)), atts)
	}},
	{name: "ten-distinct", slos: []float64{50}, write: func(t *testing.T, p string) {
		// TTFTs 10, 20, ..., 100: the P95 is the 10th (⌈9.5⌉), the P50 the 5th;
		// floor((n-1)·p) and interpolating quantiles give other values.
		var atts []trace.Attempt
		for i := range 10 {
			start := 1000 + float64(i)*700
			atts = append(atts, ok(fmt.Sprintf("a%d", i), fmt.Sprintf("r%d", i), start, trace.Pass, start+float64(10*(i+1))))
		}
		writeTrace(t, p, header(ptr(5)), atts)
	}},
	{name: "random-1", slos: []float64{1000, 250}, cost: ptr(99.5), write: func(t *testing.T, p string) {
		writeTrace(t, p, header(nil), randomAttempts(1, 3000))
	}},
	{name: "random-2-parts", parts: 3, slos: []float64{500}, write: func(t *testing.T, p string) {
		writeTrace(t, p, header(ptr(0)), randomAttempts(2, 5000))
	}},
	// The card's quality rule: with a latency SLO and no judge a complete
	// success qualifies on latency alone; with a judge asked for, or with a
	// TTFT SLO alone, an unrated trace's qualified count is unknown (NULL).
	{name: "unrated-e2e", slos: []float64{1000, 150}, lat: metrics.LatencySLO{E2EMS: 300}, write: unratedTrace},
	{name: "unrated-ttft", slos: []float64{1000}, write: unratedTrace},
	{name: "judged-unrated-e2e", slos: []float64{1000}, lat: metrics.LatencySLO{E2EMS: 300}, judged: true, write: unratedTrace},
	{name: "mixed-e2e", slos: []float64{1000, 500}, lat: metrics.LatencySLO{E2EMS: 500}, write: func(t *testing.T, p string) {
		writeTrace(t, p, header(ptr(2)), []trace.Attempt{
			ok("a1", "r1", 1000, trace.Pass, 1100, 1200),
			ok("a2", "r2", 2000, trace.Fail, 2100),
			ok("a3", "r3", 3000, trace.Unrated, 3100),    // rated attempts exist: unrated does not qualify
			ok("a4", "r4", 4000, trace.Pass, 4100, 4700), // E2E over
			ok("a5", "r5", 5000, trace.Pass, 5600),       // TTFT over 500
			failed("a6", "r6", 6000, trace.Timeout),
		})
	}},
	{name: "random-e2e", slos: []float64{1000, 250}, lat: metrics.LatencySLO{E2EMS: 1500}, write: func(t *testing.T, p string) {
		writeTrace(t, p, header(nil), randomAttempts(3, 3000))
	}},
	{name: "tracegen", slos: []float64{1000, 500}, write: func(t *testing.T, p string) {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := tracegen.Generate(f, tracegen.Config{Seed: 42, Requests: 40000, RatePerS: 200, TimeoutMS: 3000}); err != nil {
			t.Fatal(err)
		}
	}},
}

// caseFile writes c's trace into dir.
func caseFile(t *testing.T, dir string, c sqlCase) string {
	p := filepath.Join(dir, c.name+".jsonl")
	c.write(t, p)
	return p
}

// same reports whether two optional card values are identical, bit for bit.
func same(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Float64bits(*a) == math.Float64bits(*b) || (*a == 0 && *b == 0)
}

// unratedTrace is the trace of a run without a judge: every success unrated.
func unratedTrace(t *testing.T, p string) {
	writeTrace(t, p, header(ptr(4)), []trace.Attempt{
		ok("a1", "r1", 1000, trace.Unrated, 1100, 1200),
		ok("a2", "r2", 2000, trace.Unrated, 2100, 2500), // E2E over 300
		ok("a3", "r3", 3000, trace.Unrated, 3200),       // TTFT over 150
		failed("a4", "r4", 4000, trace.ConnectError),
	})
}
