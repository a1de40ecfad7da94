package compare_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

func report(t *testing.T, r *compare.Result, l lang.Lang) string {
	t.Helper()
	var b bytes.Buffer
	if err := compare.Write(&b, r, cardfmt.Text, l); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func changedNames(r *compare.Result) []string {
	var out []string
	for _, c := range r.ConditionsChanged {
		out = append(out, c.Name)
	}
	return out
}

// A different bench --seed per repeat is how replicates are made: the
// seed is never a changed condition nor one the runs of a side differ
// in; the report lists the seeds once per side.
func TestSeedIsAReplicateKey(t *testing.T) {
	o := compare.Options{Resamples: 100}
	side := func(parallel int, seeds ...int) []compare.Run {
		var out []compare.Run
		for _, s := range seeds {
			// bench --dataset arith records the seed under dataset too.
			c := fmt.Sprintf(`{"model":"m","seed":%d,"dataset":{"name":"arith","seed":%d},"engine":{"parallel":%d}}`, s, s, parallel)
			out = append(out, run(withConditions(failing(40, 4), c), fmt.Sprint("p", parallel, "-", s), o))
		}
		return out
	}
	r, err := compare.Compare(side(1, 1, 2, 3), side(4, 4, 5, 6), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := changedNames(r); !slices.Equal(got, []string{"engine.parallel"}) {
		t.Errorf("changed %v, want engine.parallel alone", got)
	}
	if len(r.RunsDiffer) != 0 {
		t.Errorf("runs differ: %+v", r.RunsDiffer)
	}
	for l, want := range map[lang.Lang]string{lang.EN: "Seeds (they tell replicates apart, not a condition): A 1, 2, 3; B 4, 5, 6", lang.ZH: "种子（区分重复运行，不算条件）：A 1、2、3；B 4、5、6"} {
		if out := report(t, r, l); strings.Count(out, want) != 1 || strings.Contains(out, "seed:") {
			t.Errorf("%s: want the seeds once, %q:\n%s", l, want, out)
		}
	}
}

// Condition values that mean "none" in either language (gen's "无", bench's
// "none", false, "") are one value: the unit's two traces do not differ in
// prefix_reuse. A real change from none is still named.
func TestNoneIsNoneInEveryLanguage(t *testing.T) {
	o := compare.Options{Resamples: 100}
	g := failing(40, 4)
	for _, c := range []struct {
		a, b    string
		changed bool
	}{
		{`"none"`, `"无"`, false}, {`"无"`, `false`, false}, {`""`, `"none"`, false},
		{`"none"`, `{"mode":"same"}`, true}, {`"无"`, `true`, true},
	} {
		r, err := compare.Compare(
			[]compare.Run{run(withConditions(g, `{"prefix_reuse":`+c.a+`}`), "a", o)},
			[]compare.Run{run(withConditions(g, `{"prefix_reuse":`+c.b+`}`), "b", o)}, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(changedNames(r), "prefix_reuse"); got != c.changed {
			t.Errorf("prefix_reuse %s → %s: changed %v, want %v", c.a, c.b, got, c.changed)
		}
	}
	// Within a side too.
	r, err := compare.Compare([]compare.Run{run(withConditions(g, `{"prefix_reuse":"none"}`), "a1", o), run(withConditions(g, `{"prefix_reuse":"无"}`), "a2", o)},
		[]compare.Run{run(withConditions(g, `{"prefix_reuse":"none"}`), "b", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.RunsDiffer) != 0 || len(r.ConditionsChanged) != 0 {
		t.Errorf("none and 无: runs differ %+v, changed %+v", r.RunsDiffer, r.ConditionsChanged)
	}
}

// The unit's teaching trace against its practice trace: ttft_ms.p95 is
// unbounded below (A has 8 samples) and its upper bound excludes 0, so
// it has a verdict; the report says it comes from the bounded side, and
// no longer that an unbounded side "can only be ~".
func TestOneSidedVerdictIsExplained(t *testing.T) {
	o := compare.Options{Resamples: 500}
	teach, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := compare.Compare([]compare.Run{run(teach, "trace.jsonl", o)}, []compare.Run{run(practice(t), "practice.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	m := metric(t, r, "ttft_ms.p95")
	if m.CI95.Low != nil || !m.Real() {
		t.Fatalf("the case needs a one-sided verdict: %+v", m)
	}
	for l, want := range map[lang.Lang][2]string{
		lang.EN: {"One side bounded: ttft_ms.p95", "the verdict comes from that bounded side"},
		lang.ZH: {"单侧有界：ttft_ms.p95", "结论来自这有界的一侧"}} {
		out := report(t, r, l)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q:\n%s", l, w, out)
			}
		}
		if strings.Contains(out, "can only be ~") || strings.Contains(out, "只能判为 ~") {
			t.Errorf("%s: says an unbounded difference can only be ~:\n%s", l, out)
		}
		if strings.Contains(out, "prefix_reuse") {
			t.Errorf("%s: prefix_reuse none → 无 named as a change", l)
		}
	}
}

// The quality note names an A/A trace given twice once per side, each with
// its own count, so the total is their visible sum; late sends in several
// runs are one note.
func TestRunNotesOncePerComparison(t *testing.T) {
	o := compare.Options{Resamples: 100}
	unrated := failing(38, 0)
	for i := range unrated.Attempts {
		unrated.Attempts[i].Quality = trace.Unrated
	}
	r, err := compare.Compare([]compare.Run{run(unrated, "a1.jsonl", o)}, []compare.Run{run(unrated, "a1.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	out := report(t, r, lang.EN)
	if !strings.Contains(out, "(A a1.jsonl: 38, B a1.jsonl: 38)") || !strings.Contains(out, "none of the 76 complete successes") {
		t.Errorf("quality note: want 38 successes per side, named per side, 76 in all:\n%s", out)
	}
	late := func(name string, p99 float64) compare.Run {
		c := fmt.Sprintf(`{"run_end":{"reason":"completed","planned_duration_ms":10000,"planned_window":{"start_ms":0,"end_ms":10000},"sends":{"planned":40,"sent":40,"unsent":0,"lag_n":40,"lag_p50_ms":1,"lag_p99_ms":%v,"lag_max_ms":%v}}}`, p99, p99+10)
		return run(withConditions(failing(40, 0), c), name, o)
	}
	r, err = compare.Compare([]compare.Run{late("a1", 60), late("a2", 80)}, []compare.Run{late("b1", 70), late("b2", 90)}, o)
	if err != nil {
		t.Fatal(err)
	}
	for l, want := range map[lang.Lang]string{lang.EN: "sends left later than planned", lang.ZH: "发送比计划晚"} {
		if out := report(t, r, l); strings.Count(out, want) != 1 {
			t.Errorf("%s: the send-lag note %d times, want once:\n%s", l, strings.Count(out, want), out)
		}
	}
	if out := report(t, r, lang.EN); !strings.Contains(out, "in 4 runs (A a1, A a2, B b1, B b2): send lag P99 60–90 ms (max 70–100 ms)") {
		t.Errorf("send-lag note without its runs and range:\n%s", out)
	}
	// An A/A pair of one trace names it once a side ("A a1.jsonl, B
	// a1.jsonl", not "a1.jsonl, a1.jsonl"); runs whose P99 and maximum lags
	// span one range print it once, not as two identical ranges.
	same := func(name string, lag float64) compare.Run {
		c := fmt.Sprintf(`{"run_end":{"reason":"completed","planned_duration_ms":10000,"planned_window":{"start_ms":0,"end_ms":10000},"sends":{"planned":40,"sent":40,"unsent":0,"lag_n":40,"lag_p50_ms":1,"lag_p99_ms":%v,"lag_max_ms":%v}}}`, lag, lag)
		return run(withConditions(failing(40, 0), c), name, o)
	}
	r, err = compare.Compare([]compare.Run{same("a1.jsonl", 60)}, []compare.Run{same("a1.jsonl", 60)}, o)
	if err != nil {
		t.Fatal(err)
	}
	for l, want := range map[lang.Lang]string{lang.EN: "in 2 runs (A a1.jsonl, B a1.jsonl): send lag P99 and max both 60 ms", lang.ZH: "2 次运行（A a1.jsonl、B a1.jsonl）的发送比计划晚：发送延迟 P99 与最大值都是 60 ms"} {
		if out := report(t, r, l); !strings.Contains(out, want) {
			t.Errorf("%s: want %q:\n%s", l, want, out)
		}
	}
}
