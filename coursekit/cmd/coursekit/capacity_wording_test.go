package main

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// A step meets when its server is short of the offered rate by at most
// --resolution. A saved search whose answer step has no load check says
// the answer may lie up to one resolution above what the server sustains
// (a walk saw 15, 15, 10 on a server saturating at 14.3 req/s with
// --resolution 5), in zh and en.
func TestCapacityAnswerSaysWithinResolution(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	lo, hi := 0.93, 1.0
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Resolution: 5, MaxRate: 40, MaxRateMeeting: f(15), AnswerWithinPerS: f(5), BoundedBy: capacity.BoundFailingStep,
		Steps: []capacity.Step{{Rate: 15, Attempts: 60, Qualified: 60, Verdict: capacity.Meets, Attainment: f(1), CILow: &lo, CIHigh: &hi}, {Rate: 20, Attempts: 80, Qualified: 10, Verdict: capacity.Fails}}}
	en := capacityTextIn(lang.EN, r)
	if !strings.Contains(en, "is 15 req/s, within --resolution 5 req/s: the server may sustain up to 5 req/s less") {
		t.Errorf("English answer:\n%s", en)
	}
	if zh := capacityTextIn(lang.ZH, r); !strings.Contains(zh, "15 次/s，误差在 --resolution 5 次/s 以内：服务器能持续承受的速率可能比它低至多 5 次/s") {
		t.Errorf("Chinese answer:\n%s", zh)
	}
	// At the limit the ≥ is what the steps met, and the resolution is a
	// sentence of its own, not "capacity ≥ 15 …: may sustain … less".
	r.BoundedBy, r.MaxRate = capacity.BoundMaxRate, 15
	en = capacityTextIn(lang.EN, r)
	if !strings.Contains(en, "capacity ≥ 15 req/s (the search's limit, --max-rate): every step met the target up to it") ||
		!strings.Contains(en, "raise --max-rate to find it. A step meets when its window shows the server short of the offered rate by at most --resolution 5 req/s.\n") ||
		strings.Contains(en, "may sustain") {
		t.Errorf("English answer at the limit:\n%s", en)
	}
}

// Walk 35f, item 2: the answer said "within --resolution 1 req/s: the
// server may sustain up to 1 req/s less" while its own step's line said
// "may be short … by up to 0.50/s" (the simulator's 14 req/s) or
// "completed at least the offered rate" (the engine's 1 req/s). The answer
// quotes its step's own margin, the figure of that step's line; at the
// limit, "capacity ≥" and "maybe less" are not one clause.
func TestCapacityAnswerQuotesItsStepsMargin(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	load := func(w capacity.LoadWindow) *capacity.LoadCheck {
		l, err := capacity.CheckLoad(w)
		if err != nil {
			t.Fatal(err)
		}
		return &l
	}
	met := capacity.Step{Rate: 14, Attempts: 59, Qualified: 59, Verdict: capacity.Meets, WindowS: 4, Attainment: f(1), CILow: f(0.939), CIHigh: f(1),
		Load: load(capacity.LoadWindow{OfferedPerS: 14, WindowS: 4, Arrivals: 59, Completions: 57, InFlightStart: 3, InFlightEnd: 5, Resolution: 1})}
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Resolution: 1, MaxRate: 32, MaxRateMeeting: f(14), AnswerWithinPerS: f(1), BoundedBy: capacity.BoundFailingStep,
		Steps: []capacity.Step{met, {Rate: 15, Attempts: 80, Qualified: 10, Verdict: capacity.Fails}}}
	en := capacityTextIn(lang.EN, r)
	for _, want := range []string{
		"may be short of the offered 14/s by up to 0.50/s",
		"Answer: the highest rate that meets the target is 14 req/s, and its window shows the server may sustain up to 0.50 req/s less (its keep-up bound; a step meets within --resolution 1 req/s) (qualified 100.0%",
	} {
		if !strings.Contains(en, want) {
			t.Errorf("English text lacks %q:\n%s", want, en)
		}
	}
	if strings.Contains(en, "up to 1 req/s less") {
		t.Errorf("English answer quotes the resolution:\n%s", en)
	}
	zh := capacityTextIn(lang.ZH, r)
	if want := "结论：达标的最高速率是 14 次/s，该步窗口显示服务器能持续承受的速率可能比它低至多 0.50 次/s（该步测出的差额；一步在 --resolution 1 次/s 以内即可达标）（该步联合合格"; !strings.Contains(zh, want) {
		t.Errorf("Chinese text lacks %q:\n%s", want, zh)
	}
	// At the limit: the ≥ is what the steps met; the margin what the
	// step's window could show, in a sentence of its own.
	r.BoundedBy, r.MaxRate, r.Steps = capacity.BoundMaxRate, 14, r.Steps[:1]
	en = capacityTextIn(lang.EN, r)
	if want := "every step met the target up to it and no rate failed, so this is not a measured capacity; raise --max-rate to find it. The 14 req/s step's window shows the server completes at least 13.50 req/s (up to 0.50 req/s short of the offered rate: its keep-up bound; a step meets within --resolution 1 req/s).\n"; !strings.Contains(en, want) || strings.Contains(en, "may sustain") {
		t.Errorf("English answer at the limit lacks %q:\n%s", want, en)
	}
	if want := "请提高 --max-rate。14 次/s 这一步的窗口显示服务器每秒至少完成 13.50 次（最多比提供的速率少 0.50 次/s；"; !strings.Contains(capacityTextIn(lang.ZH, r), want) {
		t.Errorf("Chinese answer at the limit lacks %q", want)
	}
	// The engine's 1 req/s: 44 completed in 40 s, 1 begun before; a bound
	// of −0.075 is a window that completed at least the offered rate.
	one := capacity.Step{Rate: 1, Attempts: 44, Qualified: 44, Verdict: capacity.Meets, WindowS: 40, Attainment: f(1), CILow: f(0.92), CIHigh: f(1),
		Load: load(capacity.LoadWindow{OfferedPerS: 1, WindowS: 40, Arrivals: 44, Completions: 44, InFlightStart: 1, InFlightEnd: 1, Resolution: 1})}
	r = &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Resolution: 1, MaxRate: 4, MaxRateMeeting: f(1), AnswerWithinPerS: f(1), BoundedBy: capacity.BoundFailingStep,
		Steps: []capacity.Step{one, {Rate: 2, Attempts: 86, Qualified: 47, Verdict: capacity.Fails}}}
	en = capacityTextIn(lang.EN, r)
	for _, want := range []string{
		"    the server completed at least the offered rate in the window (a step meets within --resolution 1/s): keeps up\n",
		"    in the overload test's 40.0 s window: 44 completed = 1.1/s (95% interval [0.79, 1.48]), offered 1/s; offered − completed −0.10/s (95% interval [−0.48, +0.21])",
		"Answer: the highest rate that meets the target is 1 req/s, and its window completed at least the offered rate (a step meets within --resolution 1 req/s) (qualified",
	} {
		if !strings.Contains(en, want) {
			t.Errorf("English text lacks %q:\n%s", want, en)
		}
	}
	if strings.Contains(en, "may sustain") || strings.Contains(en, "by 0/s") || strings.Contains(en, "-0.") {
		t.Errorf("English text:\n%s", en)
	}
	zh = capacityTextIn(lang.ZH, r)
	for _, want := range []string{"提供 − 完成 −0.10 次/s（95% 区间 [−0.48, +0.21]）", "结论：达标的最高速率是 1 次/s，该步窗口完成的速率不低于提供的速率（一步在 --resolution 1 次/s 以内即可达标）（"} {
		if !strings.Contains(zh, want) {
			t.Errorf("Chinese text lacks %q:\n%s", want, zh)
		}
	}
}

