package criteria

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// Half credit for a failed P95 is measured from the P95 of the method the
// card states, as the exact check is. The success TTFTs are such that
// nearest-rank gives 1900 ms and linear 2305 ms: a near miss of the
// stated method gets half, a number near only the other method's gets 0.
func TestP95PartialCreditUsesStatedMethod(t *testing.T) {
	nearest, linear := 1900.0, 2305.0
	s := &metrics.Summary{PercentileMethod: metrics.NearestRank,
		TTFT:       metrics.Dist{Method: metrics.NearestRank, P95: &nearest},
		TTFTOther:  &metrics.Dist{Method: metrics.Linear, P95: &linear},
		Conditions: make([]metrics.Condition, 2)}
	points := map[string]float64{"figures.p95": 2}
	for _, c := range []struct {
		method string
		p95    float64
		want   float64
	}{
		{"nearest-rank", 1950, 1}, // 2.6 % over nearest-rank: half of 2
		{"nearest-rank", 2400, 0}, // near linear only
		{"最近秩", 1950, 1},
		{"linear", 2400, 1}, // 4 % over linear: half of 2
		{"linear", 1950, 0}, // near nearest-rank only
		{"线性插值", 2400, 1},
	} {
		cd := &card.Card{PercentileMethod: c.method, P95: card.Figure{Value: c.p95, Unit: "ms"}, Conditions: []card.Condition{
			{SLO: card.Figure{Value: 1, Unit: "s"}},
			{SLO: card.Figure{Value: 0.5, Unit: "s"}},
		}}
		x := ScorePublic(points, card.Result{ID: "figures.p95", Status: card.Fail}, cd, s)
		if x.Points != c.want {
			t.Errorf("card states %s, P95 %g ms: %v of %v points, want %v (%s)", c.method, c.p95, x.Points, x.Max, c.want, x.Message)
		}
	}
}
