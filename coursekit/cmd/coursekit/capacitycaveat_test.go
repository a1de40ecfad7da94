package main

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// A search states the max_tokens every request sends, and words its rule
// without "∧ quality pass" when it judges no answer. One whose every step
// is undecided (8 and 10 req/s for 1.5 s: about 12 and 15 attempts, where meeting 0.9
// needs 35 even if all qualify) answers "undecided" and why, in text (both
// languages), JSON and the chart: never "no rate searched meets the
// target", which only a failing step can say. The SLOs are loose, and a
// step of about 15 fails only when 4 of them miss, so that a loaded
// machine does not turn "undecided" into "fails": at load
// average 12 the earlier steps of two attempts each (1 and 0.5 req/s, 2 s)
// had both attempts miss the 1 s TTFT SLO or end after the window, and
// 0/2 fails the target.
func TestCapacityAllUndecided(t *testing.T) {
	addr := startSimCLI(t, "--decode-step", "1ms", "--max-tokens", "4")
	dir := t.TempDir()
	search := func(out string, extra ...string) (string, string) {
		args := append([]string{"capacity", "--url", "http://" + addr, "--max-tokens", "4", "--slo-ttft", "30s", "--slo-e2e", "60s", "--start-rate", "8", "--max-rate", "10", "--resolution", "0.5",
			"--step-duration", "1500ms", "--step-max-duration", "1500ms", "--warmup", "0s", "--out", filepath.Join(dir, out)}, extra...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("capacity exit %d: %s", code, stderr)
		}
		return stdout, stderr
	}
	text, _ := search("zh", "--chart", filepath.Join(dir, "zh.html"))
	en, _ := search("en", "--lang", "en")
	js, _ := search("js", "--format", "json")
	var res capacity.Result
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Steps {
		if s.Verdict != capacity.Undecided || !strings.Contains(s.Reason, "too few attempts") {
			t.Fatalf("step %+v: want undecided for too few attempts", s)
		}
	}
	if !strings.Contains(text, "每个请求都发送 max_tokens 4（--max-tokens）") || !strings.Contains(en, "Every request sends max_tokens 4 (--max-tokens)") || res.MaxTokens != 4 {
		t.Errorf("the search does not state the max_tokens it sends (JSON %d):\n%s\n%s", res.MaxTokens, text, en)
	}
	// No dataset: the rule holds no quality pass, and says so.
	if strings.Contains(text, "质量通过") || !strings.Contains(text, "未评质量：只按时延判定") || strings.Contains(en, "quality pass") || res.QualityJudged {
		t.Errorf("a search without a dataset words its rule with a quality pass:\n%s\n%s", text, en)
	}
	if !res.Undecided || res.AttemptsToMeet != 35 || res.MaxRateMeeting != nil {
		t.Errorf("JSON: undecided %v, attempts_to_meet %d, answer %v", res.Undecided, res.AttemptsToMeet, res.MaxRateMeeting)
	}
	page, err := os.ReadFile(filepath.Join(dir, "zh.html"))
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string][2]string{
		"text":  {text, "结论：尚无定论"},
		"en":    {en, "Answer: undecided"},
		"chart": {html.UnescapeString(string(page)), "结论：尚无定论"},
	} {
		if !strings.Contains(v[0], v[1]) || !strings.Contains(v[0], "35") {
			t.Errorf("%s lacks %q and the 35 attempts needed:\n%s", name, v[1], v[0])
		}
		if strings.Contains(v[0], "没有一个达标") || strings.Contains(v[0], "no rate searched meets") {
			t.Errorf("%s says no rate meets, with no failing step:\n%s", name, v[0])
		}
	}
}

// The walk's answer step: 14.5 req/s offered, 11.6/s completed in a 4 s
// window, in flight 1 → 17 (46 completed, 62 arrived) against the level
// of 12 a server keeping up holds there. The in-flight count rose, but
// not 2.58 standard errors over that level, and the completions' interval
// still reaches the offered rate, so the overload test cannot decide: the load check says so, with the
// window that would, and the answer carries the caveat in text (both
// languages), JSON and chart; an answer whose step kept up carries none.
func TestCapacityAnswerGrowingQueueCaveat(t *testing.T) {
	// At --resolution 1: its completions show a saturation of at least
	// (46 − 1)/4 = 11.25/s, 3.25/s short of the offered rate.
	lc := loadCheck(t, capacity.LoadWindow{OfferedPerS: 14.5, WindowS: 4, Arrivals: 62, Completions: 46, InFlightStart: 1, InFlightEnd: 17, ExpectedInFlight: 12, Resolution: 1})
	if lc.Overloaded || !lc.GrowingUndecided || lc.DecideWindowS == nil || !(*lc.DecideWindowS > 4) {
		t.Fatalf("load check %+v: want growing, undecided, and a longer window to decide", lc)
	}
	kept, _ := capacity.CheckLoad(capacity.LoadWindow{OfferedPerS: 14.5, WindowS: 4, Arrivals: 58, Completions: 57, InFlightStart: 1, InFlightEnd: 2, Resolution: 1})
	if kept.GrowingUndecided {
		t.Fatalf("a step that kept up is called growing: %+v", kept)
	}
	result := func(l capacity.LoadCheck) *capacity.Result {
		r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, MaxRate: 32, BoundedBy: capacity.BoundFailingStep, AttemptsToMeet: 35,
			Steps: []capacity.Step{{Rate: 14.5, Attempts: 58, Qualified: 58, Verdict: capacity.Meets, Load: &l},
				{Rate: 29, Attempts: 110, Qualified: 20, Verdict: capacity.Fails}}}
		r.MaxRateMeeting = &r.Steps[0].Rate
		r.AnswerQueueGrowing = l.GrowingUndecided // as Search sets it
		return r
	}
	views := func(r *capacity.Result) map[string]string {
		var page bytes.Buffer
		if err := labfig.WriteCapacityPage(&page, lab.CapacityChart(r), lang.ZH); err != nil {
			t.Fatal(err)
		}
		var js bytes.Buffer
		if err := writeCapacityJSON(&js, r); err != nil {
			t.Fatal(err)
		}
		return map[string]string{"text": capacityTextIn(lang.ZH, r), "en": capacityTextIn(lang.EN, r), "chart": html.UnescapeString(page.String()), "json": js.String()}
	}
	want := map[string]string{"text": "在途 1 → 17", "en": "in flight 1 → 17", "chart": "在途 1 → 17", "json": `"answer_queue_growing": true`}
	for name, v := range views(result(lc)) {
		if !strings.Contains(v, want[name]) {
			t.Errorf("%s lacks the caveat %q:\n%s", name, want[name], v)
		}
	}
	for name, v := range views(result(kept)) {
		if strings.Contains(v, "看起来在增长") || strings.Contains(v, "looks like a growing queue") || strings.Contains(v, `"answer_queue_growing": true`) {
			t.Errorf("%s: a caveat on a step that kept up:\n%s", name, v)
		}
	}
}

