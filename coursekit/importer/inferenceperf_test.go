package importer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// inference-perf keeps failures in its per-request file: the card counts
// them, and every content chunk is an event on the shared perf_counter clock.
func TestImportInferencePerfLifecycle(t *testing.T) {
	im := importFile(t, "inference-perf", "inference_perf_per_request.json", Options{})
	c := im.card
	if c.Attempts != 4 || c.CompleteSuccess != 2 || c.Failures != 2 || c.TTFTMissing != 2 {
		t.Fatalf("attempts %d ok %d failures %d missing %d", c.Attempts, c.CompleteSuccess, c.Failures, c.TTFTMissing)
	}
	if c.Outcomes["http_error"] != 1 || c.Outcomes["timeout"] != 1 {
		t.Errorf("outcomes %v", c.Outcomes)
	}
	// The origin is the earliest scheduled time (1000.000 s): r0 was sent
	// 2 ms after it, so the window starts at the first send, not at 0.
	if im.tr.Header.Window != (trace.Window{StartMS: 2, EndMS: 1750}) {
		t.Errorf("window %+v", im.tr.Header.Window)
	}
	r0 := im.attempt(t, "r0")
	want := []trace.Event{{TMS: 102, Tokens: 1}, {TMS: 122, Tokens: 2}, {TMS: 142, Tokens: 1}}
	if r0.StartMS != 2 || r0.EndMS != 150 || len(r0.Events) != 3 || r0.Events[0] != want[0] || r0.Events[1] != want[1] || r0.Events[2] != want[2] {
		t.Errorf("r0 %v %v %v", r0.StartMS, r0.Events, r0.EndMS)
	}
	if r0.OutputTokens != 4 || r0.InputTokens != 12 {
		t.Errorf("r0 tokens in %d out %d", r0.InputTokens, r0.OutputTokens)
	}
	// Two data: lines of one SSE message share a time: one event of 2 tokens.
	if r1 := im.attempt(t, "r1"); len(r1.Events) != 2 || r1.Events[0] != (trace.Event{TMS: 460, Tokens: 2}) {
		t.Errorf("r1 events %v", r1.Events)
	}
	if r2 := im.attempt(t, "r2"); r2.Outcome != trace.HTTPError || r2.HTTPStatus != 503 || r2.Error != "HTTP Error 503: Service Unavailable" {
		t.Errorf("r2 %+v", r2)
	}
	// The scheduled time is kept, as our own client keeps it.
	var meta struct {
		Scheduled *float64 `json:"scheduled_ms"`
		Stage     *int     `json:"stage_id"`
	}
	if err := json.Unmarshal(im.attempt(t, "r1").Meta, &meta); err != nil || meta.Scheduled == nil || *meta.Scheduled != 250 || *meta.Stage != 0 {
		t.Errorf("r1 meta %s", im.attempt(t, "r1").Meta)
	}
	notes := strings.Join(im.rep.NotesIn(lang.EN), "\n")
	for _, w := range []string{"largest lag of a send behind its schedule is 10 ms", "failures are left out of its denominator", "the gaps inside a chunk are 0", "summary_lifecycle_metrics.json"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if im.rep.ITLSemantics != "per_token_zero_fill" || !strings.Contains(im.conds["clock"].(string), "relative clock") {
		t.Errorf("ITL %q, clock %q", im.rep.ITLSemantics, im.conds["clock"])
	}
	// The card's ITL is per event (3 gaps); the tool's per token (5 gaps, two of them 0).
	if c.ITL.N != 3 {
		t.Errorf("card ITL n=%d", c.ITL.N)
	}
	if s := im.stat(t, "itl_ms", "mean"); !s.Derived || !near(*s.Value, 16) {
		t.Errorf("tool ITL %+v", s)
	}
	if s := im.stat(t, "ttft_ms", "p99"); !near(*s.Value, 199) { // linear between 100 and 200
		t.Errorf("tool TTFT p99 %+v", s)
	}
}

// The report writer's own export has request/response and no
// scheduled_time: the import works and says what it lost.
func TestImportInferencePerfWithoutSchedule(t *testing.T) {
	in := `[{"start_time": 5.0, "end_time": 5.5, "request": "{}", "response": "",
	  "info": {"input_tokens": 7, "response_metrics": {"output_tokens": 3, "chunk_times": [5.1, 5.2]}}, "error": null},
	 {"start_time": 5.25, "end_time": 5.75, "request": "{}", "response": "{}", "info": {"request_metrics": {"text": {"input_tokens": 7}}, "response_metrics": {"output_tokens": 2}}, "error": null}]`
	var out bytes.Buffer
	rep, err := Import("inference-perf", strings.NewReader(in), "p.json", &out)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(&out, "p")
	if err != nil {
		t.Fatal(err)
	}
	a, b := tr.Attempts[0], tr.Attempts[1]
	// No output_token_times: 3 tokens spread over 2 chunks.
	if a.StartMS != 0 || len(a.Events) != 2 || a.Events[0].Tokens != 2 || a.Events[1].TMS != 200 || a.InputTokens != 7 {
		t.Errorf("streamed row %+v", a)
	}
	// Not streamed: one event at the end, TTFT = E2E.
	if b.Outcome != trace.OK || len(b.Events) != 1 || b.Events[0].TMS != 750 || b.Events[0].Tokens != 2 {
		t.Errorf("unary row %+v", b)
	}
	if !strings.Contains(strings.Join(rep.NotesIn(lang.EN), " "), "2 of 2 rows carry no scheduled_time") {
		t.Errorf("notes %q", rep.Notes)
	}
	if bytes.Contains(a.Meta, []byte("scheduled_ms")) {
		t.Errorf("invented a schedule: %s", a.Meta)
	}
}

func TestImportInferencePerfMalformed(t *testing.T) {
	row := func(body string) string { return `[{"start_time": 1.0, "end_time": 2.0, "error": null, ` + body + `}]` }
	cases := []struct {
		name, in string
		want     []string
	}{
		{"truncated", "[\n {\"start_time\": 1.0,\n  \"end_time\": 2", []string{"f.json:3", "truncated"}},
		{"not an array", `{"successes": {"count": 1}}`, []string{"want a JSON array, got an object"}},
		{"empty", `[]`, []string{"the array is empty"}},
		{"missing start", `[{"end_time": 2.0, "error": null}]`, []string{"[0].start_time: missing"}},
		{"missing error field", `[{"start_time": 1.0, "end_time": 2.0}]`, []string{"[0].error: missing"}},
		{"error without type", `[{"start_time": 1.0, "end_time": 2.0, "error": {"error_msg": "x"}}]`, []string{"[0].error.error_type: missing"}},
		{"string time", `[{"start_time": "1.0", "end_time": 2.0, "error": null}]`, []string{`[0].start_time: want a number, got the string "1.0"`}},
		{"NaN end", `[{"start_time": 1.0, "end_time": NaN, "error": null}]`, []string{"[0].end_time: is NaN"}},
		{"end before start", `[{"start_time": 3.0, "end_time": 2.0, "error": null}]`, []string{"[0].end_time: 2 s is before start_time 3 s"}},
		{"chunks not a list", row(`"info": {"response_metrics": {"chunk_times": 1.5}}`), []string{"[0].info.response_metrics.chunk_times: want a JSON array, got the number 1.5"}},
		{"chunk before start", row(`"info": {"response_metrics": {"chunk_times": [0.5]}}`), []string{"chunk_times[0]: 0.5 s is before start_time 1 s"}},
		{"chunk after end", row(`"info": {"response_metrics": {"chunk_times": [1.5, 2.5]}}`), []string{"chunk_times[1]: 2.5 s is after end_time 2 s"}},
		{"chunks out of order", row(`"info": {"response_metrics": {"chunk_times": [1.5, 1.2]}}`), []string{"chunk_times[1]", "arrival order"}},
		{"infinite token time", row(`"info": {"response_metrics": {"chunk_times": [1.5], "output_token_times": [Infinity]}}`), []string{"output_token_times[0]: is infinite"}},
		{"fractional tokens", row(`"info": {"response_metrics": {"output_tokens": 2.5}}`), []string{"output_tokens: is 2.5, want a whole number"}},
		{"info not an object", row(`"info": [1]`), []string{"[0].info: want a JSON object, got an array"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := Import("inference-perf", strings.NewReader(c.in), "f.json", &out)
			if err == nil {
				t.Fatalf("no error; wrote\n%s", out.String())
			}
			if !trace.IsBadInput(err) {
				t.Errorf("%v is not a located bad-input error", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if out.Len() != 0 {
				t.Errorf("partial output written on error: %q", out.String())
			}
		})
	}
}
