package trace_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Every JSON Lines reader of the CLI says a cut or broken line is not
// valid JSON, at FILE:LINE, in the trace reader's words (walk 35l): the
// metrics sidecar ("not a scrape line …: unexpected EOF") and the
// datasets ("not valid JSON: unexpected EOF") said it without saying the
// line was cut.
func TestCutJSONLinesSayNotJSON(t *testing.T) {
	scrape := `{"t_ms":1,"dur_ms":1,"values":{}}`
	item := `{"prompt":"1+1?","expect":{"exact":"2"}}`
	for _, c := range []struct {
		name, line, want string
	}{
		{"cut", `{"t_ms": `, "f.jsonl:2: not valid JSON (truncated: the line ends inside a value)"},
		{"broken", `{"t_ms": 1 "dur_ms": 1}`, "f.jsonl:2: not valid JSON (malformed): column 12: invalid character"},
	} {
		_, err := trace.ReadScrapes(strings.NewReader(scrape+"\n"+c.line+"\n"+scrape+"\n"), "f.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !trace.IsBadInput(err) {
			t.Errorf("sidecar %s: %v; want %q", c.name, err, c.want)
		}
		_, err = dataset.Read(strings.NewReader(item+"\n"+strings.Replace(c.line, "t_ms", "prompt", 1)+"\n"+item+"\n"), "f.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), strings.Replace(c.want, "column 12", "column 14", 1)) || !trace.IsBadInput(err) {
			t.Errorf("dataset %s: %v; want %q", c.name, err, c.want)
		}
	}
}
