package labfig_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// subtitleWidth is the widest subtitle line, in CJK characters, that the
// capacity charts' 13 px subtitle shows whole in a 900 px chart.
const subtitleWidth = 60

// The walk's capacity page (eng2.png) clipped both charts' subtitles at
// the chart's edge ("… decided by the 95% Wilson inte"): ECharts does not
// wrap a subtitle. Every line is now at most subtitleWidth wide, none of
// the text dropped, and the plot starts below the last line.
func TestCapacitySubtitlesWrapped(t *testing.T) {
	r := labfig.CapacitySearch{Target: 0.9, SLOTTFTMS: 2000, Latency: metrics.LatencySLO{E2EMS: 4000}, Model: "smollm2-135m", ElapsedS: 137, AttemptsToMeet: 35,
		ShortStep: &capacity.Step{Rate: 0.5, Attempts: 13, Qualified: 12, Verdict: capacity.Undecided},
		Steps: []labfig.CapacityStep{
			{Rate: 1, Attempts: 39, Qualified: 22, Attainment: fp(0.564), CILow: fp(0.41), CIHigh: fp(0.707), Verdict: "fails", WindowS: 40, GoodputPerS: 0.55, P95TTFTMS: fp(6800)},
			{Rate: 0.5, Attempts: 13, Qualified: 12, Attainment: fp(0.923), CILow: fp(0.667), CIHigh: fp(0.986), Verdict: "undecided", WindowS: 40, GoodputPerS: 0.3, P95TTFTMS: fp(3200)},
		}}
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		for name, c := range map[string]chart{
			"attainment": labfig.CapacityAttainment(r, charts.WithID("a"), charts.WithLang(l)),
			"load":       labfig.CapacityLoad(r, charts.WithID("l"), charts.WithLang(l)),
		} {
			m := decoded(t, c)
			title := first(m["title"])
			sub, _ := title["subtext"].(string)
			lines := strings.Split(sub, "\n")
			for _, line := range lines {
				if w := draw.TextWidth(line); w > subtitleWidth {
					t.Errorf("%s %s: subtitle line %.1f wide (> %d): %q", l, name, w, subtitleWidth, line)
				}
			}
			if name == "attainment" && !strings.Contains(strings.ReplaceAll(sub, "\n", ""), "--step-max-duration") {
				t.Errorf("%s %s: the answer is cut: %q", l, name, sub)
			}
			grid := first(m["grid"])
			top, _ := strconv.Atoi(grid["top"].(string))
			if need := 60 + 19*len(lines); top < need { // and the axis name above the plot
				t.Errorf("%s %s: the plot starts at %d px, under a subtitle of %d lines ending near %d px", l, name, top, len(lines), need)
			}
		}
	}
}

// first is an option that go-echarts writes as an object or a list of one.
func first(v any) map[string]any {
	if l, ok := v.([]any); ok && len(l) > 0 {
		return l[0].(map[string]any)
	}
	m, _ := v.(map[string]any)
	return m
}
