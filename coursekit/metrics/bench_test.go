package metrics_test

import (
	"bytes"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/tracegen"
)

// BenchmarkSummarize computes the card of a generated trace of about
// 100,000 attempts, read from memory: parsing, validation and statistics.
func BenchmarkSummarize(b *testing.B) {
	var buf bytes.Buffer
	if _, err := tracegen.Generate(&buf, tracegen.Config{Seed: 1, Requests: 100000, RatePerS: 200}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		s, err := metrics.SummarizeReader(bytes.NewReader(buf.Bytes()), "bench", metrics.Options{SLOsMS: []float64{1000, 500}})
		if err != nil || s.Attempts == 0 {
			b.Fatal(err)
		}
	}
}
