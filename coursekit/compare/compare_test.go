package compare_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The same trace on both sides, once or three times, under either
// percentile method: every metric is the same, B − A is 0 and its interval
// holds it.
func TestSameTraceTwiceIsSameEverywhere(t *testing.T) {
	p := practice(t)
	g := synth(load{n: 500, windowS: 30, fail: 0.05, ttftMS: 300, tokens: 30, open: true}, 9)
	for _, m := range []metrics.Method{metrics.NearestRank, metrics.Linear} {
		o := compare.Options{Card: cardopts.Flags{Method: m}}
		for _, side := range [][]*trace.Trace{{p}, {p, g, p}} {
			var a, b []compare.Run
			for _, tr := range side {
				a, b = append(a, run(tr, "a.jsonl", o)), append(b, run(tr, "b.jsonl", o))
			}
			r, err := compare.Compare(a, b, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Metrics) != 10 {
				t.Fatalf("%d metrics, want 10", len(r.Metrics))
			}
			for _, x := range r.Metrics {
				if x.Verdict != compare.Same || x.Diff == nil || *x.Diff != 0 || !x.CI95.Contains(0) {
					t.Errorf("%s, %d run(s): %s: verdict %s, diff %v, interval %v…%v", m, len(side), x.Name, x.Verdict, x.Diff, x.CI95.Low, x.CI95.High)
				}
			}
			if len(r.ConditionsChanged) != 0 {
				t.Errorf("the same trace changed conditions: %+v", r.ConditionsChanged)
			}
		}
	}
}

// Every TTFT 1.5 times as long: worse on each TTFT percentile, with an
// interval wholly above 0, and E2E worse with it; the gaps between events
// did not move and stay the same. With three runs a side too.
func TestStretchedTTFTIsWorse(t *testing.T) {
	o := compare.Options{}
	l := load{n: 2000, windowS: 60, fail: 0.05, ttftMS: 300, tokens: 30, open: true}
	var a, b []compare.Run
	for _, tr := range []*trace.Trace{practice(t), synth(l, 2), synth(l, 3)} {
		a, b = append(a, run(tr, "a", o)), append(b, run(stretchTTFT(tr, 1.5), "b", o))
	}
	for _, runs := range []int{1, 3} {
		r, err := compare.Compare(a[:runs], b[:runs], o)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"ttft_ms.p50", "ttft_ms.p95", "ttft_ms.p99", "e2e_ms.p95"} {
			m := metric(t, r, name)
			if m.Verdict != compare.Worse || m.CI95.Low == nil || *m.CI95.Low <= 0 {
				t.Errorf("%d run(s): %s: verdict %s, interval from %v; want worse, above 0", runs, name, m.Verdict, m.CI95.Low)
			}
			// A side's value is written to the nanosecond (numfmt.Clean,
			// as the card writes it): at TTFTs of tens of ms and more, the
			// ratio is +50 % to 1e-7.
			if rel := *m.Rel; name != "e2e_ms.p95" && math.Abs(rel-0.5) > 1e-7 {
				t.Errorf("%d run(s): %s: relative change %v, want +50%%", runs, name, rel)
			}
		}
		for _, name := range []string{"itl_ms.p50", "itl_ms.p95", "failure_rate"} {
			if m := metric(t, r, name); m.Verdict != compare.Same || math.Abs(*m.Diff) > 1e-9 {
				t.Errorf("%d run(s): %s moved (%s, %v) though only the TTFTs did", runs, name, m.Verdict, *m.Diff)
			}
		}
	}
}

