package cardfmt

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Where every number is finite, writeJSON is byte for byte what
// encoding/json writes, on traces that fill every part of the card.
func TestWriteJSONIsEncodingJSON(t *testing.T) {
	for _, name := range []string{"../../data/unit01/trace.jsonl", "../../data/unit01/practice.jsonl", "../../data/unit01/timeline.jsonl"} {
		tr, err := trace.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lat := metrics.LatencySLO{E2EMS: 5000, ITLP95MS: 50, TPOTMS: 40}
		for _, o := range []metrics.Options{{}, {Method: metrics.Linear, SLOsMS: []float64{1000, 500}, Levels: []float64{0.5, 0.999}}, {Latency: lat}} {
			s := metrics.Summarize(tr, o)
			var want, got bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			if err := writeJSON(&got, s); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s: writeJSON differs from encoding/json:\n%s\nwant:\n%s", name, got.Bytes(), want.Bytes())
			}
		}
	}
}
