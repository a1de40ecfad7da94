package labfig_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
)

// The percentile against the sample size: the estimate and both bounds as
// lines on a log axis; an upper bound the sample is too small for is a gap,
// not a value, and a shaded area from the first point to the n that bounds
// it says so.
func TestPercentileByN(t *testing.T) {
	pts := []labfig.IntervalPoint{
		{N: 8, Value: fp(2000), Low: fp(800), NeedNHigh: 72},
		{N: 72, Value: fp(698.44), Low: fp(562.6), High: fp(979.1)},
		{N: 1802, Value: fp(738.8), Low: fp(684.7), High: fp(790.6)},
	}
	m := decoded(t, labfig.PercentileByN("图 01.20 P95 的区间", "练习 trace", 0.95, "ms", pts, charts.WithID("p")))
	if got := strings.Join(seriesNames(m), ","); got != "P95（最近秩）,95% 区间下界,95% 区间上界" {
		t.Fatalf("series %s", got)
	}
	want := map[int][][2]any{
		0: {{8.0, 2000.0}, {72.0, 698.4}, {1802.0, 738.8}},
		1: {{8.0, 800.0}, {72.0, 562.6}, {1802.0, 684.7}},
		2: {{8.0, nil}, {72.0, 979.1}, {1802.0, 790.6}},
	}
	for i, w := range want {
		if got := seriesPoints(t, m, i); !equalPoints(got, w) {
			t.Errorf("series %d: %v, want %v", i, got, w)
		}
	}
	if x := m["xAxis"].([]any)[0].(map[string]any); x["type"] != "log" {
		t.Errorf("x axis %v", x)
	}
	area := m["series"].([]any)[0].(map[string]any)["markArea"].(map[string]any)["data"].([]any)[0].([]any)
	from, to := area[0].(map[string]any), area[1].(map[string]any)
	if from["name"] != "n < 72：没有上界" || from["xAxis"] != 8.0 || to["xAxis"] != 72.0 {
		t.Errorf("unbounded area %v – %v", from, to)
	}
	// Every side bounded: no area.
	m = decoded(t, labfig.PercentileByN("t", "s", 0.95, "ms", pts[1:], charts.WithID("q")))
	if _, ok := m["series"].([]any)[0].(map[string]any)["markArea"]; ok {
		t.Error("an area although every upper bound exists")
	}
}

// A search with no finished step draws empty figures instead of panicking.
func TestCapacityChartsWithoutSteps(t *testing.T) {
	r := labfig.CapacitySearch{Target: 0.9, SLOTTFTMS: 1000, Provisional: true}
	decoded(t, labfig.CapacityAttainment(r, charts.WithID("a")))
	decoded(t, labfig.CapacityLoad(r, charts.WithID("b")))
}
