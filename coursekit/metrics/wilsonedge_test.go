package metrics_test

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// The Wilson interval of 0 successes starts at 0 exactly, and that of n
// out of n ends at 1 exactly: a card printed ci95.low 1.38777878078e-17
// for 0/25, the rounding error of centre − half.
func TestWilsonBoundsAtTheEdgesAreExact(t *testing.T) {
	for _, n := range []float64{1, 3, 25, 38, 1000, 123457} {
		if lo, _, _ := metrics.WilsonBounds(0, n); lo != 0 {
			t.Errorf("0/%v: low %v, want 0", n, lo)
		}
		if _, hi, _ := metrics.WilsonBounds(n, n); hi != 1 {
			t.Errorf("%v/%v: high %v, want 1", n, n, hi)
		}
	}
}
