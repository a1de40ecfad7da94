package trace_test

import (
	"strings"
	"testing"
)

// A line that is not valid JSON says so, at FILE:LINE, even when the
// reader met something else wrong before the line breaks: walk 35l's cut
// line `{"bad": ` read "bad: unknown field". A problem at the value where
// the reader stopped keeps its own message.
func TestCutLineSaysNotJSON(t *testing.T) {
	for _, c := range []struct {
		line, want, never string
	}{
		{`{"bad": `, `t.jsonl:2: not valid JSON (truncated: the line ends inside a value): unexpected end of line after column 8 (want a value)`, "unknown field"},
		{`{"attempt":"R1","attempt":"R2","start_ms":`, `: not valid JSON (truncated`, "given twice"},
		{`{"attempt":"R1","start_ms":-5,"outcome":"ok"`, `t.jsonl:2: attempt "R1": not valid JSON (truncated`, "negative"},
		{`{"bad": 1 "x": 2}`, `t.jsonl:2: not valid JSON: unexpected '"' at column 11 (want ',' or '}')`, "unknown field"},
		{`{"bad": 1} trailing`, `t.jsonl:2: not valid JSON: unexpected 't' at column 12 (want the end of the line after the object)`, "unknown field"},
		// The value the reader stopped at: its own message.
		{`{"attempt":"R1","start_ms":NaN,"outcome":"ok"}`, `t.jsonl:2: attempt "R1": start_ms: is NaN`, "not valid JSON"},
		{`{"attempt":"R1","start_ms":x}`, `t.jsonl:2: attempt "R1": start_ms: want a number`, "not valid JSON"},
		// Valid JSON: the field's message.
		{`{"bad": 1}`, `t.jsonl:2: bad: unknown field`, "not valid JSON"},
	} {
		_, err := read(t, header, c.line)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.never) {
			t.Errorf("%s: %v\nwant %q", c.line, err, c.want)
		}
	}
}