// 2 of 10 failing against 5 of 10 is too few attempts to tell (Newcombe's
// interval holds 0); 20 of 100 against 50 of 100 is not, and it is worse.
func TestFailuresFewAgainstMany(t *testing.T) {
	o := compare.Options{}
	for _, c := range []struct {
		n, fa, fb int
		want      string
	}{{10, 2, 5, compare.Same}, {100, 20, 50, compare.Worse}, {100, 50, 20, compare.Better}} {
		r, err := compare.Compare([]compare.Run{run(failing(c.n, c.fa), "a", o)}, []compare.Run{run(failing(c.n, c.fb), "b", o)}, o)
		if err != nil {
			t.Fatal(err)
		}
		m := metric(t, r, "failure_rate")
		if m.Verdict != c.want || m.Method != compare.MethodNewcombe {
			t.Errorf("%d/%d against %d/%d: %s by %s, want %s", c.fa, c.n, c.fb, c.n, m.Verdict, m.Method, c.want)
		}
		if want := float64(c.fb-c.fa) / float64(c.n); math.Abs(*m.Diff-want) > 1e-12 || !m.CI95.Contains(want) {
			t.Errorf("%d/%d against %d/%d: B − A %v, interval [%v, %v]; want %v inside", c.fa, c.n, c.fb, c.n, *m.Diff, *m.CI95.Low, *m.CI95.High, want)
		}
	}
}

// coverage compares pairs of sides drawn from one distribution (seeded)
// and gives, per metric, the share of pairs whose interval of B − A holds
// 0.
func coverage(t *testing.T, pairs, runs int, l load, o compare.Options) map[string]float64 {
	t.Helper()
	return coverageDrawn(t, pairs, runs, func(uint64) load { return l }, o)
}

// coverageDrawn is coverage with the load of each run drawn from its
// seed s (draw), so that runs may differ beyond sampling. It runs on the
// test's goroutine: compare starts none, so test-go runs it without -race
// (docs/testing.md).
func coverageDrawn(t *testing.T, pairs, runs int, draw func(s uint64) load, o compare.Options) map[string]float64 {
	t.Helper()
	side := func(seed uint64) []compare.Run {
		var out []compare.Run
		for j := range runs {
			s := seed*16 + uint64(j)
			out = append(out, run(synth(draw(s), s), "x", o))
		}
		return out
	}
	covered := map[string]int{}
	for i := range pairs {
		r, err := compare.Compare(side(uint64(2*i+1)), side(uint64(2*i+2)), o)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range r.Metrics {
			if m.CI95.Contains(0) {
				covered[m.Name]++
			}
		}
	}
	out := map[string]float64{}
	for name, c := range covered {
		out[name] = float64(c) / float64(pairs)
	}
	return out
}

// Over seeded pairs of runs from one distribution (open-loop Poisson
// arrivals, 10 % failures, lognormal TTFT), each interval holds 0, the true
// difference, at close to its 95 %. The tolerance, ±0.04, is about three
// standard errors of a share over 300 pairs (√(0.95·0.05/300) = 0.0126),
// the test's own sampling error. With three runs a side that differ only by
// sampling, the hierarchical bootstrap counts the within-run noise twice
// (once through the runs drawn, once within them), so it errs wide: at
// least 0.95 − 0.04, and at most 1.
func TestCoverage(t *testing.T) {
	l := load{n: 300, windowS: 20, fail: 0.1, ttftMS: 200, tokens: 20, open: true}
	o := compare.Options{TTFT: []float64{0.5, 0.95}, E2E: []float64{0.95}, ITL: []float64{0.5, 0.95}, Resamples: 500}
	one := coverage(t, 300, 1, l, o)
	if len(one) != 9 {
		t.Fatalf("coverage of %d metrics, want 9: %v", len(one), one)
	}
	for name, c := range one {
		if math.Abs(c-0.95) > 0.04 {
			t.Errorf("one run a side: %s covers 0 in %.3f of 300 pairs, want 0.95 ± 0.04", name, c)
		}
	}
	l.n = 100
	o.Resamples = 300
	three := coverage(t, 200, 3, l, o)
	for name, c := range three {
		if c < 0.95-0.04 {
			t.Errorf("three runs a side: %s covers 0 in %.3f of 200 pairs, want ≥ 0.91", name, c)
		}
	}
	t.Logf("one run a side: %v", one)
	t.Logf("three runs a side: %v", three)
}