// A 5 req/s step printed "short of the offered rate by up to 2.72/s (≤
// --resolution 5/s): overload" while its client woke up to 606 ms late.
// The line says the overload test failed, not the bound, and that the
// client was late.
func TestCapacityOverloadWithinResolutionText(t *testing.T) {
	lc, err := capacity.CheckLoad(capacity.LoadWindow{OfferedPerS: 5, WindowS: 10, Arrivals: 50, Completions: 25, InFlightStart: 2, InFlightEnd: 27, Resolution: 5})
	if err != nil || !lc.BoundWithinResolution() {
		t.Fatalf("fixture %+v, %v", lc, err)
	}
	s := capacity.Step{Rate: 5, Attempts: 50, Qualified: 50, Verdict: capacity.Fails, Reason: lc.Reason(), Load: &lc,
		ClientLag: &metrics.ClientLag{Attempts: 50, OverBound: 12, BoundMS: 5, MaxMS: 606}}
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Resolution: 5, MaxRate: 40, BoundedBy: capacity.BoundNoRate, Steps: []capacity.Step{s}}
	en := capacityTextIn(lang.EN, r)
	if strings.Contains(en, "5/s): overload") || strings.Contains(en, "in-flight slope") {
		t.Errorf("English text calls within resolution overload, or the slope what it is not:\n%s", en)
	}
	for _, want := range []string{"offered − completed +2.50/s", "by up to 2.70/s, within --resolution 5/s; but the overload test failed", "the client was late (next line)", "client late: "} {
		if !strings.Contains(en, want) {
			t.Errorf("English text lacks %q:\n%s", want, en)
		}
	}
	zh := capacityTextIn(lang.ZH, r)
	for _, want := range []string{"提供 − 完成 +2.50 次/s", "在 --resolution 5 次/s 以内；但过载检验不通过", "客户端迟到了"} {
		if !strings.Contains(zh, want) {
			t.Errorf("Chinese text lacks %q:\n%s", want, zh)
		}
	}
}

// A search that stopped before a rate that could not meet within
// --step-max-duration says so, with the lowest rate that could.
func TestCapacityStoppedBeforeText(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Resolution: 0.1, MaxRate: 40, AttemptsToMeet: 35, StepMaxDurationS: 40, Undecided: true, StoppedBefore: f(0.45),
		Steps: []capacity.Step{{Rate: 0.9, Attempts: 32, Qualified: 32, Verdict: capacity.Undecided}}}
	en := capacityTextIn(lang.EN, r)
	if !strings.Contains(en, "stopped before 0.45 req/s: below 0.875 req/s (35 ÷ --step-max-duration 40 s)") {
		t.Errorf("English text:\n%s", en)
	}
	if zh := capacityTextIn(lang.ZH, r); !strings.Contains(zh, "搜索在 0.45 次/s 之前停下：低于 0.875 次/s") {
		t.Errorf("Chinese text:\n%s", zh)
	}
}
