package compare_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/trace"
)

// load describes a synthetic run: n attempts over a window of windowS
// seconds, a share fail of them failing, the others streaming tokens
// events after a lognormal TTFT of median ttftMS (×stretch).
type load struct {
	n       int
	windowS float64
	fail    float64
	ttftMS  float64
	tokens  int
	// shift multiplies every TTFT of the run (a run-level effect: the
	// machine's load during that run).
	shift float64
	// open draws the number of attempts from Poisson(n), as an open loop's
	// Poisson arrivals over the window give it; otherwise exactly n.
	open bool
}

// synth draws one run of l from seed.
func synth(l load, seed uint64) *trace.Trace {
	r := rand.New(rand.NewPCG(seed, 7))
	t := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client",
		Window: trace.Window{StartMS: 0, EndMS: l.windowS * 1000}}}
	shift := l.shift
	if shift == 0 {
		shift = 1
	}
	n := l.n
	if l.open {
		n = int(distuv.Poisson{Lambda: float64(l.n), Src: r}.Rand())
	}
	for i := range n {
		start := r.Float64() * l.windowS * 1000
		a := trace.Attempt{ID: fmt.Sprint("a", i), StartMS: start}
		if r.Float64() < l.fail {
			a.Outcome, a.EndMS, a.HasEnd = trace.HTTPError, start+5, true
			t.Attempts = append(t.Attempts, a)
			continue
		}
		a.Outcome, a.Quality = trace.OK, trace.Pass
		at := start + l.ttftMS*shift*math.Exp(0.5*r.NormFloat64())
		k := 1 + r.IntN(l.tokens)
		for range k {
			a.Events = append(a.Events, trace.Event{TMS: at, Tokens: 1})
			at += 10 * math.Exp(0.3*r.NormFloat64())
		}
		a.EndMS, a.HasEnd = at, true
		t.Attempts = append(t.Attempts, a)
	}
	return t
}

// run summarizes t as compare needs it.
func run(t *trace.Trace, name string, o compare.Options) compare.Run {
	return compare.Run{Name: name, Summary: cardopts.MustSummarize(t, o.CardFlags(), cardopts.Resampling())}
}

// practice is the unit's practice trace (coursekit gen --seed 1: 1,915
// attempts in the window, failures, retries, multi-token events).
func practice(t testing.TB) *trace.Trace {
	t.Helper()
	tr, err := trace.ReadFile(coursekit.Data("unit01/practice.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// stretchTTFT is tr with every first event f times as late after its
// send: the rest of the stream moves with it, gaps unchanged.
func stretchTTFT(tr *trace.Trace, f float64) *trace.Trace {
	out := &trace.Trace{Header: tr.Header, Attempts: make([]trace.Attempt, len(tr.Attempts))}
	for i, a := range tr.Attempts {
		a.Events = slices.Clone(a.Events)
		if len(a.Events) > 0 {
			d := (f - 1) * (a.Events[0].TMS - a.StartMS)
			for j := range a.Events {
				a.Events[j].TMS += d
			}
			if a.HasEnd {
				a.EndMS += d
			}
		}
		out.Attempts[i] = a
	}
	return out
}

// failing is a run of n attempts over 10 s, the first f of them failures
// (HTTP 503), the rest complete successes of 200 ms.
func failing(n, f int) *trace.Trace {
	t := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}}}
	for i := range n {
		start := float64(i) * 10000 / float64(n)
		a := trace.Attempt{ID: fmt.Sprint("a", i), StartMS: start, EndMS: start + 200, HasEnd: true}
		if i < f {
			a.Outcome, a.HTTPStatus = trace.HTTPError, 503
		} else {
			a.Outcome, a.Quality = trace.OK, trace.Pass
			a.Events = []trace.Event{{TMS: start + 100, Tokens: 1}, {TMS: start + 150, Tokens: 1}}
		}
		t.Attempts = append(t.Attempts, a)
	}
	return t
}

// withConditions is tr with the header's conditions replaced by c.
func withConditions(tr *trace.Trace, c string) *trace.Trace {
	out := *tr
	out.Header.Conditions = json.RawMessage(c)
	return &out
}

// compareConditions compares g under conditions a (run "a.jsonl") with g
// under conditions b ("b.jsonl"), with default options.
func compareConditions(t testing.TB, g *trace.Trace, a, b string) *compare.Result {
	t.Helper()
	o := compare.Options{}
	r, err := compare.Compare([]compare.Run{run(withConditions(g, a), "a.jsonl", o)}, []compare.Run{run(withConditions(g, b), "b.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// changedAlone fails t unless r's only changed condition is name, and,
// when keys are given, it holds exactly those keys.
func changedAlone(t testing.TB, r *compare.Result, name string, keys ...string) {
	t.Helper()
	if len(r.ConditionsChanged) != 1 || r.ConditionsChanged[0].Name != name || (keys != nil && !slices.Equal(r.ConditionsChanged[0].Keys, keys)) {
		t.Errorf("changed %+v, want %s alone with keys %v", r.ConditionsChanged, name, keys)
	}
}

// metric finds the named metric of r.
func metric(t testing.TB, r *compare.Result, name string) compare.Metric {
	t.Helper()
	for _, m := range r.Metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %q", name)
	return compare.Metric{}
}
