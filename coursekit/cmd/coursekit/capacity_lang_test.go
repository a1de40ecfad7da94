package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

var updateCapacity = flag.Bool("update-capacity", false, "rewrite testdata/capacity_zh.golden")

// capacityResults are searches that reach every line of capacityText: an
// answer, no answer, an interrupted search, latency SLOs, an empty step.
// Each step's interval and verdict come from capacity.Verdict, as a real
// search's do, so the golden text never pins a verdict the Wilson rule
// would not give (20 of 20 is undecided at 0.9, not meets).
func capacityResults() []*capacity.Result {
	f := func(v float64) *float64 { return &v }
	step := func(rate float64, q, n int64, windowS float64, extended int) capacity.Step {
		s := capacity.Step{Rate: rate, Attempts: n, Qualified: q, WindowS: windowS, Extended: extended}
		v, lo, hi, ok := capacity.Verdict(q, n, 0.9)
		s.Verdict = v
		if ok {
			s.Attainment, s.CILow, s.CIHigh = f(float64(q)/float64(n)), &lo, &hi
		}
		return s
	}
	steps := []capacity.Step{
		step(1, 40, 40, 40, 1),                   // meets: Wilson [91.2 %, 100 %]
		step(2, 33, 40, 20, 1),                   // undecided: [68.1 %, 91.3 %] holds 0.9
		step(4, 20, 80, 20, 0),                   // fails: [16.8 %, 35.5 %]
		{Rate: 3, Verdict: capacity.Interrupted}, // no attempt in its window
	}
	// A step that met its SLOs while the server fell behind: overload.
	lc, err := capacity.OverloadTest(110, 30, 3300, 3000, 40, 340)
	if err != nil || !lc.Overloaded {
		panic(fmt.Sprintf("fixture overload %+v, %v", lc, err))
	}
	over := step(110, 3300, 3300, 30, 0)
	over.Verdict, over.Reason, over.Load = capacity.Fails, lc.Reason(), &lc
	kept, err := capacity.OverloadTest(50, 20, 1000, 1001, 6, 5)
	if err != nil || kept.Overloaded {
		panic(fmt.Sprintf("fixture keeping up %+v, %v", kept, err))
	}
	met := step(50, 1000, 1000, 20, 0)
	met.Load = &kept
	// A step whose schedule happened to be light: 8 arrivals in 40 s at
	// 0.45 req/s, where λW = 18 were expected (issue 35).
	lightLoad, err := capacity.CheckLoad(capacity.LoadWindow{OfferedPerS: 0.45, WindowS: 40, Arrivals: 8, Completions: 8, Resolution: 0.1})
	if err != nil || !lightLoad.ArrivalsShort {
		panic(fmt.Sprintf("fixture light schedule %+v, %v", lightLoad, err))
	}
	light := step(0.45, 8, 8, 40, 1)
	light.Load = &lightLoad
	// A search run again (--previous): the same answer, and one that
	// differs with every kind of reason.
	again := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Steps: steps[:3], MaxRateMeeting: f(1), BoundedBy: capacity.BoundFailingStep, MaxRate: 8, ElapsedS: 42.5}
	sameAg := capacity.Again(again, again)
	sameAg.Previous = "first.json"
	twice := *again
	twice.Again = &sameAg
	prevStep, thisStep := step(2, 40, 40, 20, 1), steps[1]
	prevStep.LoadAvg, thisStep.LoadAvg = &capacity.LoadAvg{Start: 1.2, End: 1.6}, &capacity.LoadAvg{Start: 8.4, End: 9.1}
	at := func(kind string) capacity.Why {
		return capacity.Why{Kind: kind, Rate: f(2), Previous: &prevStep, This: &thisStep}
	}
	differ := *again
	differ.Again = &capacity.Agreement{Previous: "first.json", PreviousAnswer: f(2), Answer: f(1), PreviousBound: capacity.BoundFailingStep, Bound: capacity.BoundFailingStep, Resolution: 1,
		Reasons: []capacity.Why{{Kind: capacity.WhyFlagsDiffer, Flags: []string{"--max-rate 8 vs 16"}}, {Kind: capacity.WhyInterrupted}, {Kind: capacity.WhyWithinResolution},
			at(capacity.WhyIntervalsOverlap), at(capacity.WhyUndecided), at(capacity.WhyOverload), at(capacity.WhyLoadAverage), at(capacity.WhyUnexplained), {Kind: capacity.WhyUnexplained}}}
	return []*capacity.Result{
		&twice, &differ,
		{Target: 0.9, SLOTTFTMS: 1000, Steps: []capacity.Step{met, over}, MaxRateMeeting: f(50), BoundedBy: capacity.BoundFailingStep, MaxRate: 200, ElapsedS: 60},
		{Target: 0.9, SLOTTFTMS: 1000, Steps: steps[:1], MaxRateMeeting: f(1), BoundedBy: capacity.BoundMaxRate, MaxRate: 1, ElapsedS: 40},
		{Target: 0.9, SLOTTFTMS: 1000, Steps: steps[:3], MaxRateMeeting: f(1), ElapsedS: 42.5},
		{Target: 0.95, SLOTTFTMS: 500, LatencySLO: metrics.LatencySLO{E2EMS: 2000, ITLP95MS: 50, TPOTMS: 40}, Steps: steps[2:3], ElapsedS: 12},
		{Target: 0.9, SLOTTFTMS: 1000, Steps: steps, MaxRateMeeting: f(1), Provisional: true, ElapsedS: 50},
		{Target: 0.9, SLOTTFTMS: 1000, Steps: []capacity.Step{light}, Undecided: true, AttemptsToMeet: 35, ElapsedS: 80},
		// Interrupted in the warm-up of its extended run: it measured nothing.
		{Target: 0.9, SLOTTFTMS: 1000, Steps: append(steps[:1:1], capacity.Step{Rate: 2, Verdict: capacity.Interrupted, Extended: 1, BeforeWindow: true}), MaxRateMeeting: f(1), Provisional: true, ElapsedS: 45},
	}
}

