package main

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/lang"
)

// walk35eSearch is the guide's search of walk 35e on the default
// simulator (saturation 14.3 req/s, --resolution 5), with a 4 req/s step
// that completed every arrival: 15 req/s met with 72 completed in 6 s,
// 9 of them begun before the window; 20 req/s failed its SLOs with
// completions clearly behind the offered rate while the in-flight count
// stayed within 1.96 standard errors of its expected level.
func walk35eSearch(t *testing.T) *capacity.Result {
	t.Helper()
	f := func(v float64) *float64 { return &v }
	load := func(w capacity.LoadWindow) *capacity.LoadCheck {
		lc, err := capacity.CheckLoad(w)
		if err != nil {
			t.Fatal(err)
		}
		return &lc
	}
	return &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Resolution: 5, MaxRate: 200, MaxRateMeeting: f(15), AnswerWithinPerS: f(5), BoundedBy: capacity.BoundFailingStep,
		Steps: []capacity.Step{
			{Rate: 4, Attempts: 64, Qualified: 64, Verdict: capacity.Meets, WindowS: 16, Attainment: f(1), CILow: f(0.943), CIHigh: f(1),
				Load: load(capacity.LoadWindow{OfferedPerS: 4, WindowS: 16, Arrivals: 64, Completions: 64, Resolution: 5})},
			{Rate: 20, Attempts: 61, Qualified: 42, Verdict: capacity.Fails, WindowS: 3, Attainment: f(0.689), CILow: f(0.56), CIHigh: f(0.791),
				Load: load(capacity.LoadWindow{OfferedPerS: 20, WindowS: 3, Arrivals: 61, Completions: 39, InFlightStart: 13, InFlightEnd: 35, ExpectedInFlight: 25.592777, Resolution: 5})},
			{Rate: 15, Attempts: 89, Qualified: 89, Verdict: capacity.Meets, WindowS: 6, Extended: 1, Attainment: f(1), CILow: f(0.959), CIHigh: f(1),
				Load: load(capacity.LoadWindow{OfferedPerS: 15, WindowS: 6, Arrivals: 89, Completions: 72, InFlightStart: 9, InFlightEnd: 26, ExpectedInFlight: 20.564892, Resolution: 5})},
		}}
}

// Walk 35e, F1: "the server can be short of the offered rate by up to
// 4.50/s (≤ --resolution 5/s): keeps up" for 15 req/s above a saturation
// of 14.3. The line says what the window shows, a saturation of at least
// (72 − 9)/6 = 10.50/s, and "within the resolution"; "keeps up" only for
// a window that completed at least the offered rate.
func TestCapacityTextWithinResolutionNotKeepsUp(t *testing.T) {
	r := walk35eSearch(t)
	en, zh := textsHave(t, r, map[lang.Lang]string{
		lang.EN: "    the window shows the server completes at least 10.50/s (saturation ≥ 10.50/s), so it may be short of the offered 15/s by up to 4.50/s (≤ --resolution 5/s): within the resolution\n",
		lang.ZH: "    窗口显示服务器每秒至少完成 10.50 次（饱和吞吐 ≥ 10.50 次/s），所以它可能比提供的 15 次/s 最多少 4.50 次/s（≤ --resolution 5 次/s）：在分辨率以内\n",
	})
	if n := strings.Count(en, ": keeps up\n"); n != 1 || !strings.Contains(en, "the server completed at least the offered rate in the window (a step meets within --resolution 5/s): keeps up\n") || strings.Contains(en, "by 0/s") {
		t.Errorf("English text says keeps up %d times; want once, for the 4 req/s step that completed every arrival:\n%s", n, en)
	}
	if n := strings.Count(zh, "：跟得上\n"); n != 1 {
		t.Errorf("Chinese text says 跟得上 %d times, want once:\n%s", n, zh)
	}
}

// Walk 35e, F2, and walk 35h, item 2: at 20 req/s, offered − completed
// +7.00/s (95% [+2.22, +10.76]) while 61 arrived and in flight went
// 13 → 35 sat beside "the window cannot tell whether it keeps up", the
// overload test then needing both of its signals. Either fails a step
// now: the completions fell behind both the offered rate and the
// arrivals, and the line names that signal and says overload.
func TestCapacityTextCompletionsBehindIsOverload(t *testing.T) {
	r := walk35eSearch(t)
	en, _ := textsHave(t, r, map[lang.Lang]string{
		lang.EN: "    the server can be short of the offered rate by up to 11.34/s (> --resolution 5/s); the completion rate's 95% interval lies wholly below both the offered rate and the window's arrivals (completions fell behind): overload\n",
		lang.ZH: "；完成速率的 95% 区间整个低于提供的速率和窗口里实际到达的速率（完成落后了）：过载\n",
	})
	if n := strings.Count(en, "fell behind"); n != 1 {
		t.Errorf("English text says fell behind %d times, want once (the 20 req/s step):\n%s", n, en)
	}
}

