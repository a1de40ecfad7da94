package metrics_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

var unitTTFTs = []float64{200, 300, 400, 500, 600, 800, 1200, 2000} // R1–R8, seconds × 1000

func unitSummary(t *testing.T, opts metrics.Options) *metrics.Summary {
	t.Helper()
	s, err := metrics.SummarizeFile("../../data/unit01/trace.jsonl", opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// The unit's worked numbers, at SLO 1 s and 0.5 s side by side.
func TestUnitNumbers(t *testing.T) {
	s := unitSummary(t, metrics.Options{SLOsMS: []float64{1000, 500}})
	if s.Attempts != 10 || s.CompleteSuccess != 8 || s.Failures != 2 || s.InFlight != 0 || s.OutsideWindow != 0 || s.Requests != 10 {
		t.Fatalf("denominators: %+v", s)
	}
	if s.FailureRate.Num != 2 || s.FailureRate.Den != 10 || val(s.FailureRate.Value) != 0.2 {
		t.Errorf("failure rate = %+v, want 2/10", s.FailureRate)
	}
	if s.QualityPassRate.Num != 7 || s.QualityPassRate.Den != 8 || val(s.QualityPassRate.Value) != 0.875 {
		t.Errorf("quality pass rate = %+v, want 7/8", s.QualityPassRate)
	}
	if s.TTFT.N != 8 || val(s.TTFT.P95) != 2000 || val(s.TTFT.P50) != 500 || val(s.TTFT.P90) != 2000 {
		t.Errorf("TTFT = n %d p50 %v p90 %v p95 %v, want n 8, 500, 2000, 2000", s.TTFT.N, val(s.TTFT.P50), val(s.TTFT.P90), val(s.TTFT.P95))
	}
	if s.TTFTMissing != 2 {
		t.Errorf("R9 and R10 have no TTFT: missing = %d", s.TTFTMissing)
	}
	want := []struct {
		slo       float64
		qualified int64
		goodput   float64
		cost      float64
	}{{1000, 5, 0.5, 4}, {500, 4, 0.4, 5}}
	for i, w := range want {
		c := s.Conditions[i]
		if c.SLOTTFTMS != w.slo || c.Qualified != w.qualified || c.GoodputPerS != w.goodput || val(c.CostPer1000) != w.cost {
			t.Errorf("SLO %v ms: qualified %d goodput %v cost %v; want %d, %v, %v", w.slo, c.Qualified, c.GoodputPerS, val(c.CostPer1000), w.qualified, w.goodput, w.cost)
		}
		if c.QualifiedRate.Num != float64(w.qualified) || c.QualifiedRate.Den != 10 {
			t.Errorf("qualified rate must keep the 10 attempts as denominator: %+v", c.QualifiedRate)
		}
		if c.RequestsQualified != w.qualified {
			t.Errorf("request view: %d", c.RequestsQualified)
		}
	}
	// 0.5 s: R6 (0.8 s) leaves; R4 at exactly 0.5 s stays (≤ is inclusive).
	if d := s.Conditions[1].NotQualified; d.TTFTOverSLO != 3 || d.QualityFail != 1 || d.NotComplete != 2 {
		t.Errorf("drops at 0.5 s = %+v", d)
	}
	if val(s.RetryAmplification) != 1 {
		t.Errorf("retry amplification = %v", val(s.RetryAmplification))
	}
}

func TestLinearP95IsNumpys(t *testing.T) {
	s := unitSummary(t, metrics.Options{Method: metrics.Linear})
	// numpy.percentile([0.2,0.3,0.4,0.5,0.6,0.8,1.2,2.0], 95) = 1.72
	if got := val(s.TTFT.P95); math.Abs(got-1720) > 1e-9 {
		t.Errorf("linear P95 = %v, want 1720", got)
	}
	if got := val(s.TTFT.P50); math.Abs(got-550) > 1e-9 {
		t.Errorf("linear P50 = %v, want 550 (numpy), not gonum's LinInterp 500", got)
	}
	if s.PercentileMethod != metrics.Linear || s.TTFT.Method != metrics.Linear {
		t.Error("every percentile carries its method")
	}
}

// The wrong ways the unit warns about, each computed: none gives the card.
func TestWrongWaysGiveOtherNumbers(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Deleting R9 and R10 makes the failure rate 0 — of the successes only.
	kept := *tr
	kept.Attempts = slices.DeleteFunc(slices.Clone(tr.Attempts), func(a trace.Attempt) bool { return a.Outcome != trace.OK })
	if s := metrics.Summarize(&kept, metrics.Options{}); val(s.FailureRate.Value) != 0 || val(s.TTFT.P95) != 2000 {
		t.Errorf("deleting failures: failure rate %v, P95 %v", val(s.FailureRate.Value), val(s.TTFT.P95))
	}
	// Multiplying marginals: 0.8 × 0.875 × (6/8) = 0.525 ≠ 0.5.
	if m := 0.8 * 0.875 * 6 / 8; m == 0.5 {
		t.Error("marginals should not multiply to the joint rate here")
	}
	// < instead of ≤ at 0.5 s loses R4 (TTFT exactly 500 ms): 3 instead of 4.
	strict := 0
	for _, v := range []float64{200, 300, 400, 500, 800} { // quality-pass successes under 1 s
		if v < 500 {
			strict++
		}
	}
	if s := unitSummary(t, metrics.Options{SLOsMS: []float64{500}}); s.Conditions[0].Qualified != 4 || strict != 3 {
		t.Errorf("≤ keeps R4: card %d, strict %d", s.Conditions[0].Qualified, strict)
	}
	// 0 for a missing TTFT puts two fake fast samples into the distribution.
	zeroed := append([]float64{0, 0}, unitTTFTs...)
	d := metrics.NewDist(zeroed, metrics.NearestRank, "ms")
	if val(d.P50) == 500 {
		t.Error("zero-filled TTFTs should move P50")
	}
}

func TestJudgeReasonsInOrder(t *testing.T) {
	tr, _ := trace.ReadFile("../../data/unit01/trace.jsonl")
	var got []string
	for i := range tr.Attempts {
		v := metrics.Judge(&tr.Attempts[i], 1000)
		got = append(got, string(v.Reason))
	}
	want := "qualified qualified qualified qualified quality_fail qualified ttft_over_slo ttft_over_slo not_complete not_complete"
	if strings.Join(got, " ") != want {
		t.Errorf("verdicts:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if v := metrics.Judge(&tr.Attempts[8], 1000); v.TTFTMS != nil {
		t.Error("R9's TTFT is missing, not a number")
	}
}

func TestUnratedIsNotAPass(t *testing.T) {
	h := trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{EndMS: 1000}}
	tr := &trace.Trace{Header: h, Attempts: []trace.Attempt{
		{ID: "a", Request: "a", Outcome: trace.OK, Events: []trace.Event{{TMS: 10, Tokens: 1}}, EndMS: 20, HasEnd: true},
	}}
	s := metrics.Summarize(tr, metrics.Options{})
	if s.UnratedSuccesses != 1 || s.Conditions[0].Qualified != 0 || s.QualityPassRate.Value != nil {
		t.Errorf("unrated: %d, qualified %d, pass rate %v", s.UnratedSuccesses, s.Conditions[0].Qualified, s.QualityPassRate.Value)
	}
}

func TestRequestViewWithRetries(t *testing.T) {
	h := trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{EndMS: 10000}}
	ev := []trace.Event{{TMS: 1300, Tokens: 1}}
	tr := &trace.Trace{Header: h, Attempts: []trace.Attempt{
		{ID: "a1", Request: "q1", StartMS: 0, Outcome: trace.Timeout, EndMS: 1000, HasEnd: true},
		{ID: "a2", Request: "q1", StartMS: 1100, Outcome: trace.OK, Events: ev, EndMS: 1400, HasEnd: true, Quality: trace.Pass},
		{ID: "a3", Request: "q2", StartMS: 20000, Outcome: trace.OK, Events: []trace.Event{{TMS: 20100, Tokens: 1}}, EndMS: 20200, HasEnd: true},
	}}
	s := metrics.Summarize(tr, metrics.Options{})
	if s.Attempts != 2 || s.Requests != 1 || s.OutsideWindow != 1 || val(s.RetryAmplification) != 2 {
		t.Fatalf("attempts %d requests %d outside %d amplification %v", s.Attempts, s.Requests, s.OutsideWindow, val(s.RetryAmplification))
	}
	c := s.Conditions[0]
	if c.Qualified != 1 || c.RequestsQualified != 1 || val(c.QualifiedRate.Value) != 0.5 || val(c.RequestQualifiedRat.Value) != 1 {
		t.Errorf("condition %+v", c)
	}
}

func TestHeaderOnlyGivesZerosAndNulls(t *testing.T) {
	h := trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{EndMS: 10000}}
	s := metrics.Summarize(&trace.Trace{Header: h}, metrics.Options{})
	if s.Attempts != 0 || s.TTFT.P95 != nil || s.FailureRate.Value != nil || s.Conditions[0].CostPer1000 != nil || s.RetryAmplification != nil {
		t.Errorf("empty summary: %+v", s)
	}
}