// The fixtures keep the rule: every verdict is the one the Wilson interval
// gives at its search's target, except an overloaded step, which fails.
func TestCapacityFixturesFollowTheWilsonRule(t *testing.T) {
	for _, r := range capacityResults() {
		for _, s := range r.Steps {
			if s.Verdict == capacity.Interrupted || s.Overloaded() { // overload fails whatever the attainment
				continue
			}
			if v, _, _, _ := capacity.Verdict(s.Qualified, s.Attempts, r.Target); v != s.Verdict {
				t.Errorf("target %g, %g req/s: %d / %d is %s by the Wilson rule, the fixture says %s", r.Target, s.Rate, s.Qualified, s.Attempts, v, s.Verdict)
			}
		}
	}
}

// The Chinese capacity summary is pinned byte for byte; the English one has
// no Chinese character or full-width punctuation.
func TestCapacityTextLang(t *testing.T) {
	var zh strings.Builder
	for _, r := range capacityResults() {
		zh.WriteString(capacityText(r) + "---\n")
	}
	path := filepath.Join("testdata", "capacity_zh.golden")
	if *updateCapacity {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(zh.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if zh.String() != string(want) {
		t.Errorf("Chinese capacity text changed:\n%s\nwant:\n%s", zh.String(), want)
	}
	for _, r := range capacityResults() {
		en := capacityTextIn(lang.EN, r)
		noCJK(t, "capacity --lang en", en)
		if !strings.Contains(en, "Capacity search") {
			t.Errorf("not the English summary:\n%s", en)
		}
	}
}

// capacity refuses a bad --lang before sending any load.
func TestCapacityLangRefused(t *testing.T) {
	t.Setenv(lang.EnvVar, "")
	code, _, errs := runCLI(t, "capacity", "--lang", "fr", "--out", t.TempDir())
	if code != 2 || !strings.Contains(errs, "--lang") || !strings.Contains(errs, "want zh or en") {
		t.Errorf("exit %d: %q", code, errs)
	}
}

// capacity --lang en --chart writes an English page: its text, both
// figures and the steps' lines (the inlined ECharts library aside), as the
// text on stdout is English.
func TestCapacityChartEnglish(t *testing.T) {
	t.Setenv(lang.EnvVar, "")
	addr := startSimCLI(t, "--max-batch", "8", "--decode-step", "2ms", "--decode-per-seq", "0", "--prefill-per-token", "0", "--max-tokens", "4")
	dir := t.TempDir()
	chart := filepath.Join(dir, "capacity.html")
	code, stdout, stderr := runCLI(t, "capacity", "--lang", "en", "--url", "http://"+addr, "--max-tokens", "4", "--slo-ttft", "1s", "--slo-e2e", "10s",
		"--target", "0.5", "--start-rate", "20", "--max-rate", "30", "--warmup", "0s", "--step-duration", "1s", "--step-max-duration", "1s",
		"--out", filepath.Join(dir, "steps"), "--chart", chart)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	noCJK(t, "capacity --lang en (text)", stdout)
	page := pageText(t, chart)
	noCJK(t, "capacity --lang en --chart", page)
	for _, want := range []string{`<html lang="en">`, "Capacity search", "offered rate (req/s, open-loop Poisson)", "E2E ≤ 10 s"} {
		if !strings.Contains(page, want) {
			t.Errorf("English capacity page lacks %q", want)
		}
	}
}

// --previous beside an all-undecided search: "undecided" is not "no rate
// meets" in either language, and the answers are not called the same.
func TestCapacityAgainUndecidedText(t *testing.T) {
	ag := capacity.Agreement{Previous: "first.json", PreviousBound: capacity.BoundUndecided, Bound: capacity.BoundNoRate, Reasons: []capacity.Why{}}
	for lg, want := range map[lang.Lang][2]string{lang.EN: {"a different answer, undecided", "no rate meets now"}, lang.ZH: {"结论不同，上一次 尚无定论", "这一次 没有达标的速率"}} {
		if text := capacityAgainIn(lg, &ag); !strings.Contains(text, want[0]) || !strings.Contains(text, want[1]) {
			t.Errorf("%v: %q, want %q and %q", lg, text, want[0], want[1])
		}
	}
}

// --previous beside the same answer whose steps were judged differently
// (one failed at 0.5 req/s, the other stayed undecided there): the text
// says the answer is the same and names the step in each search, in both
// languages (walk 35h, item 3).
func TestCapacityAgainSameAnswerDifferentSteps(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rate := 0.5
	failed := capacity.Step{Rate: rate, Verdict: capacity.Fails, Qualified: 10, Attempts: 19, CILow: f(0.317), CIHigh: f(0.727)}
	undecided := capacity.Step{Rate: rate, Verdict: capacity.Undecided, Qualified: 23, Attempts: 23, CILow: f(0.857), CIHigh: f(1)}
	ag := capacity.Agreement{Previous: "first.json", Same: true, StepsDiffer: true, PreviousBound: capacity.BoundNoRate, Bound: capacity.BoundNoRate,
		Reasons: []capacity.Why{{Kind: capacity.WhyUndecided, Rate: &rate, Previous: &failed, This: &undecided}}}
	for lg, want := range map[lang.Lang][]string{
		lang.EN: {"the same answer, no rate meets", "judged a rate they both ran differently", "    - at 0.5 req/s one search's step was still undecided", "10 / 19 qualified", "23 / 23 qualified"},
		lang.ZH: {"结论相同，没有达标的速率", "判定不同", "    - 0.5 次/s 这一步有一次到最长窗口仍无定论", "10 / 19 合格", "23 / 23 合格"},
	} {
		text := capacityAgainIn(lg, &ag)
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: %q lacks %q", lg, text, w)
			}
		}
	}
}

