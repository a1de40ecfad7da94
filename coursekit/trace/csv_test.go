package trace_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// TTFT and E2E are differences of two times: the CSV prints them as the
// times were written (236.011), not with float noise (236.01100000000002).
func TestCSVDifferencesWithoutFloatNoise(t *testing.T) {
	in := `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000}}
{"attempt":"a","start_ms":100.5,"outcome":"ok","http_status":200,"events":[{"t_ms":336.511},{"t_ms":400.3}],"end_ms":400.7}
{"attempt":"b","start_ms":0.000001,"outcome":"ok","http_status":200,"events":[{"t_ms":0.000003}],"end_ms":0.000004}
`
	var b bytes.Buffer
	if err := trace.WriteCSV(strings.NewReader(in), "t.jsonl", &b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines: %s", len(lines), b.String())
	}
	// ttft_ms, e2e_ms, end_ms
	if want := ",236.011,300.2,400.7,"; !strings.Contains(lines[1], want) {
		t.Errorf("row a %q lacks %q", lines[1], want)
	}
	// nanosecond times keep their digits
	if want := ",0.000002,0.000003,0.000004,"; !strings.Contains(lines[2], want) {
		t.Errorf("row b %q lacks %q", lines[2], want)
	}
}
