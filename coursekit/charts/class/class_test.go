package class_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/class"
	"github.com/llmperf-course/course/coursekit/charts/page"
	"github.com/llmperf-course/course/coursekit/web"
)

// The class charts and parts carry learner strings (mistake names, file
// names, learner ids): none of them can inject markup, and the numbers
// they are given are the numbers they draw.
func TestClassChartsEscape(t *testing.T) {
	var out strings.Builder
	err := page.Write(&out, evil,
		page.Figure(class.ScoreDistribution([]string{"0–10%", evil}, []int{1, 3}, evil, charts.WithID("s")), evil),
		page.Figure(class.PassRates([]string{evil, "b"}, []int{2, 5}, 5, charts.WithID("p")), ""),
		page.Figure(class.Mistakes([]string{evil}, []int{4}, 5, charts.WithID("m")), ""),
		page.Heading(evil), page.Table([]string{evil}, [][]string{{evil + "\n" + evil}}))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(out.String(), web.InlineEChartsScript(), "<script></script>", 1)
	if strings.Contains(body, "<img") || strings.Count(body, "</script>") != strings.Count(body, "<script") {
		t.Errorf("markup from a label reached the page:\n%.2000s", body)
	}
	for _, want := range []string{"&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;<br>", "‹/script›‹img src=x onerror=alert(1)›", `"40%(2/5)"`, `"100%(5/5)"`, `"4 人"`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}
