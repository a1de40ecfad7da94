package importer

import (
	"math"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// guidellm081_faults_benchmarks.json is a real guidellm 0.8.1 run (40
// Poisson requests at 15/s, chat, synthetic text) against coursekit sim
// with 10 % 503, 5 % 429, 10 % reset and 15 % malformed SSE; only paths,
// the port, the platform and the tracebacks were rewritten. Its "total"
// TTFT block holds the successes and the errored requests that got a first
// token (32 = 19 + 13), not every request with a missing TTFT as 0.
func TestGuidellm081TotalTTFT(t *testing.T) {
	im := importFile(t, "guidellm", "guidellm081_faults_benchmarks.json", Options{})
	var x []float64
	for i := range im.tr.Attempts {
		a := &im.tr.Attempts[i]
		if ttft, ok := a.TTFT(); ok && a.Outcome != trace.Cancelled {
			x = append(x, ttft)
		}
	}
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	got := im.stat(t, GuidellmTotalFirstToken, "mean")
	// The trace keeps times to the microsecond.
	if len(x) != 32 || len(im.tr.Attempts) != 40 || math.Abs(*got.Value-mean) > 1e-3 {
		t.Errorf("total mean %v over %s; successes + errored with a first token: %d, mean %v", *got.Value, got.Key, len(x), mean)
	}
	for _, s := range im.rep.Stats {
		if s.Metric == GuidellmTotalZero || s.Metric == GuidellmTotal {
			t.Errorf("0.8.1's total labelled %q", s.Metric)
		}
	}
	if im.card.CompleteSuccess != 19 || im.card.Failures != 21 || im.card.TTFTMissing != 8 {
		t.Errorf("card: %d ok, %d failed, %d TTFT missing", im.card.CompleteSuccess, im.card.Failures, im.card.TTFTMissing)
	}
}