// Each step says, as the card does, how late the client was: its wake-up
// lag over the bound and a send lag P99 over its bound; a punctual step
// says nothing.
func TestCapacityStepClientLateness(t *testing.T) {
	p99 := 40.0
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, MaxRate: 8, Steps: []capacity.Step{
		{Rate: 4, Attempts: 40, Qualified: 40, Verdict: capacity.Meets, ClientLag: &metrics.ClientLag{Attempts: 40, OverBound: 6, BoundMS: 5, MaxMS: 131}, SendLagP99MS: &p99},
		{Rate: 8, Attempts: 80, Qualified: 80, Verdict: capacity.Meets, ClientLag: &metrics.ClientLag{Attempts: 80, BoundMS: 5, MaxMS: 1.2}},
	}}
	zh, en := capacityTextIn(lang.ZH, r), capacityTextIn(lang.EN, r)
	for _, want := range []string{"客户端唤醒延迟超过 5 ms 的尝试 6 次（最大 131 ms）", "发送延迟 P99 40 ms"} {
		if !strings.Contains(zh, want) {
			t.Errorf("text lacks %q:\n%s", want, zh)
		}
	}
	if !strings.Contains(en, "client wake-up lag over 5 ms in 6 attempts (at most 131 ms)") {
		t.Errorf("English text lacks the step's lateness:\n%s", en)
	}
	if n := strings.Count(zh, "客户端迟到"); n != 1 {
		t.Errorf("%d steps said late, want 1:\n%s", n, zh)
	}

}

// The answer says, beside it, in which steps the client itself was late:
// a loaded client machine moves verdicts, and a reader takes the answer
// first (walk 35j: "no rate searched meets" while most of a step's
// attempts saw the client wake late). A punctual search says nothing.
func TestCapacityAnswerNamesLateSteps(t *testing.T) {
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, MaxRate: 4, BoundedBy: capacity.BoundNoRate, AttemptsToMeet: 35, Steps: []capacity.Step{
		{Rate: 1, Attempts: 42, Qualified: 30, Verdict: capacity.Fails, ClientLag: &metrics.ClientLag{Attempts: 42, OverBound: 19, BoundMS: 5, MaxMS: 268.8}},
		{Rate: 0.5, Attempts: 19, Qualified: 5, Verdict: capacity.Fails, ClientLag: &metrics.ClientLag{Attempts: 19, BoundMS: 5, MaxMS: 2}},
	}}
	en, _ := textsHave(t, r, map[lang.Lang]string{
		lang.EN: "Note: the client itself was late in 1 step (1 req/s; see each step's line)",
		lang.ZH: "注意：1 步里客户端自己迟到了（1 次/s，见各步下的说明）",
	})
	if strings.Index(en, "Note: the client itself was late") < strings.Index(en, "Answer:") {
		t.Errorf("the note comes before the answer:\n%s", en)
	}
	r.Steps[0].ClientLag.OverBound = 0
	if en := capacityTextIn(lang.EN, r); strings.Contains(en, "the client itself was late") {
		t.Errorf("a punctual search notes lateness:\n%s", en)
	}
}

// A step undecided at its longest window with its interval above the
// target (met on its SLOs, keeping up not shown) says so on stderr in
// both languages, not that its interval straddles the target (walk 35k:
// "Wilson 区间 [95.1%, 99.1%] 跨过目标 90%").
func TestCapacityReasonUndecidedAboveTarget(t *testing.T) {
	lo, hi := 0.951, 0.991
	lc := loadCheck(t, capacity.LoadWindow{OfferedPerS: 15, WindowS: 16, Arrivals: 240, Completions: 229, InFlightStart: 10, InFlightEnd: 21, ExpectedInFlight: 18, Resolution: 1})
	s := capacity.Step{Rate: 15, Attempts: 233, Qualified: 228, Verdict: capacity.Undecided, CILow: &lo, CIHigh: &hi, Load: &lc}
	for lg, want := range map[lang.Lang][2]string{
		lang.ZH: {"Wilson 下界 95.1% ≥ 目标 90%，但到最长窗口也没显示服务器跟得上（过载尚无定论）", "跨过目标"},
		lang.EN: {"Wilson lower bound 95.1% ≥ target 90%, but its longest window did not show the server keeping up (overload undecided)", "holds the target"},
	} {
		if r := capacityReasonIn(lg, s, 0.9); !strings.HasPrefix(r, want[0]) || strings.Contains(r, want[1]) {
			t.Errorf("%v: %q, want it to start %q", lg, r, want[0])
		}
	}
}
