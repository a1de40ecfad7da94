package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/lang"
)

// walk35gSteps are finished steps with every kind of reason a search
// gives: met within the resolution (the walk's 4 req/s step, 56 / 56),
// failed, undecided with too few attempts, failed on overload, stopped
// early, interrupted, interrupted before its window.
func walk35gSteps(t *testing.T) []capacity.Step {
	t.Helper()
	f := func(v float64) *float64 { return &v }
	step := func(rate float64, q, n int64) capacity.Step {
		s := capacity.Step{Rate: rate, Attempts: n, Qualified: q, WindowS: 16, Trace: "steps/step-01.jsonl"}
		v, lo, hi, ok := capacity.Verdict(q, n, 0.9)
		s.Verdict = v
		if ok {
			s.Attainment, s.CILow, s.CIHigh = f(float64(q)/float64(n)), &lo, &hi
		}
		return s
	}
	within, err := capacity.CheckLoad(capacity.LoadWindow{OfferedPerS: 4, WindowS: 16, Arrivals: 56, Completions: 57, InFlightStart: 1, InFlightEnd: 0, ExpectedInFlight: 0.79, Resolution: 1})
	if err != nil || !within.WithinResolution() {
		t.Fatalf("fixture within the resolution %+v, %v", within, err)
	}
	met := step(4, 56, 56)
	met.Load = &within
	met.Reason = "Wilson lower bound 93.6% ≥ target 90%; within the resolution: …"
	over, err := capacity.CheckLoad(capacity.LoadWindow{OfferedPerS: 110, WindowS: 30, Arrivals: 3300, Completions: 3000, InFlightStart: 40, InFlightEnd: 340, Resolution: 10})
	if err != nil || !over.Overloaded {
		t.Fatalf("fixture overload %+v, %v", over, err)
	}
	overloaded := step(110, 3000, 3000)
	overloaded.Verdict, overloaded.Load, overloaded.Reason = capacity.Fails, &over, over.Reason()
	early := step(110, 200, 200)
	early.Verdict, early.Load, early.Reason, early.InFlight = capacity.Fails, &over, "stopped early: "+over.Reason(), 12
	lateOver := overloaded
	lag := 120.0
	lateOver.SendLagP99MS = &lag
	lateOver.Reason += "; but the client was late (send lag P99 120 ms): …"
	failed := step(8, 20, 80)
	failed.Reason = "Wilson upper bound 35.5% < target 90%"
	short := step(0.5, 12, 13)
	short.Reason = "Wilson interval [66.7%, 98.6%] holds the target 90%; too few attempts: 13, and meeting it needs at least 35 even if all qualify (…)"
	return []capacity.Step{met, failed, short, overloaded, early, lateOver,
		{Rate: 3, Verdict: capacity.Interrupted, Reason: "the search was interrupted during this step", Trace: "t"},
		{Rate: 2, Verdict: capacity.Interrupted, BeforeWindow: true, Reason: "the search was interrupted before this step's window began (in its warm-up): nothing was measured", Trace: "t"}}
}

// englishRun is two English words in a row ("lower bound", "within the
// resolution", "req/s: …" aside): a Chinese line holds none, flags and
// the name Wilson aside.
var englishRun = regexp.MustCompile(`[A-Za-z]{2,}[ ,;:]+[A-Za-z]{2,}`)

// Under the default Chinese, a finished step's stderr line printed the
// step's English reason inside Chinese ("达标（Wilson lower bound 0.936 ≥
// target 0.9; within the resolution: …）", walk 35g, F3): it is built in
// Chinese from the same figures; in English it is the step's reason, as in
// the JSON.
func TestCapacityStepLineInTheRunsLanguage(t *testing.T) {
	for _, s := range walk35gSteps(t) {
		zh := capacityStepLine(lang.ZH, s, 0.9)
		body := strings.TrimSuffix(strings.TrimPrefix(zh, "coursekit capacity: "), s.Trace+"\n")
		if m := englishRun.FindString(body); m != "" {
			t.Errorf("%g req/s (%s): English %q in the Chinese line:\n%s", s.Rate, s.Verdict, m, zh)
		}
		if i, _ := lang.FirstCJK(body); i < 0 {
			t.Errorf("%g req/s: not Chinese: %s", s.Rate, zh)
		}
		en := capacityStepLine(lang.EN, s, 0.9)
		if !strings.Contains(en, "("+s.Reason+")") {
			t.Errorf("%g req/s: the English line lacks the step's reason %q:\n%s", s.Rate, s.Reason, en)
		}
		noCJK(t, "capacity step line", en)
	}
	// A late client's evidence is said inline: a stderr line has no next
	// line to point to.
	late := capacityStepLine(lang.ZH, walk35gSteps(t)[5], 0.9)
	if !strings.Contains(late, "但客户端迟到：发送延迟 P99 120 ms") || strings.Contains(late, "见下一行") {
		t.Errorf("the late client's step line:\n%s", late)
	}
	met := capacityStepLine(lang.ZH, walk35gSteps(t)[0], 0.9)
	for _, want := range []string{"达标（Wilson 下界 93.6% ≥ 目标 90%；", "--resolution 1 次/s", "在分辨率以内"} {
		if !strings.Contains(met, want) {
			t.Errorf("the met step's line lacks %q:\n%s", want, met)
		}
	}
}