func TestEmptyPercentileIsMissing(t *testing.T) {
	if _, ok := metrics.Quantile(nil, 0.95, metrics.NearestRank); ok {
		t.Fatal("a percentile of nothing must be missing")
	}
}

// ⌈p·n⌉ in floats gives 8 for p = 0.07, n = 100; the rank is 7.
func TestNearestRankGuardsFloatError(t *testing.T) {
	p, n := 0.07, 100.0
	if math.Ceil(p*n) != 8 {
		t.Fatalf("expected the naive float ceiling to be 8, got %v", math.Ceil(p*n))
	}
	if got := metrics.NearestRankIndex(100, 0.07); got != 6 {
		t.Fatalf("index = %d, want 6 (the 7th smallest)", got)
	}
}

// gonum's stat.Empirical is nearest rank: cross-check on random samples.
func TestNearestRankMatchesGonumEmpirical(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := 1 + r.IntN(300)
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Round(r.ExpFloat64()*1000) / 10
		}
		slices.Sort(x)
		for _, p := range []float64{0.5, 0.9, 0.95, 0.99, 0.25} {
			got, _ := metrics.Quantile(x, p, metrics.NearestRank)
			if want := stat.Quantile(p, stat.Empirical, x, nil); got != want {
				t.Fatalf("n=%d p=%v: nearest-rank %v, gonum Empirical %v", n, p, got, want)
			}
		}
	}
}

