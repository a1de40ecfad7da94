package compare_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llmperf-course/course/coursekit/compare"
)

// welchOf is Welch's 95 % t interval of mean(b) − mean(a), computed here
// from the values themselves.
func welchOf(a, b []float64) (lo, hi float64) {
	va, vb := stat.Variance(a, nil)/float64(len(a)), stat.Variance(b, nil)/float64(len(b))
	se := math.Sqrt(va + vb)
	df := (va + vb) * (va + vb) / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	d := stat.Mean(b, nil) - stat.Mean(a, nil)
	return d - q*se, d + q*se
}

func values(t *testing.T, vs []*float64) []float64 {
	t.Helper()
	out := make([]float64, len(vs))
	for i, v := range vs {
		if v == nil {
			t.Fatal("a run has no value")
		}
		out[i] = *v
	}
	return out
}

// The fresh walk's 3 against 3 runs: TTFT medians of A 3141 · 1865 · 2032
// ms and B 1172 · 1214 · 1029 ms read [−1924, −523] ms better by the
// hierarchical bootstrap alone, while Welch's t over the six medians gives
// about [−2904, +490]: benchstat would not call it. With several runs on
// both sides every interval holds Welch's over the runs' own values, the
// method names both, and the verdict reads the hull.
func TestSeveralRunsHoldWelchOverRuns(t *testing.T) {
	o := compare.Options{Resamples: 500}
	side := func(seed uint64, medians ...float64) []compare.Run {
		var out []compare.Run
		for i, m := range medians {
			out = append(out, run(synth(load{n: 60, windowS: 20, fail: 0.05, ttftMS: m, tokens: 8}, seed+uint64(i)), "r", o))
		}
		return out
	}
	r, err := compare.Compare(side(1, 3141, 1865, 2032), side(11, 1172, 1214, 1029), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Metrics {
		if m.Verdict == compare.NA {
			continue
		}
		// P99 of about 57 successes a run is each run's maximum: Welch's
		// t over run maxima is no interval of a percentile, and is left out.
		if m.AtRunMax != nil {
			if strings.Contains(m.Method, compare.MethodWelchRuns) {
				t.Errorf("%s at each run's maximum (n %v): method %s holds Welch's", m.Name, *m.AtRunMax, m.Method)
			}
			continue
		}
		if !strings.HasSuffix(m.Method, compare.MethodWelchRuns) {
			t.Errorf("%s: method %s, want the hull with %s", m.Name, m.Method, compare.MethodWelchRuns)
			continue
		}
		lo, hi := welchOf(values(t, m.ARuns), values(t, m.BRuns))
		// Only a share difference is clipped, to [−1, 1].
		if m.Unit == "share" {
			lo, hi = max(lo, -1), min(hi, 1)
		}
		if !m.CI95.Contains(lo+1e-9*math.Abs(lo)) || !m.CI95.Contains(hi-1e-9*math.Abs(hi)) {
			t.Errorf("%s: interval %v–%v does not hold Welch's [%v, %v]", m.Name, m.CI95.Low, m.CI95.High, lo, hi)
		}
	}
	m := metric(t, r, "ttft_ms.p50")
	if m.Method != compare.MethodHierarchicalWelch || m.Verdict != compare.Same {
		t.Errorf("ttft_ms.p50 over runs %v against %v: %s by %s, want ~ by %s", values(t, m.ARuns), values(t, m.BRuns), m.Verdict, m.Method, compare.MethodHierarchicalWelch)
	}
	if m := metric(t, r, "failure_rate"); m.Method != compare.MethodHierarchicalNewcombeWelch {
		t.Errorf("failure_rate: method %s, want %s", m.Method, compare.MethodHierarchicalNewcombeWelch)
	}
	if m := metric(t, r, "throughput.output_tokens_per_s"); m.Method != compare.MethodWelchRuns {
		t.Errorf("tokens/s: method %s, want %s", m.Method, compare.MethodWelchRuns)
	}
}

// A/A coverage with between-run variance: 200 seeded pairs of 3 runs a
// side, each run with its own level shift (its TTFTs ×e^(0.3·Z), its
// arrivals ×e^(0.2·Z), its failure share ×e^(0.3·Z), as a machine's load
// shifts one run against another). Every interval holds 0, the true
// difference, in at least 0.95 − 0.046 of the pairs: 0.046 is three
// binomial standard errors of a share over 200 pairs
// (3·√(0.95·0.05/200)), the test's own sampling error.
func TestCoverageWithRunShifts(t *testing.T) {
	const pairs, runs = 200, 3
	tol := 3 * math.Sqrt(0.95*0.05/pairs)
	o := compare.Options{TTFT: []float64{0.5, 0.95}, E2E: []float64{0.95}, ITL: []float64{0.5}, Resamples: 300}
	covered := coverageDrawn(t, pairs, runs, func(s uint64) load {
		r := rand.New(rand.NewPCG(s, 99))
		return load{n: int(100 * math.Exp(0.2*r.NormFloat64())), windowS: 20, fail: 0.1 * math.Exp(0.3*r.NormFloat64()),
			ttftMS: 200, tokens: 20, open: true, shift: math.Exp(0.3 * r.NormFloat64())}
	}, o)
	if len(covered) < 8 {
		t.Fatalf("coverage of %d metrics: %v", len(covered), covered)
	}
	for name, got := range covered {
		t.Logf("%s covers 0 in %.3f of %d A/A pairs (3 runs a side, shifted)", name, got, pairs)
		if got < 0.95-tol {
			t.Errorf("%s covers 0 in %.3f of %d A/A pairs, want ≥ %.3f", name, got, pairs, 0.95-tol)
		}
	}
}
