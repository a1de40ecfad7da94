package cardfmt

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"testing"

	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Where every number is finite, writeJSON writes what encoding/json
// writes, member for member, each float without its arithmetic noise
// (numfmt.Clean), on traces that fill every part of the card.
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
			var g, w any
			if err := json.Unmarshal(got.Bytes(), &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(want.Bytes(), &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, cleaned(w)) {
				t.Errorf("%s: writeJSON differs from encoding/json with clean floats:\n%s\nwant:\n%s", name, got.Bytes(), want.Bytes())
			}
			// The members come in encoding/json's order: the same keys at the same places.
			if keys(got.Bytes()) != keys(want.Bytes()) {
				t.Errorf("%s: writeJSON's members are not in encoding/json's order", name)
			}
		}
	}
}

// cleaned is v with every number as numfmt.Clean writes it.
func cleaned(v any) any {
	switch x := v.(type) {
	case float64:
		return numfmt.Clean(x)
	case []any:
		for i := range x {
			x[i] = cleaned(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = cleaned(x[k])
		}
	}
	return v
}

var jsonKey = regexp.MustCompile(`"[a-z0-9_@.%]+":`)

// keys is the sequence of member names in an indented JSON text.
func keys(b []byte) string {
	var out bytes.Buffer
	for _, k := range jsonKey.FindAll(b, -1) {
		out.Write(k)
	}
	return out.String()
}
