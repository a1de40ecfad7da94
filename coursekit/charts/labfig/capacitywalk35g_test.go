package labfig_test

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The walk's engine search: no rate met, and the bisection stopped before
// 0.25 req/s, too low to meet within --step-max-duration 20 s; the server
// exposed no busy reading. The chart says what the text says: the
// "stopped before" sentence, and a busy share "not reported", not "none"
// (walk 35g, F4).
func TestCapacityPageSaysWhatTheTextSays(t *testing.T) {
	before := 0.25
	r := labfig.CapacitySearch{Target: 0.9, SLOTTFTMS: 1000, ElapsedS: 13.9, AttemptsToMeet: 35, StoppedBefore: &before, StepMaxDurationS: 20,
		Steps: []labfig.CapacityStep{{Rate: 0.5, Attempts: 5, Qualified: 0, Attainment: fp(0), CILow: fp(0), CIHigh: fp(0.434), Verdict: "fails", WindowS: 10}}}
	for _, lg := range []lang.Lang{lang.EN, lang.ZH} {
		var page bytes.Buffer
		if err := labfig.WriteCapacityPage(&page, r, lg); err != nil {
			t.Fatal(err)
		}
		body := html.UnescapeString(page.String())
		stopped := strings.TrimRight(cardfmt.CapacityStoppedBeforeIn(lg, before, 35, 20), "。.")
		for _, want := range []string{stopped, lg.S(lang.Msg{"设备忙碌率 服务器未报告", "device busy share not reported"})} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: the page lacks %q", lg, want)
			}
		}
		if bad := lg.S(lang.Msg{"设备忙碌率 无", "device busy share none"}); strings.Contains(body, bad) {
			t.Errorf("%s: the page says %q", lg, bad)
		}
	}
	if s := cardfmt.CapacityStoppedBeforeIn(lang.EN, before, 35, 20); !strings.HasPrefix(s, "The search stopped before 0.25 req/s: below 1.75 req/s (35 ÷ --step-max-duration 20 s)") {
		t.Errorf("the shared sentence: %s", s)
	}
}
