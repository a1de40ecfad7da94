package trace_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// A header line that is not valid JSON is worded as a body line is: a cut
// header says it is truncated and after which column, not encoding/json's
// "unexpected end of JSON input" (issue 35).
func TestCutHeaderSaysNotJSON(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"trace":"llm-serving/v1","clock":"cl`, `t.jsonl:1: not valid JSON (truncated: the line ends inside a value): unexpected end of line after column 37 (`},
		{`{"trace":"llm-serving/v1",`, `t.jsonl:1: not valid JSON (truncated: the line ends inside a value): unexpected end of line after column 26 (`},
		{`{"trace":"llm-serving/v1" "clock":"client"}`, `t.jsonl:1: not valid JSON: unexpected '"' at column 27 (want ',' or '}')`},
		{`{"trace":"llm-serving/v1"} x`, `t.jsonl:1: not valid JSON: unexpected 'x' at column 28 (want the end of the line after the object)`},
	} {
		_, err := trace.Read(strings.NewReader(c.line+"\n"), "t.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %q...", c.line, err, c.want)
		}
	}
}
