package compare_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"math/rand/v2"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// closedRun is a closed-loop run of 14 attempts over 10 s whose output
// tokens add up to rate·10: a run's tokens per second is rate.
func closedRun(rate float64) *trace.Trace {
	t := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000},
		Conditions: []byte(`{"loop":"closed","concurrency":1}`)}}
	total := int(math.Round(rate * 10))
	for i := range 14 {
		k := total / 14
		if i < total%14 {
			k++
		}
		start := float64(i) * 700
		a := trace.Attempt{ID: fmt.Sprint("a", i), StartMS: start, EndMS: start + 600, HasEnd: true, Outcome: trace.OK, Quality: trace.Pass}
		for j := range k {
			a.Events = append(a.Events, trace.Event{TMS: start + 100 + float64(j)*500/float64(k), Tokens: 1})
		}
		t.Attempts = append(t.Attempts, a)
	}
	return t
}

// With several runs a side, a rate over the window (tokens/s, goodput) is
// compared over the runs' own rates, the runs being the independent units
// (Welch's t): the fifth engineer walk's runs, A 41.6, 39.1, 35.2 token/s
// against B 23.7, 26.7, 24.4, got [−30.2, +2.2] ~ when each attempt was
// redrawn a Poisson number of times (an open loop's variance, for a closed
// loop of ~14 attempts a run); the runs' own spread says B is worse.
func TestRatesOverSeveralRunsUseTheRuns(t *testing.T) {
	o := compare.Options{}
	side := func(rates ...float64) []compare.Run {
		var out []compare.Run
		for i, r := range rates {
			out = append(out, run(closedRun(r), fmt.Sprint("run", i, "-", r), o))
		}
		return out
	}
	ra, rb := []float64{41.6, 39.1, 35.2}, []float64{23.7, 26.7, 24.4}
	r, err := compare.Compare(side(ra...), side(rb...), o)
	if err != nil {
		t.Fatal(err)
	}
	m := metric(t, r, "throughput.output_tokens_per_s")
	// Welch's interval, computed here from the rates themselves.
	va, vb := stat.Variance(ra, nil)/3, stat.Variance(rb, nil)/3
	se := math.Sqrt(va + vb)
	df := (va + vb) * (va + vb) / (va*va/2 + vb*vb/2)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	d := stat.Mean(rb, nil) - stat.Mean(ra, nil)
	if m.Method != compare.MethodWelchRuns || m.Verdict != compare.Worse ||
		math.Abs(*m.CI95.Low-(d-q*se)) > 1e-9 || math.Abs(*m.CI95.High-(d+q*se)) > 1e-9 {
		t.Errorf("tokens/s: %s [%v, %v] %s; want %s [%.4g, %.4g] worse", m.Method, *m.CI95.Low, *m.CI95.High, m.Verdict, compare.MethodWelchRuns, d-q*se, d+q*se)
	}
	t.Logf("tokens/s: %s [%.1f, %.1f] %s", m.Method, *m.CI95.Low, *m.CI95.High, m.Verdict)
	if g := metric(t, r, "goodput@1000ms"); g.Method != compare.MethodWelchRuns {
		t.Errorf("goodput with three runs a side: method %s", g.Method)
	}
	// The report names the method and says what it assumes.
	for _, l := range []lang.Lang{lang.EN, lang.ZH} {
		var b bytes.Buffer
		if err := compare.Write(&b, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		want := map[lang.Lang]string{lang.EN: "Welch t over runs:", lang.ZH: "运行间 Welch t："}[l]
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s: the report does not explain %q:\n%s", l, want, b.String())
		}
	}
	// A goodput of 0 in every run (nothing meets a 50 ms SLO) has no
	// spread to scale a t by and an interval [0, 0]: no closed-loop
	// caveat for it.
	o50 := compare.Options{Card: cardopts.Flags{TTFTMS: []float64{50}}}
	side50 := func(rates ...float64) []compare.Run {
		var out []compare.Run
		for i, r := range rates {
			out = append(out, run(closedRun(r), fmt.Sprint("run", i), o50))
		}
		return out
	}
	if r, err := compare.Compare(side50(ra...), side50(rb...), o50); err != nil || hasWarning(r, compare.WarnClosedLoop) {
		t.Errorf("goodput 0 everywhere: %v, closed-loop warning %v", err, err == nil && hasWarning(r, compare.WarnClosedLoop))
	}
	// One run on a side: no spread of runs there; the Poisson model, with
	// its closed-loop caveat where a run was a closed loop.
	r, err = compare.Compare(side(ra...), side(rb[0]), o)
	if err != nil {
		t.Fatal(err)
	}
	if m := metric(t, r, "throughput.output_tokens_per_s"); m.Method != compare.MethodHierarchical {
		t.Errorf("three runs against one: method %s", m.Method)
	}
	if !hasWarning(r, compare.WarnClosedLoop) {
		t.Errorf("closed-loop runs under a Poisson model: no %s warning: %+v", compare.WarnClosedLoop, r.Warnings)
	}
}

func hasWarning(r *compare.Result, kind string) bool {
	for _, w := range r.Warnings {
		if w.Kind == kind {
			return true
		}
	}
	return false
}

// Over A/A pairs of three closed-loop runs a side (a fixed number of
// attempts, each run's rate shifted by the machine's load, ±10 %), the
// rate intervals over runs hold 0 at close to their 95 %: within ±0.04 of
// it over 300 pairs, about three standard errors of a share
// (√(0.95·0.05/300) = 0.0126).
func TestRatesOverRunsCoverage(t *testing.T) {
	o := compare.Options{Resamples: 100}
	covered, pairs := map[string]int{}, 300
	for i := range pairs {
		side := func(seed uint64) []compare.Run {
			var out []compare.Run
			for j := range 3 {
				rr := distuv.Normal{Mu: 30, Sigma: 3, Src: rngFor(seed*16 + uint64(j))}.Rand()
				out = append(out, run(closedRun(rr), "x", o))
			}
			return out
		}
		r, err := compare.Compare(side(uint64(2*i+1)), side(uint64(2*i+2)), o)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"throughput.output_tokens_per_s"} {
			if m := metric(t, r, name); m.CI95.Contains(0) {
				covered[name]++
			}
		}
	}
	for name, c := range covered {
		got := float64(c) / float64(pairs)
		t.Logf("%s covers 0 in %.3f of %d A/A pairs", name, got, pairs)
		if math.Abs(got-0.95) > 0.04 {
			t.Errorf("%s covers 0 in %.3f of %d A/A pairs, want 0.95 ± 0.04", name, got, pairs)
		}
	}
}

func rngFor(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 11)) }
