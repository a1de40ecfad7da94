package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// The unit's trace has 8 complete successes: 0.95⁸ ≈ 0.66 > 0.025, so no
// order statistic bounds its P95 from above, and 72 samples would.
func TestUnitTraceP95HasNoUpperBound(t *testing.T) {
	s, err := SummarizeFile(filepath.Join("..", "..", "data", "unit01", "trace.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.TTFT.N != 8 || s.TTFT.CI95 == nil {
		t.Fatalf("TTFT n=%d ci=%v, want 8 successes with an interval", s.TTFT.N, s.TTFT.CI95)
	}
	p95 := s.TTFT.CI95.P95
	if p95.High != nil || p95.NeedNHigh != 72 || p95.Method != OrderStatistic {
		t.Errorf("P95 interval %+v: want no upper bound, need n ≥ 72, method %s", p95, OrderStatistic)
	}
	// The lower bound exists: (0.05)⁸ is tiny. It is an observed value ≤ P95.
	if p95.Low == nil || *p95.Low > *s.TTFT.P95 {
		t.Errorf("P95 lower bound %v, want an observed value ≤ P95 %v", p95.Low, *s.TTFT.P95)
	}
	// The ratios over attempts carry Wilson intervals around their value.
	for name, r := range map[string]Ratio{"failure": s.FailureRate, "qualified": s.Conditions[0].QualifiedRate} {
		if r.CI95 == nil || r.CI95.Method != Wilson || r.CI95.Low == nil || !(*r.CI95.Low <= *r.Value && *r.Value <= *r.CI95.High) {
			t.Errorf("%s rate %v: Wilson interval %+v does not hold the value", name, r.Value, r.CI95)
		}
	}
	if s.Conditions[0].Goodput.CI95 != nil {
		t.Error("goodput is a rate over time: it has no Wilson interval")
	}
}

func TestNeedN(t *testing.T) {
	for _, c := range []struct {
		p, conf float64
		upper   bool
		want    int
	}{
		{0.95, 0.95, true, 72}, // two-sided, each tail 2.5 %
		{0.95, 0.90, true, 59}, // one-sided 95 % is a 5 % tail
		{0.50, 0.95, true, 6},
		{0.50, 0.95, false, 6},
		{0.99, 0.95, true, 368},
		{0.95, 0.95, false, 2}, // 0.05² = 0.0025
	} {
		if got := NeedN(c.p, c.conf, c.upper); got != c.want {
			t.Errorf("NeedN(%g, %g, upper=%v) = %d, want %d", c.p, c.conf, c.upper, got, c.want)
		}
		a := (1 - c.conf) / 2
		q := c.p
		if !c.upper {
			q = 1 - c.p
		}
		if math.Pow(q, float64(c.want)) > a || math.Pow(q, float64(c.want-1)) <= a {
			t.Errorf("table row %+v is not the smallest n", c)
		}
	}
}

// binomTail sums the Binomial(n, p) pmf over [from, to] by recurrence in
// log space: an independent check of the library's incomplete beta.
func binomTail(n int, p float64, from, to int) float64 {
	s := 0.0
	for k := from; k <= to; k++ {
		lg1, _ := math.Lgamma(float64(n + 1))
		lg2, _ := math.Lgamma(float64(k + 1))
		lg3, _ := math.Lgamma(float64(n - k + 1))
		s += math.Exp(lg1 - lg2 - lg3 + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
	}
	return s
}

// The ranks are the tightest with each tail ≤ 2.5 %: one step inward breaks it.
func TestQuantileRanksAreTightest(t *testing.T) {
	const a, eps = 0.025, 1e-9
	for _, p := range Levels {
		for n := 1; n <= 400; n++ {
			l, u := QuantileRanks(n, p, Confidence)
			if l > 0 {
				if binomTail(n, p, 0, l-1) > a+eps || (l < n && binomTail(n, p, 0, l) <= a-eps) {
					t.Fatalf("n=%d p=%g: lower rank %d is not the largest with P(B ≤ l−1) ≤ 2.5%%", n, p, l)
				}
			} else if binomTail(n, p, 0, 0) <= a-eps {
				t.Fatalf("n=%d p=%g: a lower bound exists but none was given", n, p)
			}
			if u > 0 {
				if binomTail(n, p, u, n) > a+eps || (u > 1 && binomTail(n, p, u-1, n) <= a-eps) {
					t.Fatalf("n=%d p=%g: upper rank %d is not the smallest with P(B ≥ u) ≤ 2.5%%", n, p, u)
				}
			} else if (n < NeedN(p, Confidence, true)) != true {
				t.Fatalf("n=%d p=%g: no upper bound although n ≥ NeedN", n, p)
			}
			if l > 0 && u > 0 && l > u {
				t.Fatalf("n=%d p=%g: ranks %d > %d", n, p, l, u)
			}
		}
	}
}

// The note's figures: every attempt qualifying needs n ≥ 35 for a lower
// bound ≥ 0.9, and 39 of 40 gives 0.871.
func TestWilsonExactValues(t *testing.T) {
	if lo, _, _ := WilsonBounds(35, 35); lo < 0.9 {
		t.Errorf("35/35: low %v, want ≥ 0.9", lo)
	}
	if lo, _, _ := WilsonBounds(34, 34); lo >= 0.9 {
		t.Errorf("34/34: low %v, want < 0.9", lo)
	}
	if lo, hi, _ := WilsonBounds(39, 40); math.Round(lo*1000) != 871 || hi > 1 || hi < 39.0/40 {
		t.Errorf("39/40: [%v, %v], want low 0.871", lo, hi)
	}
	// 5 of 10 (the unit trace at 1 s): symmetric about 0.5.
	lo, hi, _ := WilsonBounds(5, 10)
	if math.Abs(lo+hi-1) > 1e-12 || math.Round(lo*10000) != 2366 {
		t.Errorf("5/10: [%v, %v], want [0.2366, 0.7634]", lo, hi)
	}
	if lo, hi, _ := WilsonBounds(0, 20); lo != 0 || hi <= 0 {
		t.Errorf("0/20: [%v, %v]", lo, hi)
	}
	if _, _, ok := WilsonBounds(0, 0); ok {
		t.Error("0/0 has no interval")
	}
	if iv := WilsonCI(0, 0); iv.Low != nil || iv.High != nil {
		t.Error("0/0: both sides must be null")
	}
}

// Coverage: over many seeded traces drawn from a known distribution, the
// interval of each level holds the true quantile at close to its exact
// binomial coverage, which is at least the stated 95 %. The traces go
// through the card's own path (Summarize), failures included.
func TestQuantileCICoverage(t *testing.T) {
	const (
		resamples = 1500
		n         = 800
		meanMS    = 300.0
	)
	rng := rand.New(rand.NewPCG(21, 1))
	hits := map[float64]int{}
	for r := range resamples {
		tr := &trace.Trace{Header: trace.Header{Trace: "1", Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1e9}}}
		for i := range n + n/10 {
			a := trace.Attempt{ID: fmt.Sprint(i), Request: fmt.Sprint(i), StartMS: float64(i), HasEnd: true, Outcome: trace.OK}
			if i%11 == 10 { // a failure: in the denominators, never in the sample
				a.Outcome, a.EndMS = trace.Timeout, a.StartMS+1e4
			} else {
				ttft := rng.ExpFloat64() * meanMS
				a.Events = []trace.Event{{TMS: a.StartMS + ttft, Tokens: 1}}
				a.EndMS = a.StartMS + ttft + 1
			}
			tr.Attempts = append(tr.Attempts, a)
		}
		s := Summarize(tr, Options{})
		if s.TTFT.N != n {
			t.Fatalf("resample %d: %d successes, want %d", r, s.TTFT.N, n)
		}
		for _, p := range Levels {
			truth := -math.Log(1-p) * meanMS
			iv := s.TTFT.CI95.Level(p)
			if iv.Low != nil && iv.High != nil && *iv.Low <= truth && truth <= *iv.High {
				hits[p]++
			}
		}
	}
	for _, p := range Levels {
		exact := QuantileCoverage(n, p, Confidence)
		got := float64(hits[p]) / resamples
		se := math.Sqrt(exact * (1 - exact) / resamples)
		if exact < Confidence || exact > Confidence+0.02 {
			t.Errorf("P%g: exact coverage %.4f, want in [0.95, 0.97]", p*100, exact)
		}
		if math.Abs(got-exact) > 4*se {
			t.Errorf("P%g: covered %d of %d = %.4f, exact %.4f ± %.4f (4 s.e.)", p*100, hits[p], resamples, got, exact, 4*se)
		}
	}
}

// Above smallSample the card selects ranks by radix counting, not sorting:
// the intervals must be the same order statistics.
func TestQuantileCILargeSampleMatchesSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	x := make([]float64, smallSample*2+3)
	for i := range x {
		x[i] = math.Round(rng.ExpFloat64()*1e6) / 1e3
	}
	d := NewDist(x, NearestRank, "ms")
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	for _, p := range Levels {
		want := QuantileCI(sorted, p)
		got := d.CI95.Level(p)
		if *got.Low != *want.Low || *got.High != *want.High || got.LowRank != want.LowRank {
			t.Errorf("P%g: radix [%v, %v], sorted [%v, %v]", p*100, *got.Low, *got.High, *want.Low, *want.High)
		}
		if !(*got.Low <= *d.Percentile(p) && *d.Percentile(p) <= *got.High) {
			t.Errorf("P%g %v outside its interval [%v, %v]", p*100, *d.Percentile(p), *got.Low, *got.High)
		}
	}
}
