package main

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The walk's `capacity … --step-duration 20s`: 1 req/s failed, 0.5 req/s
// stayed undecided with 13 attempts where meeting 0.9 needs 35 even if all
// qualify. "No rate searched meets the target" alone blames the server; the
// answer says the step length bounds it and how to lengthen the steps, in
// both languages and the chart. A search whose every step decided says
// nothing of it.
func TestCapacityNoRateBoundedByStepLength(t *testing.T) {
	result := func(lowVerdict string, lowAttempts int64) *capacity.Result {
		return &capacity.Result{Target: 0.9, SLOTTFTMS: 2000, MaxRate: 4, BoundedBy: capacity.BoundNoRate, AttemptsToMeet: 35,
			Steps: []capacity.Step{{Rate: 1, Attempts: 39, Qualified: 22, Verdict: capacity.Fails},
				{Rate: 0.5, Attempts: lowAttempts, Qualified: lowAttempts - 1, Verdict: lowVerdict}}}
	}
	views := func(r *capacity.Result) map[string]string {
		out := map[string]string{"text": capacityTextIn(lang.ZH, r), "en": capacityTextIn(lang.EN, r)}
		for name, l := range map[string]lang.Lang{"chart": lang.ZH, "chart en": lang.EN} {
			var page bytes.Buffer
			if err := labfig.WriteCapacityPage(&page, lab.CapacityChart(r), l); err != nil {
				t.Fatal(err)
			}
			out[name] = html.UnescapeString(page.String())
		}
		return out
	}
	answer := func(v string) string { // the answer line
		for _, l := range strings.Split(v, "\n") {
			if i := strings.Index(l, "结论："); i >= 0 {
				return l[i:]
			}
			if i := strings.Index(l, "Answer:"); i >= 0 {
				return l[i:]
			}
		}
		return ""
	}
	want := map[string][]string{
		"text":     {"0.5 次/s", "13 次尝试", "35", "--step-duration", "--step-max-duration", "不是服务器"},
		"chart":    {"0.5 次/s", "13 次尝试", "35", "--step-duration", "--step-max-duration", "不是服务器"},
		"en":       {"0.5 req/s", "13 attempts", "35", "--step-duration", "--step-max-duration", "not the server"},
		"chart en": {"0.5 req/s", "13 attempts", "35", "--step-duration", "--step-max-duration", "not the server"},
	}
	for name, v := range views(result(capacity.Undecided, 13)) {
		a := answer(v)
		for _, w := range want[name] {
			if !strings.Contains(a, w) {
				t.Errorf("%s: the answer %q lacks %q", name, a, w)
			}
		}
	}
	for name, v := range views(result(capacity.Fails, 13)) {
		if a := answer(v); strings.Contains(a, "step-duration") || !(strings.Contains(a, "没有一个达标") || strings.Contains(a, "no rate searched meets")) {
			t.Errorf("%s: every step decided, yet the answer is %q", name, a)
		}
	}
}
