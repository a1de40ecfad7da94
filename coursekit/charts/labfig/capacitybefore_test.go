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

// Issue 35, item 1: the tooltip of a step interrupted before its window
// began says it measured nothing, with no window of 0 s and no extension.
func TestCapacityTooltipStepInterruptedBeforeItsWindow(t *testing.T) {
	r := capacitySearch()
	r.Steps = append(r.Steps, labfig.CapacityStep{Rate: 100, Verdict: "interrupted", Extended: 1, BeforeWindow: true})
	for _, lg := range []lang.Lang{lang.EN, lang.ZH} {
		var page bytes.Buffer
		if err := labfig.WriteCapacityPage(&page, r, lg); err != nil {
			t.Fatal(err)
		}
		body := html.UnescapeString(page.String())
		want := lg.F(lang.Msg{"100 次/s：%s（%s）", "100 req/s: %s (%s)"}, cardfmt.CapacityVerdictIn(lg, "interrupted"), cardfmt.CapacityBeforeWindowIn(lg))
		if !strings.Contains(body, want) {
			t.Errorf("%s: the page lacks %q", lg, want)
		}
		if bad := lg.F(lang.Msg{"100 次/s：0 / 0 合格 = ", "100 req/s: 0 / 0 qualified = "}); strings.Contains(body, bad) {
			t.Errorf("%s: the page has the step's tooltip with a window: %q", lg, bad)
		}
	}
}
