package metrics_test

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// The unit's trace: 8 complete successes of 10 attempts carrying 29 output
// tokens, in a 10 s window.
func TestThroughputKeepsItsParts(t *testing.T) {
	th := unitSummary(t, metrics.Options{}).Throughput
	for _, c := range []struct {
		r        metrics.Ratio
		num, val float64
		unit     string
	}{
		{th.CompleteSuccesses, 8, 0.8, metrics.UnitSuccessesPerS},
		{th.Attempts, 10, 1, metrics.UnitAttemptsPerS},
		{th.OutputTokens, 29, 2.9, metrics.UnitTokensPerS},
	} {
		if c.r.Num != c.num || c.r.Den != 10 || val(c.r.Value) != c.val || c.r.Unit != c.unit {
			t.Errorf("%+v, want %g / 10 = %g %s", c.r, c.num, c.val, c.unit)
		}
	}
	if th.Window != metrics.ThroughputWindow {
		t.Errorf("window %q", th.Window)
	}
}
