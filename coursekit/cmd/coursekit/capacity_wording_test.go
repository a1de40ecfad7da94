package main

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// A step meets when its server is short of the offered rate by at most
// --resolution, so an answer can lie up to one resolution above what the
// server sustains (a walk saw 15, 15, 10 on a server saturating at 14.3
// req/s with --resolution 5): the answer line says so, in zh and en.
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
	r.BoundedBy, r.MaxRate = capacity.BoundMaxRate, 15
	if en := capacityTextIn(lang.EN, r); !strings.Contains(en, "capacity ≥ 15 req/s (the search's limit, --max-rate), within --resolution 5 req/s") {
		t.Errorf("English answer at the limit:\n%s", en)
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