// A step whose window had clearly fewer arrivals than offered says so under
// its keep-up line, in both languages; a step with the arrivals offered
// does not (issue 35).
func TestCapacityTextArrivalsShort(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	light := loadCheck(t, capacity.LoadWindow{OfferedPerS: 0.45, WindowS: 40, Arrivals: 8, Completions: 8, Resolution: 0.1})
	normal := loadCheck(t, capacity.LoadWindow{OfferedPerS: 0.45, WindowS: 40, Arrivals: 18, Completions: 18, Resolution: 0.1})
	res := func(l capacity.LoadCheck) *capacity.Result {
		s := capacity.Step{Rate: 0.45, Attempts: 8, Qualified: 8, WindowS: 40, Verdict: capacity.Undecided, Attainment: f(1), CILow: f(0.68), CIHigh: f(1), Load: &l}
		return &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Steps: []capacity.Step{s}, Undecided: true, AttemptsToMeet: 35}
	}
	for _, c := range []struct {
		lg   lang.Lang
		want string
	}{
		{lang.ZH, "    到达 8 次（窗口 40.0 s），而按提供的速率应有 λW ≈ 18.0 次：这个窗口测的负载比 λ 轻；上一行的界仍按 λ 计算\n"},
		{lang.EN, "    8 arrivals in 40.0 s where λW ≈ 18.0 were expected: this window tested a lighter load than λ; the bound is against λ\n"},
	} {
		if got := capacityTextIn(c.lg, res(light)); !strings.Contains(got, c.want) {
			t.Errorf("%s, light schedule: no %q in\n%s", c.lg, c.want, got)
		}
		if got := capacityTextIn(c.lg, res(normal)); strings.Contains(got, "λW") {
			t.Errorf("%s, 18 arrivals of 18: the arrivals sentence in\n%s", c.lg, got)
		}
	}
	// The English line is the step's reason's sentence, word for word.
	if en := cardfmt.CapacityArrivalsShortIn(lang.EN, light); en != light.ArrivalsShortReason() {
		t.Errorf("text %q, reason %q", en, light.ArrivalsShortReason())
	}
}
