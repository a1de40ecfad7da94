package main

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/lang"
)

// A bisected rate is printed by the shared formatter (15.082 req/s, as the
// chart prints it, not 15.08203125), and a step's extensions read as
// English ("extended once", not "extended 1 times"), in text and chart.
func TestCapacityRatesAndExtensionsRead(t *testing.T) {
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, MaxRate: 32, BoundedBy: capacity.BoundFailingStep, AttemptsToMeet: 35,
		Steps: []capacity.Step{{Rate: 14.953125, Attempts: 117, Qualified: 117, Verdict: capacity.Meets, Extended: 0},
			{Rate: 15.08203125, Attempts: 252, Qualified: 162, Verdict: capacity.Fails, Extended: 1},
			{Rate: 15.2109375, Attempts: 253, Qualified: 138, Verdict: capacity.Fails, Extended: 2}}}
	r.MaxRateMeeting = &r.Steps[0].Rate
	var page bytes.Buffer
	if err := labfig.WriteCapacityPage(&page, lab.CapacityChart(r), lang.EN); err != nil {
		t.Fatal(err)
	}
	// The chart's coordinates keep the exact rate; its words use the formatter.
	chart := regexp.MustCompile(`"value":\[[^\]]*\]|"xAxis":[0-9.]+`).ReplaceAllString(html.UnescapeString(page.String()), "")
	for name, v := range map[string]string{"zh": capacityTextIn(lang.ZH, r), "en": capacityTextIn(lang.EN, r), "chart": chart} {
		if strings.Contains(v, "15.08203125") || strings.Contains(v, "14.953125") || !strings.Contains(v, "15.082") || !strings.Contains(v, "14.953") {
			t.Errorf("%s: rates not by the shared formatter:\n%s", name, v)
		}
		if name == "zh" {
			continue
		}
		if strings.Contains(v, "1 times") || !strings.Contains(v, "extended once") || !strings.Contains(v, "extended twice") || !strings.Contains(v, "not extended") {
			t.Errorf("%s: extensions:\n%s", name, v)
		}
	}
}
