package metrics_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/tracegen"
)

// The card read on every core (blocks parsed and counted in parallel,
// requests grouped by sorting, ranks selected by counting) equals the card
// of the same attempts added one by one, every field of it: a trace of
// several read blocks, with retries, failures and usage counts, under
// plain and latency SLOs.
func TestParallelCardEqualsSequential(t *testing.T) {
	var buf bytes.Buffer
	if _, err := tracegen.Generate(&buf, tracegen.Config{Seed: 7, Requests: 60000, RatePerS: 200, TimeoutMS: 3000}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() < 8<<20 {
		t.Fatalf("trace of %d bytes: want several read blocks", buf.Len())
	}
	tr, err := trace.Read(bytes.NewReader(buf.Bytes()), "t")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []metrics.Options{
		{SLOsMS: []float64{1000, 500, 250}},
		{SLOsMS: []float64{800}, Latency: metrics.LatencySLO{E2EMS: 1500}},
		{SLOsMS: []float64{1000}, Method: metrics.Linear, Levels: []float64{0.5, 0.999}},
	} {
		seq := metrics.NewAccumulator(&tr.Header, opts)
		for i := range tr.Attempts {
			seq.Add(&tr.Attempts[i])
		}
		par, err := metrics.SummarizeReader(bytes.NewReader(buf.Bytes()), "t", opts)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(seq.Summary())
		b, _ := json.Marshal(par)
		if !bytes.Equal(a, b) {
			t.Errorf("options %+v: the parallel card differs:\n seq %s\n par %s", opts, a, b)
		}
	}
}