func TestParseMethod(t *testing.T) {
	if _, err := metrics.ParseMethod("interpolated"); err == nil {
		t.Fatal("unknown methods are errors")
	}
}

// NewDist selects ranks without sorting; it must agree with sorting.
func TestDistAgreesWithSortedQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 160 {
		n := 1 + r.IntN(3000)
		if i%20 == 0 {
			n = 40000 + r.IntN(90000) // large samples take the radix-selection path
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Round(r.ExpFloat64()*50) / 2 // many ties, like rounded latencies
			if n%7 == 0 {
				x[i] -= 10 // negative values take the sorting path
			}
		}
		sorted := slices.Sorted(slices.Values(x))
		for _, m := range []metrics.Method{metrics.NearestRank, metrics.Linear} {
			d := metrics.NewDist(slices.Clone(x), m, "ms")
			for _, p := range metrics.Levels {
				want, _ := metrics.Quantile(sorted, p, m)
				if got := *d.Percentile(p); got != want {
					t.Fatalf("n=%d %s p=%v: %v, sorted says %v", n, m, p, got, want)
				}
			}
			if *d.Min != sorted[0] || *d.Max != sorted[n-1] || d.N != n {
				t.Fatalf("min/max/n: %v %v %d", *d.Min, *d.Max, d.N)
			}
		}
	}
}