// Walk 35h, item 4: a light window (9 arrivals where 20 were planned,
// all 9 completed) said "completions fell behind". Its line says the
// completions came in below the offered rate but not below what came.
func TestCapacityTextLightWindowNotBehind(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	lc := loadCheck(t, capacity.LoadWindow{OfferedPerS: 2, WindowS: 10, Arrivals: 9, Completions: 9, Resolution: 1})
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Resolution: 1, MaxRate: 8, BoundedBy: capacity.BoundUndecided, Undecided: true, AttemptsToMeet: 35,
		Steps: []capacity.Step{{Rate: 2, Attempts: 9, Qualified: 9, Verdict: capacity.Undecided, WindowS: 10, Attainment: f(1), CILow: f(0.701), CIHigh: f(1), Load: &lc}}}
	en, zh := textsHave(t, r, map[lang.Lang]string{
		lang.EN: "; completions came in below the offered rate (offered − completed 95% [+0.29, +1.59], wholly above 0), but not below the window's arrivals: the server completed what came: the window cannot tell whether it keeps up\n",
		lang.ZH: "；完成的速率低于提供的速率（提供 − 完成的区间 [+0.29, +1.59] 整个高于 0），但不低于窗口里实际到达的：服务器把到达的都完成了：窗口判定不了它跟不跟得上\n",
	})
	if strings.Contains(en, "fell behind") || strings.Contains(zh, "完成落后") {
		t.Errorf("a light window called behind:\n%s\n%s", en, zh)
	}
}

// loadCheck is capacity.CheckLoad of a fixture window, which must be valid.
func loadCheck(t *testing.T, w capacity.LoadWindow) capacity.LoadCheck {
	t.Helper()
	lc, err := capacity.CheckLoad(w)
	if err != nil {
		t.Fatal(err)
	}
	return lc
}

// textsHave checks that r's capacity text holds want[lg] in each language
// given, and returns the English and Chinese texts.
func textsHave(t *testing.T, r *capacity.Result, want map[lang.Lang]string) (en, zh string) {
	t.Helper()
	en, zh = capacityTextIn(lang.EN, r), capacityTextIn(lang.ZH, r)
	for lg, text := range map[lang.Lang]string{lang.EN: en, lang.ZH: zh} {
		if w, ok := want[lg]; ok && !strings.Contains(text, w) {
			t.Errorf("%v text lacks\n%s\n%s", lg, w, text)
		}
	}
	return en, zh
}

// Walk 35i: "4 completed = 1/s" then "the window shows the server
// completes at least 0.00/s (saturation ≥ 0.00/s)". A window whose
// completions were all begun before it shows no saturation of its own,
// and the line says so in those words, in both languages.
func TestCapacityTextNoSaturationShown(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	lc := loadCheck(t, capacity.LoadWindow{OfferedPerS: 0.5, WindowS: 4, Arrivals: 1, Completions: 4, InFlightStart: 4, InFlightEnd: 1, Resolution: 0.5})
	if !lc.WithinResolution() || !lc.NoSaturationShown() {
		t.Fatalf("fixture: %+v", lc)
	}
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, Resolution: 0.5, MaxRate: 2, BoundedBy: capacity.BoundNoRate, AttemptsToMeet: 35,
		Steps: []capacity.Step{{Rate: 0.5, Attempts: 1, Qualified: 0, Verdict: capacity.Undecided, WindowS: 4, Attainment: f(0), CILow: f(0), CIHigh: f(0.793), Load: &lc}}}
	en, zh := textsHave(t, r, map[lang.Lang]string{
		lang.EN: "    the window's 4 completions were all begun before it (4 in flight at its start), so it shows no saturation of its own; the server may be short of the offered 0.5/s by up to 0.50/s (≤ --resolution 0.5/s): within the resolution\n",
		lang.ZH: "    窗口里完成的 4 次都是窗口开始前就发出的（开始时在途 4 次），窗口本身看不出饱和吞吐；服务器可能比提供的 0.5 次/s 最多少 0.50 次/s（≤ --resolution 0.5 次/s）：在分辨率以内\n",
	})
	if strings.Contains(en, "at least 0.00/s") || strings.Contains(zh, "至少完成 0.00 次") {
		t.Errorf("a window that shows no saturation says 0.00:\n%s\n%s", en, zh)
	}
}
