package importer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// A request the tool records as answered without error but without any
// output text is empty_output, as coursekit bench records it (one outcome
// table for every source), not stream_error: the server answered.
func TestImportedEmptyAnswersAreEmptyOutput(t *testing.T) {
	for _, tc := range []struct{ from, in string }{
		{"inference-perf", `[{"start_time": 5.0, "end_time": 5.5, "error": null,
		  "info": {"input_tokens": 7, "response_metrics": {"output_tokens": 1, "chunk_times": []}}},
		 {"start_time": 5.1, "end_time": 5.6, "error": null,
		  "info": {"input_tokens": 7, "response_metrics": {"output_tokens": 1, "chunk_times": [5.2]}}}]`},
		{"aiperf", `{"metadata": {"session_num": 0, "x_request_id": "e", "request_start_ns": 1000000000, "request_end_ns": 1100000000, "benchmark_phase": "profiling", "was_cancelled": false}, "metrics": {"request_latency": {"value": 100.0, "unit": "ms"}}, "error": null}
{"metadata": {"session_num": 1, "x_request_id": "o", "request_start_ns": 1000000000, "request_end_ns": 1200000000, "benchmark_phase": "profiling", "was_cancelled": false}, "metrics": {"time_to_first_token": {"value": 50.0, "unit": "ms"}, "request_latency": {"value": 200.0, "unit": "ms"}}, "error": null}
`},
	} {
		t.Run(tc.from, func(t *testing.T) {
			var out bytes.Buffer
			if _, err := Import(tc.from, strings.NewReader(tc.in), "f", &out); err != nil {
				t.Fatal(err)
			}
			tr, err := trace.Read(&out, "f")
			if err != nil {
				t.Fatal(err)
			}
			if a := tr.Attempts[0]; a.Outcome != trace.EmptyOutput || len(a.Events) != 0 {
				t.Errorf("empty answer: outcome %s (%q), %d events; want empty_output", a.Outcome, a.Error, len(a.Events))
			}
			if a := tr.Attempts[1]; a.Outcome != trace.OK {
				t.Errorf("answer with output: outcome %s (%q), want ok", a.Outcome, a.Error)
			}
		})
	}
}
