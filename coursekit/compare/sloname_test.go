package compare_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// A joint condition's metrics name every SLO kind it has, by the card's
// JSON keys (slo_ttft_ms, slo_e2e_ms, slo_itl_p95_ms, slo_tpot_ms):
// qualified_rate@1000ms named --slo-ttft 1s --slo-e2e 3s as it named
// --slo-ttft 1s alone, so two conditions differing only in their E2E SLO
// had the same name. A TTFT SLO alone keeps the unit's form @1000ms.
func TestJointConditionNamesEverySLO(t *testing.T) {
	tr := failing(20, 2)
	names := func(f cardopts.Flags) []string {
		o := compare.Options{Card: f, Resamples: 50}
		r, err := compare.Compare([]compare.Run{run(tr, "a", o)}, []compare.Run{run(tr, "b", o)}, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range r.Metrics {
			if strings.HasPrefix(m.Name, "qualified_rate@") || strings.HasPrefix(m.Name, "goodput@") {
				out = append(out, m.Name)
			}
		}
		return out
	}
	for _, c := range []struct {
		f    cardopts.Flags
		want []string
	}{
		{cardopts.TTFT(1000), []string{"qualified_rate@1000ms", "goodput@1000ms"}},
		{cardopts.TTFT(500, 1000), []string{"qualified_rate@500ms", "qualified_rate@1000ms", "goodput@500ms", "goodput@1000ms"}},
		{cardopts.Flags{TTFTMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 3000}},
			[]string{"qualified_rate@ttft1000ms+e2e3000ms", "goodput@ttft1000ms+e2e3000ms"}},
		{cardopts.Flags{TTFTMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 2000}},
			[]string{"qualified_rate@ttft1000ms+e2e2000ms", "goodput@ttft1000ms+e2e2000ms"}},
		{cardopts.Flags{TTFTMS: []float64{250.5}, Latency: metrics.LatencySLO{E2EMS: 3000, ITLP95MS: 50, TPOTMS: 20}},
			[]string{"qualified_rate@ttft250.5ms+e2e3000ms+itl_p95_50ms+tpot20ms", "goodput@ttft250.5ms+e2e3000ms+itl_p95_50ms+tpot20ms"}},
		{cardopts.Flags{TTFTMS: []float64{1000}, Latency: metrics.LatencySLO{TPOTMS: 40}},
			[]string{"qualified_rate@ttft1000ms+tpot40ms", "goodput@ttft1000ms+tpot40ms"}},
	} {
		if got := names(c.f); !slices.Equal(got, c.want) {
			t.Errorf("--slo-ttft %v %+v: names %q, want %q", c.f.TTFTMS, c.f.Latency, got, c.want)
		}
	}
}
