package trace_test

import (
	"bytes"
	"encoding/csv"
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

// Trace strings that a spreadsheet would read as a formula are prefixed
// with ' in the CSV; numbers, negative ones included, stay numbers; the
// record a data frame reads (CSVRecord) stays as the trace has it.
func TestCSVFormulaCellsPrefixed(t *testing.T) {
	in := `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000}}
{"attempt":"=HYPERLINK(\"http://x\",\"y\")","request":"+1+1","start_ms":1,"outcome":"http_error","http_status":500,"events":[],"end_ms":5,"error":"@SUM(A1)"}
{"attempt":"-2+3","request":"\tx","start_ms":2,"outcome":"http_error","http_status":500,"events":[],"end_ms":5,"error":"\r=1"}
{"attempt":"-3.5","request":"-1e-3","start_ms":3,"outcome":"http_error","http_status":500,"events":[],"end_ms":5,"error":"-"}
`
	var b bytes.Buffer
	if err := trace.WriteCSV(strings.NewReader(in), "t.jsonl", &b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for i, want := range [][3]string{
		{`'=HYPERLINK("http://x","y")`, "'+1+1", "'@SUM(A1)"},
		{"'-2+3", `\tx`, `\r=1`}, // a tab or CR is written escaped (TestCSVEscapesControlCodes): no formula
		{"-3.5", "-1e-3", "'-"},
	} {
		r := rows[i+1]
		if got := [3]string{r[col["attempt"]], r[col["request"]], r[col["error"]]}; got != want {
			t.Errorf("row %d: attempt, request, error = %q, want %q", i+1, got, want)
		}
	}
	tr, err := trace.Read(strings.NewReader(in), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if rec := trace.CSVRecord(&tr.Header, &tr.Attempts[0]); rec[1] != `=HYPERLINK("http://x","y")` {
		t.Errorf("CSVRecord changed the attempt id: %q", rec[1])
	}
}

// Terminal escapes in a trace's strings (an attacker's attempt id or error) are written
// escaped: `coursekit csv` prints to the terminal by default.
func TestCSVEscapesControlCodes(t *testing.T) {
	in := `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":10}}
{"attempt":"a\u001b]0;PWN\u0007\u009b\u202e","start_ms":0,"outcome":"http_error","end_ms":2,"error":"-e\u001b]0;PWN\u0007"}
`
	var b strings.Builder
	if err := trace.WriteCSV(strings.NewReader(in), "t.jsonl", &b); err != nil {
		t.Fatal(err)
	}
	for i, r := range b.String() {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) {
			t.Fatalf("raw control code %U at %d: %q", r, i, b.String())
		}
	}
	if !strings.Contains(b.String(), `a\x1b]0;PWN\x07`) {
		t.Errorf("the id is not shown escaped:\n%s", b.String())
	}
}
