package metrics_test

import (
	"path/filepath"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// The event gaps' intervals say they take every gap as an independent
// draw (compare resamples whole attempts instead); the per-attempt
// distributions' intervals say nothing of the kind.
func TestEventGapIntervalsNameTheirSampling(t *testing.T) {
	s, err := metrics.SummarizeFile(filepath.Join("..", "..", "data", "unit01", "trace.jsonl"), metrics.Options{Levels: []float64{0.95}})
	if err != nil {
		t.Fatal(err)
	}
	if s.ITL.N == 0 || s.ITL.CI95 == nil || len(s.ITL.Chosen) != 1 {
		t.Fatalf("unit trace: ITL n=%d, ci95 %v, chosen %d", s.ITL.N, s.ITL.CI95 != nil, len(s.ITL.Chosen))
	}
	for _, p := range metrics.Levels {
		if got := s.ITL.CI95.Level(p).Sampling; got != metrics.SamplingIndependentGaps {
			t.Errorf("itl P%v interval sampling %q, want %q", p*100, got, metrics.SamplingIndependentGaps)
		}
		for name, d := range map[string]metrics.Dist{"ttft": s.TTFT, "e2e": s.E2E} {
			if d.CI95 != nil && d.CI95.Level(p).Sampling != "" {
				t.Errorf("%s P%v interval sampling %q, want none", name, p*100, d.CI95.Level(p).Sampling)
			}
		}
	}
	if got := s.ITL.Chosen[0].CI95.Sampling; got != metrics.SamplingIndependentGaps {
		t.Errorf("itl chosen P95 interval sampling %q", got)
	}
	if got := s.TTFT.Chosen[0].CI95.Sampling; got != "" {
		t.Errorf("ttft chosen P95 interval sampling %q, want none", got)
	}
}