// A warm-up backlog gets a line under its step, in either language; a
// step without one gets none (walk 35g, F2).
func TestCapacityTextWarmupBacklog(t *testing.T) {
	load := loadCheck(t, capacity.LoadWindow{OfferedPerS: 0.5, WindowS: 10, Arrivals: 4, Completions: 7, InFlightStart: 4, InFlightEnd: 2, ExpectedInFlight: 1.9, Resolution: 0.25})
	s := capacity.Step{Rate: 0.5, Attempts: 5, Verdict: capacity.Fails, WindowS: 10, Load: &load, WarmupArrivals: 6, WarmupArrivalsPlanned: 1}
	s.WarmupBacklog = capacity.WarmupBacklogged(0.5, 2, 6, 4, load.ExpectedInFlight)
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Steps: []capacity.Step{s}, BoundedBy: capacity.BoundNoRate, ElapsedS: 14}
	for _, c := range []struct {
		lg   lang.Lang
		want string
	}{
		{lang.ZH, "    预热积压：预热里到达 6 次，按计划约 1.0 次，窗口开始时仍有 4 次在途（跟得上的服务器约 1.9 次）：预热的到达排进了窗口，窗口最初的尝试要在它们后面等；换一个 --seed 会抽到另一个到达序列\n"},
		{lang.EN, "    warm-up backlog: the warm-up drew 6 arrivals where about 1.0 were planned, and the window started with 4 in flight (a server keeping up holds about 1.9): the warm-up's arrivals queued into the window, so its first attempts waited behind them; another --seed draws another schedule\n"},
	} {
		if text := capacityTextIn(c.lg, r); !strings.Contains(text, c.want) {
			t.Errorf("%s: no warm-up backlog line %q:\n%s", c.lg, c.want, text)
		}
	}
	r.Steps[0].WarmupBacklog = false
	if text := capacityTextIn(lang.EN, r); strings.Contains(text, "warm-up backlog") {
		t.Errorf("a line without a backlog:\n%s", text)
	}
}

// --previous with the same --seed: the repeat replayed the same arrivals,
// said in either language under a same or a different answer; beside a
// search that did not record its seed, nothing (walk 35g, F2).
func TestCapacityAgainSameSeedText(t *testing.T) {
	seed := uint64(2083)
	f := func(v float64) *float64 { return &v }
	for _, ag := range []capacity.Agreement{
		{Previous: "first.json", Same: true, Bound: capacity.BoundNoRate, PreviousBound: capacity.BoundNoRate, Reasons: []capacity.Why{}, SameSeed: true, Seed: &seed},
		{Previous: "first.json", PreviousAnswer: f(2), Answer: f(1), Bound: capacity.BoundFailingStep, PreviousBound: capacity.BoundFailingStep, Resolution: 1,
			Reasons: []capacity.Why{{Kind: capacity.WhyWithinResolution}}, SameSeed: true, Seed: &seed},
	} {
		zh, en := capacityAgainIn(lang.ZH, &ag), capacityAgainIn(lang.EN, &ag)
		if !strings.Contains(zh, "两次搜索用的是同一个 --seed 2083") || !strings.Contains(zh, "请换一个 --seed") {
			t.Errorf("same %v: the Chinese lacks the same seed:\n%s", ag.Same, zh)
		}
		if !strings.Contains(en, "both searches used --seed 2083: a step's arrival schedule comes from --seed and its rate, so every rate both ran replayed the same arrivals; the repeat checks the server's variation, not the schedule's; for an independent check, give another --seed.") {
			t.Errorf("same %v: the English lacks the same seed:\n%s", ag.Same, en)
		}
		ag.SameSeed, ag.Seed = false, nil
		if en := capacityAgainIn(lang.EN, &ag); strings.Contains(en, "--seed") {
			t.Errorf("no seed recorded, yet:\n%s", en)
		}
	}
}
