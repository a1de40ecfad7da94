package labfig_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
)

// Walk 35e: the attainment chart's "target 90%" label, at the line's end,
// sat on the busy share, which nears 100 % at the highest rates (cap64.png);
// the load chart's SLO label sat on the P95 TTFT climbing through it. Both
// labels go to the x axis's start: the axis starts at 0 and every step's
// rate is above it, so no series runs there. The target's label is below
// its line (a meeting step's Wilson interval lies above the target).
func TestCapacityMarkLabelsWhereNoLineRuns(t *testing.T) {
	r := capacitySearch()
	for _, c := range []struct {
		name, want string
		m          map[string]any
		series     int
	}{
		{"target", "insideStartBottom", decoded(t, labfig.CapacityAttainment(r, charts.WithID("a"))), 1},
		{"TTFT SLO", "insideStartTop", decoded(t, labfig.CapacityLoad(r, charts.WithID("l"))), 2},
	} {
		mark := c.m["series"].([]any)[c.series].(map[string]any)["markLine"].(map[string]any)["data"].([]any)[0].(map[string]any)
		pos, _ := mark["label"].(map[string]any)["position"].(string)
		if pos != c.want {
			t.Errorf("%s label at %q, want %q", c.name, pos, c.want)
		}
		if !strings.HasPrefix(pos, "insideStart") {
			continue
		}
		// The start is clear only if the axis begins left of every step.
		if min := first(c.m["xAxis"])["min"]; min != 0.0 {
			t.Errorf("%s: x axis starts at %v, not 0", c.name, min)
		}
		for _, s := range r.Steps {
			if !(s.Rate > 0) {
				t.Errorf("%s: a step at %g req/s runs through the label", c.name, s.Rate)
			}
		}
	}
}