// Two conditions changed between the sides are both named, with the
// warning that only one should change; one changed condition is named
// without it; runs of one side that differ among themselves are named too.
func TestChangedConditionsAreNamed(t *testing.T) {
	o := compare.Options{}
	g := failing(40, 4)
	base := `{"model":"m","api":"chat","concurrency":4,"engine":{"parallel":1,"threads":1}}`
	two := `{"model":"m2","api":"chat","concurrency":4,"engine":{"parallel":4,"threads":1}}`
	one := `{"model":"m","api":"chat","concurrency":4,"engine":{"parallel":4,"threads":1}}`
	a := []compare.Run{run(withConditions(g, base), "a.jsonl", o)}
	r, err := compare.Compare(a, []compare.Run{run(withConditions(g, two), "b.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range r.ConditionsChanged {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"engine.parallel", "model"}) {
		t.Fatalf("changed conditions %v, want engine.parallel and model", names)
	}
	if string(r.ConditionsChanged[0].A) != "1" || string(r.ConditionsChanged[0].B) != "4" || string(r.ConditionsChanged[1].B) != `"m2"` {
		t.Errorf("values: %+v", r.ConditionsChanged)
	}
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		var b bytes.Buffer
		if err := compare.Write(&b, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		for _, want := range []string{"engine.parallel", "model", map[lang.Lang]string{lang.ZH: "一次只应改变一个条件", lang.EN: "Change one condition at a time"}[l]} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the report does not say %q:\n%s", l, want, text)
			}
		}
	}
	r, err = compare.Compare(a, []compare.Run{run(withConditions(g, one), "b.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	compare.Write(&b, r, cardfmt.Text, lang.ZH)
	if len(r.ConditionsChanged) != 1 || r.ConditionsChanged[0].Name != "engine.parallel" || strings.Contains(b.String(), "一次只应改变一个条件") {
		t.Errorf("one changed condition: %+v, warned: %v", r.ConditionsChanged, strings.Contains(b.String(), "一次只应改变一个条件"))
	}
	// A's second run was measured against another model.
	a = append(a, run(withConditions(g, `{"model":"m3","api":"chat","concurrency":4,"engine":{"parallel":1,"threads":1}}`), "a2.jsonl", o))
	r, err = compare.Compare(a, []compare.Run{run(withConditions(g, one), "b.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.RunsDiffer) != 1 || r.RunsDiffer[0].Side != "a" || r.RunsDiffer[0].Name != "model" || len(r.RunsDiffer[0].Values) != 2 {
		t.Errorf("runs differing: %+v", r.RunsDiffer)
	}
	b.Reset()
	compare.Write(&b, r, cardfmt.Text, lang.ZH)
	if !strings.Contains(b.String(), "A 的 2 次运行之间条件不一致") {
		t.Errorf("the report does not say that A's runs differ:\n%s", b.String())
	}
}

// The header's per-run notes (how the run ended, its sidecar) are no
// conditions, nor is a live run's achieved window: its planned duration
// is; the URL names the server, engine settings or not.
func TestConditionsLeaveOutPerRunNotes(t *testing.T) {
	tr := failing(10, 1)
	tr.Header.Conditions = json.RawMessage(`{"model":"m","run_end":{"reason":"completed","planned_duration_ms":10000,"planned_window":{"start_ms":0,"end_ms":10000}},"metrics_sidecar":"x.metrics.jsonl"}`)
	tr.Header.Meta = json.RawMessage(`{"url":"http://127.0.0.1:8090","started_at":"2026-12-04T00:00:00Z"}`)
	c := compare.Conditions(cardopts.MustSummarize(tr, cardopts.Flags{}))
	want := map[string]string{"model": `"m"`, "clock": `"client"`, "duration_ms": "10000", "server": `"http://127.0.0.1:8090"`}
	if len(c) != len(want) {
		t.Errorf("conditions %v, want %v", c, want)
	}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("%s = %s, want %s", k, c[k], v)
		}
	}
	tr.Header.Conditions = json.RawMessage(`{"engine":{"parallel":4}}`)
	if c := compare.Conditions(cardopts.MustSummarize(tr, cardopts.Flags{})); c["server"] != `"http://127.0.0.1:8090"` || c["engine.parallel"] != "4" {
		t.Errorf("with the engine described: %v", c)
	}
}

// The same inputs and seed give the same output, byte for byte; another
// seed other bootstrap intervals, and the same analytic ones.
func TestSeeded(t *testing.T) {
	p := practice(t)
	s := stretchTTFT(p, 1.1)
	out := func(seed uint64) (string, *compare.Result) {
		o := compare.Options{Seed: seed}
		r, err := compare.Compare([]compare.Run{run(p, "a", o)}, []compare.Run{run(s, "b", o)}, o)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		compare.Write(&b, r, cardfmt.JSON, lang.ZH)
		return b.String(), r
	}
	one, r1 := out(7)
	again, _ := out(7)
	other, r2 := out(8)
	if one != again {
		t.Error("the same seed gave two outputs")
	}
	if one == other {
		t.Error("another seed gave the same output")
	}
	moved := 0
	for i, m := range r1.Metrics {
		same := *m.CI95.Low == *r2.Metrics[i].CI95.Low && *m.CI95.High == *r2.Metrics[i].CI95.High
		if m.Method == compare.MethodBootstrap && !same {
			moved++
		}
		if m.Method != compare.MethodBootstrap && !same {
			t.Errorf("%s (%s) is not resampled, yet seeds 7 and 8 give two intervals", m.Name, m.Method)
		}
	}
	if moved == 0 {
		t.Error("no bootstrap interval moved with the seed")
	}
}

// The JSON has exactly the shape of the issue: a and b with their traces,
// conditions_changed as {name, a, b}, and metrics as {name, a, b, diff,
// rel, ci95 {low, high}, method, verdict}; a side too small to bound a
// percentile has a null bound and the verdict same.
func TestJSONShape(t *testing.T) {
	o := compare.Options{}
	unit, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := compare.Compare([]compare.Run{run(unit, "trace.jsonl", o)}, []compare.Run{run(withConditions(unit, `{"model":"other"}`), "other.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := compare.Write(&b, r, cardfmt.JSON, lang.ZH); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		A, B              map[string][]string
		ConditionsChanged []map[string]json.RawMessage `json:"conditions_changed"`
		Metrics           []map[string]json.RawMessage
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(doc.A["traces"], []string{"trace.jsonl"}) || !slices.Equal(doc.B["traces"], []string{"other.jsonl"}) {
		t.Errorf("sides: %v, %v", doc.A, doc.B)
	}
	keys := func(m map[string]json.RawMessage) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		slices.Sort(k)
		return k
	}
	if len(doc.ConditionsChanged) == 0 || !slices.Equal(keys(doc.ConditionsChanged[0]), []string{"a", "b", "name"}) {
		t.Errorf("conditions_changed: %v", doc.ConditionsChanged)
	}
	want := []string{"a", "a_runs", "at_run_max_n", "b", "b_runs", "borderline", "ci95", "covers", "diff", "method", "name", "need_n_per_run", "rel", "unbounded_reason", "verdict"}
	for _, m := range doc.Metrics {
		if !slices.Equal(keys(m), want) {
			t.Errorf("metric keys %v, want %v", keys(m), want)
		}
		var ci map[string]json.RawMessage
		json.Unmarshal(m["ci95"], &ci)
		if !slices.Equal(keys(ci), []string{"high", "low"}) {
			t.Errorf("ci95 keys %v", keys(ci))
		}
	}
	p95 := metric(t, r, "ttft_ms.p95")
	if p95.CI95.High != nil || p95.CI95.Low != nil || p95.Verdict != compare.Same || p95.NeedN != 72 {
		t.Errorf("P95 of 8 successes: interval %v…%v, verdict %s, n needed %d; want unbounded, same, 72", p95.CI95.Low, p95.CI95.High, p95.Verdict, p95.NeedN)
	}
}

// A side without a complete success has no percentile: n/a, not 0.
func TestNoValueIsNotApplicable(t *testing.T) {
	o := compare.Options{}
	r, err := compare.Compare([]compare.Run{run(failing(10, 10), "a", o)}, []compare.Run{run(failing(10, 2), "b", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if m := metric(t, r, "ttft_ms.p50"); m.Verdict != compare.NA || m.A != nil || m.Diff != nil {
		t.Errorf("no success on A: %+v", m)
	}
	if a, b := metric(t, r, "ttft_ms.p50").Values(); !math.IsNaN(a) || math.IsNaN(b) {
		t.Errorf("Values of ttft_ms.p50: %v, %v; want NaN for A (no success) and B's number", a, b)
	}
	if m := metric(t, r, "failure_rate"); m.Verdict != compare.Better {
		t.Errorf("10/10 against 2/10 failing: %s, want better", m.Verdict)
	}
}

// Runs summarized under other SLOs or levels are refused, not compared.
func TestMismatchedSummariesAreRefused(t *testing.T) {
	o := compare.Options{}
	g := failing(10, 1)
	other := compare.Run{Name: "b", Summary: cardopts.MustSummarize(g, compare.Options{Card: cardopts.TTFT(500)}.CardFlags(), cardopts.Resampling())}
	if _, err := compare.Compare([]compare.Run{run(g, "a", o)}, []compare.Run{other}, o); err == nil || !strings.Contains(err.Error(), "SLO") {
		t.Errorf("other SLOs: %v", err)
	}
	plain := compare.Run{Name: "b", Summary: cardopts.MustSummarize(g, o.CardFlags())}
	if _, err := compare.Compare([]compare.Run{run(g, "a", o)}, []compare.Run{plain}, o); err == nil {
		t.Error("a summary without resampling data was compared")
	}
}

// writeTrace writes tr to dir/name.
func writeTrace(t *testing.T, dir, name string, tr *trace.Trace) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := trace.NewWriter(f, tr.Header)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tr.Attempts {
		if err := w.Write(&tr.Attempts[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return p
}

// Files judges every run under the first A trace's SLOs (its header's
// conditions.slo), so a B run recorded under others is judged alike. Its
// recorded SLOs are a judgement, not a condition of the run (the second
// walk's `compare d2 d1` listed slo.slo_ttft_ms as changed and warned that
// more than one condition differed): they are listed apart, with one note
// naming the set that judged both; names go with NamedFiles.
func TestFilesJudgeEveryRunLikeTheFirst(t *testing.T) {
	dir := t.TempDir()
	g := failing(20, 2)
	a := writeTrace(t, dir, "a.jsonl", withConditions(g, `{"slo":{"slo_ttft_ms":[150]}}`))
	b := writeTrace(t, dir, "b.jsonl", withConditions(g, `{"slo":{"slo_ttft_ms":[1000]}}`))
	r, err := compare.Files([]string{a}, []string{b}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := metric(t, r, "qualified_rate@150ms"); *m.A != 0.9 || *m.B != 0.9 {
		t.Errorf("qualified at 150 ms: A %v, B %v; want 0.9 both (TTFT 100 ms)", *m.A, *m.B)
	}
	if len(r.ConditionsChanged) != 0 || len(r.RecordedSLOs) != 1 || r.RecordedSLOs[0].Name != "slo.slo_ttft_ms" {
		t.Errorf("changed: %+v; recorded SLOs differ: %+v; want none changed, slo.slo_ttft_ms apart", r.ConditionsChanged, r.RecordedSLOs)
	}
	for l, want := range map[lang.Lang]string{
		lang.EN: "the traces' recorded SLOs differ (slo.slo_ttft_ms: A [150] → B [1000]). SLOs are a judgement, not a condition of the runs, and are not counted as a changed condition: both sides are judged under one set, the one the first A run (" + a + ") records",
		lang.ZH: "两边 trace 记录的 SLO 不同（slo.slo_ttft_ms：A [150] → B [1000]）",
	} {
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Count(out, want) != 1 || strings.Contains(out, "more than one condition") || strings.Contains(out, "不止一个条件") {
			t.Errorf("%s: want the recorded-SLO note once (%q), no changed-condition warning:\n%s", l, want, out)
		}
	}
	r, err = compare.NamedFiles([]compare.File{{Path: a, Name: "one"}}, []compare.File{{Path: b, Name: "two"}},
		compare.Options{Card: cardopts.TTFT(50)})
	if err != nil {
		t.Fatal(err)
	}
	if r.A.Traces[0] != "one" || r.B.Traces[0] != "two" || metric(t, r, "qualified_rate@50ms").A == nil {
		t.Errorf("named %v %v, metrics %v", r.A.Traces, r.B.Traces, r.Metrics)
	}
}

// Metric finds a metric by its name, and says when there is none.
func TestResultMetric(t *testing.T) {
	o := compare.Options{}
	r, err := compare.Compare([]compare.Run{run(failing(10, 1), "a", o)}, []compare.Run{run(failing(10, 3), "b", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := r.Metric("failure_rate"); !ok || *m.A != 0.1 || *m.B != 0.3 || m.Real() != (m.Verdict != compare.Same) {
		t.Errorf("failure_rate: %+v, %v", m, ok)
	}
	p := practice(t)
	r, err = compare.Compare([]compare.Run{run(p, "a", o)}, []compare.Run{run(stretchTTFT(p, 2), "b", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := r.Metric("ttft_ms.p50"); !m.Real() {
		t.Errorf("TTFT twice as long is not real: %+v", m)
	}
	if m, _ := r.Metric("itl_ms.p50"); m.Real() {
		t.Errorf("unchanged gaps are real: %+v", m)
	}
	if _, ok := r.Metric("ttft_ms.p42"); ok {
		t.Error("found a metric that was not compared")
	}
}

// A run given twice, by its path or as a copy under another name, is
// refused, naming both: counted twice it would narrow the intervals and
// pass for the variance between runs. One trace against itself (A/A) is
// still compared.
func TestFilesRefuseARunTwice(t *testing.T) {
	dir := t.TempDir()
	a1 := writeTrace(t, dir, "a1.jsonl", failing(20, 2))
	a2 := writeTrace(t, dir, "a2.jsonl", failing(20, 3))
	b1 := writeTrace(t, dir, "b1.jsonl", failing(20, 4))
	b2 := writeTrace(t, dir, "b2.jsonl", failing(20, 5))
	raw, err := os.ReadFile(a1)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "copy.jsonl")
	if err := os.WriteFile(copied, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b     []string
		first    string
		second   string
		sameFile bool
	}{
		{[]string{a1, a1}, []string{b1, b2}, a1, a1, true},
		{[]string{a1, a2}, []string{b1, filepath.Join(dir, ".", "b1.jsonl")}, b1, filepath.Join(dir, ".", "b1.jsonl"), true},
		{[]string{a1, copied}, []string{b1, b2}, a1, copied, false},
		{[]string{a1, a2}, []string{copied, b2}, a1, copied, false},
	} {
		_, err := compare.Files(c.a, c.b, compare.Options{Resamples: 100})
		var de *compare.DuplicateError
		if !errors.As(err, &de) || de.First != c.first || de.Second != c.second || de.SameFile != c.sameFile {
			t.Errorf("%v -- %v: err %v, want a duplicate %s, %s (same file %v)", c.a, c.b, err, c.first, c.second, c.sameFile)
			continue
		}
		if !strings.Contains(err.Error(), c.first) || !strings.Contains(err.Error(), c.second) {
			t.Errorf("the error names not both: %v", err)
		}
	}
	if _, err := compare.Files([]string{a1}, []string{a1}, compare.Options{Resamples: 100}); err != nil {
		t.Errorf("A/A: %v", err)
	}
	if _, err := compare.Files([]string{a1, a2}, []string{b1, b2}, compare.Options{Resamples: 100}); err != nil {
		t.Errorf("four distinct runs: %v", err)
	}
}

// --slo-ttft alone on runs recorded with TTFT and E2E SLOs drops the E2E
// SLO as the card does; the comparison says so, and says that its
// qualified rates and goodput are unknown because nothing is rated, in the
// text and in the JSON's warnings, and compares them as n/a (no value on
// either side), rather than a silent 0 against 0.
func TestCompareSaysRecordedSLOsDroppedAndUnrated(t *testing.T) {
	dir := t.TempDir()
	unrated := func(n, f int) *trace.Trace {
		tr := failing(n, f)
		for i := range tr.Attempts {
			tr.Attempts[i].Quality = trace.Unrated
		}
		return withConditions(tr, `{"slo":{"slo_ttft_ms":[2000],"slo_e2e_ms":4000}}`)
	}
	a := writeTrace(t, dir, "a.jsonl", unrated(20, 2))
	b := writeTrace(t, dir, "b.jsonl", unrated(20, 4))
	kinds := func(r *compare.Result) map[string]string {
		out := map[string]string{}
		for _, w := range r.Warnings {
			out[w.Kind] = w.Text
		}
		return out
	}
	r, err := compare.Files([]string{a}, []string{b}, compare.Options{Card: cardopts.TTFT(3000), Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	w := kinds(r)
	if !strings.Contains(w[compare.WarnSLODropped], "without the recorded E2E ≤ 4 s") || !strings.Contains(w[compare.WarnSLODropped], a) {
		t.Errorf("slo warning: %q", w[compare.WarnSLODropped])
	}
	if !strings.Contains(w[compare.WarnUnrated], "none of the 34 complete successes has a quality rating") {
		t.Errorf("unrated warning: %q", w[compare.WarnUnrated])
	}
	for _, name := range []string{"goodput@3000ms", "qualified_rate@3000ms"} {
		if m := metric(t, r, name); m.Verdict != compare.NA || m.A != nil || m.B != nil || m.ARuns[0] != nil {
			t.Errorf("%s with nothing rated: verdict %s, A %v, B %v; want n/a without values", name, m.Verdict, m.A, m.B)
		}
	}
	var text, js bytes.Buffer
	if err := compare.Write(&text, r, cardfmt.Text, lang.ZH); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "不再使用记录的 E2E ≤ 4 s") || !strings.Contains(text.String(), "都没有质量评分") {
		t.Errorf("the text lacks the notes:\n%s", text.String())
	}
	if err := compare.Write(&js, r, cardfmt.JSON, lang.ZH); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"kind": "unrated"`) || !strings.Contains(js.String(), `"kind": "slo_dropped"`) {
		t.Errorf("JSON warnings:\n%s", js.String())
	}
	// Judged under the recorded SLOs (latency only), nothing to warn of.
	r, err = compare.Files([]string{a}, []string{b}, compare.Options{Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	if w := kinds(r); w[compare.WarnSLODropped] != "" || w[compare.WarnUnrated] != "" {
		t.Errorf("warnings under the recorded SLOs: %+v", r.Warnings)
	}
}

// A bench run's planned duration and its measured window are one
// condition: twice as long a run is one changed condition (duration_ms),
// not two; a window that differs from its plan (a run cut short) is still
// named.
func TestDurationCountsOnce(t *testing.T) {
	o := compare.Options{Resamples: 100}
	stretched := func(endMS float64, cond string) *trace.Trace {
		tr := failing(40, 4)
		tr.Header.Window.EndMS = endMS
		return withConditions(tr, cond)
	}
	a := run(stretched(10000, `{"model":"m","duration_ms":10000}`), "a", o)
	b := run(stretched(20000, `{"model":"m","duration_ms":20000}`), "b", o)
	r, err := compare.Compare([]compare.Run{a}, []compare.Run{b}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ConditionsChanged) != 1 || r.ConditionsChanged[0].Name != "duration_ms" {
		t.Errorf("changed: %+v, want duration_ms alone", r.ConditionsChanged)
	}
	cut := run(stretched(15000, `{"model":"m","duration_ms":20000}`), "cut", o)
	r, err = compare.Compare([]compare.Run{a}, []compare.Run{cut}, o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range r.ConditionsChanged {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"duration_ms", "window_s"}) {
		t.Errorf("a run cut short: changed %v, want duration_ms and window_s", names)
	}
}

// The JSON carries what the text says, so a script need not recount: each
// run's value per metric under each side, why a bound is null, and the
// warnings (more than one condition changed, runs that differ, one run a
// side, too few samples).
func TestJSONCarriesTheText(t *testing.T) {
	o := compare.Options{Resamples: 100}
	g := failing(40, 4)
	a1 := run(withConditions(g, `{"model":"m","engine":{"parallel":1}}`), "a1", o)
	a2 := run(withConditions(failing(40, 6), `{"model":"m3","engine":{"parallel":1}}`), "a2", o)
	b := run(withConditions(failing(40, 8), `{"model":"m2","engine":{"parallel":4}}`), "b", o)
	r, err := compare.Compare([]compare.Run{a1, a2}, []compare.Run{b}, o)
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := compare.Write(&js, r, cardfmt.JSON, lang.ZH); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Metrics []struct {
			Name      string
			ARuns     []*float64 `json:"a_runs"`
			BRuns     []*float64 `json:"b_runs"`
			CI95      struct{ Low, High *float64 }
			Unbounded *string `json:"unbounded_reason"`
		}
		Warnings []compare.Warning
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, m := range doc.Metrics {
		if m.Name == "failure_rate" && (len(m.ARuns) != 2 || *m.ARuns[0] != 0.1 || *m.ARuns[1] != 0.15 || len(m.BRuns) != 1 || *m.BRuns[0] != 0.2) {
			t.Errorf("failure_rate runs: %v %v", m.ARuns, m.BRuns)
		}
		if (m.CI95.Low == nil || m.CI95.High == nil) != (m.Unbounded != nil) {
			t.Errorf("%s: bounds %v %v, reason %v", m.Name, m.CI95.Low, m.CI95.High, m.Unbounded)
		}
		if m.Name == "ttft_ms.p99" && (m.Unbounded == nil || !strings.Contains(*m.Unbounded, "n ≥ 368 per run needed")) {
			t.Errorf("ttft_ms.p99's reason: %v", m.Unbounded)
		}
	}
	kinds := map[string]string{}
	for _, w := range doc.Warnings {
		kinds[w.Kind] = w.Text
	}
	for kind, want := range map[string]string{
		compare.WarnConditions: "Change one condition at a time",
		compare.WarnRunsDiffer: "the runs of A (2 of them) differ among themselves; the runs of one side should repeat one command. (model)",
		compare.WarnOneRun:     "B has one run only",
		compare.WarnTooFew:     "ttft_ms.p99 (n ≥ 368 per run needed; all 3 runs: n = 32–36)",
	} {
		if !strings.Contains(kinds[kind], want) {
			t.Errorf("warning %s: %q, want it to say %q", kind, kinds[kind], want)
		}
	}
}

// --memory bounds the event gaps too: compare under a budget so small that
// every store spills, the gaps' included, gives the comparison it gives in
// memory, interval for interval.
func TestMemoryBoundsTheEventGaps(t *testing.T) {
	dir := t.TempDir()
	a := writeTrace(t, dir, "a.jsonl", synth(load{n: 150, windowS: 10, ttftMS: 200, tokens: 60}, 1))
	b := writeTrace(t, dir, "b.jsonl", synth(load{n: 150, windowS: 10, ttftMS: 200, tokens: 60}, 2))
	var out [2]string
	for i, mem := range []int64{0, 1} {
		o := compare.Options{Resamples: 200}
		o.Card.MemoryBytes = mem
		r, err := compare.Files([]string{a}, []string{b}, o)
		if err != nil {
			t.Fatal(err)
		}
		var js bytes.Buffer
		if err := compare.Write(&js, r, cardfmt.JSON, lang.EN); err != nil {
			t.Fatal(err)
		}
		out[i] = js.String()
	}
	if out[0] != out[1] {
		t.Errorf("compare under --memory differs from compare in memory:\n%s\n---\n%s", out[0], out[1])
	}
}
