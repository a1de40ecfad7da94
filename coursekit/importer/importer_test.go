package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// imported is one import read back the way every consumer reads a trace.
type imported struct {
	rep   *Report
	tr    *trace.Trace
	card  *metrics.Summary
	conds map[string]any
}

func importFile(t *testing.T, from, file string, opt Options) imported {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep, err := ImportWith(from, bytes.NewReader(raw), file, &out, opt)
	if err != nil {
		t.Fatalf("import %s: %v", file, err)
	}
	tr, err := trace.Read(bytes.NewReader(out.Bytes()), file+".trace")
	if err != nil {
		t.Fatalf("the imported trace does not read back: %v\n%s", err, out.String())
	}
	var conds map[string]any
	if err := json.Unmarshal(tr.Header.Conditions, &conds); err != nil {
		t.Fatal(err)
	}
	return imported{rep, tr, metrics.Summarize(tr, metrics.Options{}), conds}
}

func (im imported) stat(t *testing.T, metric, stat string) Stat {
	t.Helper()
	for _, s := range im.rep.Stats {
		if s.Metric == metric && s.Stat == stat {
			return s
		}
	}
	t.Fatalf("no tool stat %s %s in %+v", metric, stat, im.rep.Stats)
	return Stat{}
}

func (im imported) attempt(t *testing.T, id string) *trace.Attempt {
	t.Helper()
	for i := range im.tr.Attempts {
		if im.tr.Attempts[i].ID == id {
			return &im.tr.Attempts[i]
		}
	}
	t.Fatalf("no attempt %q", id)
	return nil
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func ratio(r metrics.Ratio) (float64, float64) { return r.Num, r.Den }

// A current vLLM file with one failed request: vLLM's percentiles leave it
// out, our card keeps it as 1 failure in 4 attempts with a missing TTFT.
func TestVLLMCurrentKeepsTheFailure(t *testing.T) {
	im := importFile(t, "vllm", "vllm_current.json", Options{})
	c := im.card
	if c.Attempts != 4 || c.CompleteSuccess != 3 || c.Failures != 1 || c.TTFTMissing != 1 {
		t.Fatalf("denominators: attempts %d ok %d failures %d missing TTFT %d", c.Attempts, c.CompleteSuccess, c.Failures, c.TTFTMissing)
	}
	if n, d := ratio(c.FailureRate); n != 1 || d != 4 {
		t.Errorf("failure rate %v/%v, want 1/4", n, d)
	}
	if got := im.stat(t, "completed", "count"); *got.Value != 3 {
		t.Errorf("vLLM completed = %v", *got.Value)
	}
	if got := im.stat(t, "failed", "count"); *got.Value != 1 {
		t.Errorf("vLLM failed = %v", *got.Value)
	}
	if got := im.stat(t, "request_goodput", "value"); got.Key != "request_goodput" || *got.Value != 0.511 {
		t.Errorf("goodput stat %+v", got)
	}
	// vLLM's p99 TTFT is linear over 3 successes (609.78); nearest-rank is the largest observed value.
	if p := im.stat(t, "ttft_ms", "p99"); *p.Value != 609.78 {
		t.Errorf("tool p99 %v", *p.Value)
	}
	if c.TTFT.N != 3 || *c.TTFT.P99 != 620.3 {
		t.Errorf("our TTFT n=%d p99=%v, want n=3 p99=620.3", c.TTFT.N, *c.TTFT.P99)
	}
	// The failure: http status unknown, a traceback → stream_error, no events.
	f := im.attempt(t, "r2")
	if f.Outcome != trace.StreamError || len(f.Events) != 0 || !strings.Contains(f.Error, "ClientPayloadError") {
		t.Errorf("failed attempt %+v", f)
	}
	// Clocks: relative perf_counter → ms from the first start.
	if a := im.attempt(t, "r1"); a.StartMS != 285.4 || a.Events[0].TMS != 379.8 || a.EndMS != 442.4 {
		t.Errorf("r1 times %v %v %v", a.StartMS, a.Events, a.EndMS)
	}
	if im.tr.Header.Window != (trace.Window{StartMS: 0, EndMS: 3912}) {
		t.Errorf("window %+v", im.tr.Header.Window)
	}
	// Multi-token events: r1 streamed 5 tokens in 3 events, so ITL (per event) and TPOT differ.
	if c.ITL.N != 7 || c.ITL.Unit != "event" {
		t.Errorf("ITL n=%d unit=%s, want 7 per-event gaps", c.ITL.N, c.ITL.Unit)
	}
	if c.Event.MultiTokenEvents == 0 {
		t.Error("multi-token events not visible on the card")
	}
	if tp, ok := im.attempt(t, "r1").TPOT(); !ok || !near(tp, (157-94.4)/4) {
		t.Errorf("r1 TPOT %v, want %v", tp, (157-94.4)/4)
	}
	for _, k := range []string{"clock", "window", "itl_semantics", "quality", "event_tokens"} {
		if s, _ := im.conds[k].(string); s == "" {
			t.Errorf("conditions.%s missing", k)
		}
	}
	if im.conds["itl_semantics"] != "per_event" || im.rep.ITLSemantics != "per_event" {
		t.Errorf("ITL semantics %v", im.conds["itl_semantics"])
	}
	for _, a := range im.tr.Attempts {
		if a.Quality != trace.Unrated {
			t.Errorf("%s: quality %v, want unrated", a.ID, a.Quality)
		}
	}
}

// The old benchmark_serving.py layout: "request_goodput:" and no failed,
// start_times or latencies.
func TestVLLMOldLayout(t *testing.T) {
	im := importFile(t, "vllm", "vllm_old.json", Options{})
	if !strings.Contains(im.rep.Layout, "request_goodput:") {
		t.Errorf("layout %q", im.rep.Layout)
	}
	g := im.stat(t, "request_goodput", "value")
	if g.Key != "request_goodput:" || g.Value != nil {
		t.Errorf("goodput stat %+v, want the colon key with null", g)
	}
	if im.card.Attempts != 4 || im.card.Failures != 1 { // num_prompts says 5: the arrays win
		t.Errorf("attempts %d failures %d", im.card.Attempts, im.card.Failures)
	}
	for _, a := range im.tr.Attempts {
		if a.StartMS != 0 {
			t.Errorf("%s starts at %v without start_times", a.ID, a.StartMS)
		}
	}
	if a := im.attempt(t, "r2"); a.Outcome != trace.HTTPError || a.HTTPStatus != 503 {
		t.Errorf("reason phrase not mapped: %+v", a)
	}
	if a := im.attempt(t, "r3"); a.EndMS != 360 { // ttft + Σ itls without latencies
		t.Errorf("r3 end %v", a.EndMS)
	}
	if len(im.rep.Notes) == 0 || !strings.Contains(strings.Join(im.rep.NotesIn(lang.EN), "\n"), "num_prompts") {
		t.Errorf("notes %q", im.rep.Notes)
	}
}

// Bare NaN/Infinity tokens from Python's json.dump are sanitised outside
// strings only.
func TestVLLMBareNaN(t *testing.T) {
	im := importFile(t, "vllm", "vllm_nan.json", Options{})
	if s := im.stat(t, "ttft_ms", "std"); s.Value != nil || s.NonFinite != "NaN" {
		t.Errorf("std_ttft_ms %+v", s)
	}
	if s := im.stat(t, "itl_ms", "std"); s.NonFinite != "-Infinity" {
		t.Errorf("std_itl_ms %+v", s)
	}
	tool := im.conds["tool_config"].(map[string]any)
	if tool["burstiness"] != "Infinity" || tool["request_rate"] != "inf" {
		t.Errorf("tool config %v", tool)
	}
	// An empty error with a 0.0 TTFT: a failure, flagged as ambiguous.
	if a := im.attempt(t, "r1"); a.Outcome != trace.HTTPError || len(a.Events) != 0 {
		t.Errorf("r1 %+v", a)
	}
	if _, err := json.Marshal(im.rep); err != nil {
		t.Errorf("report is not JSON: %v", err)
	}
}

// --append-result writes one run per line: an error without --run, the
// chosen run with it.
func TestVLLMAppendedRuns(t *testing.T) {
	raw, _ := os.ReadFile("testdata/vllm_append.jsonl")
	var out bytes.Buffer
	_, err := Import("vllm", bytes.NewReader(raw), "runs.jsonl", &out)
	if err == nil || !strings.Contains(err.Error(), "runs.jsonl:2:") || !strings.Contains(err.Error(), "--run 1..2") {
		t.Fatalf("err = %v", err)
	}
	if out.Len() != 0 {
		t.Error("wrote output on error")
	}
	im := importFile(t, "vllm", "vllm_append.jsonl", Options{Run: 2})
	if im.rep.Run != 2 || im.rep.Runs != 2 || im.card.Attempts != 3 || im.card.Failures != 1 {
		t.Errorf("run 2: %+v %+v", im.rep, im.card.Outcomes)
	}
	if a := im.attempt(t, "r1"); a.HTTPStatus != 429 {
		t.Errorf("Too Many Requests → %d", a.HTTPStatus)
	}
	if _, err := ImportWith("vllm", bytes.NewReader(raw), "runs.jsonl", &out, Options{Run: 3}); err == nil || !strings.Contains(err.Error(), "only 2") {
		t.Errorf("run 3: %v", err)
	}
}

func TestAIPerfRecords(t *testing.T) {
	im := importFile(t, "aiperf", "aiperf_profile_export.jsonl", Options{})
	c := im.card
	if c.Attempts != 4 || c.CompleteSuccess != 2 || c.Failures != 2 || c.TTFTMissing != 2 {
		t.Fatalf("attempts %d ok %d failures %d missing %d", c.Attempts, c.CompleteSuccess, c.Failures, c.TTFTMissing)
	}
	if c.Outcomes["cancelled"] != 1 || c.Outcomes["http_error"] != 1 {
		t.Errorf("outcomes %v", c.Outcomes)
	}
	if c.ITL.N != 10 { // 8 + 2 inter-chunk gaps, per event
		t.Errorf("ITL n=%d", c.ITL.N)
	}
	if a := im.attempt(t, "req-2"); math.Abs(a.Events[0].TMS-a.StartMS-200) > 1e-6 { // short tag "ttft"
		t.Errorf("req-2 TTFT from the short tag: %+v", a)
	}
	// AIPerf's own ITL is the per-request average: its mean over 2 records.
	if s := im.stat(t, "itl_ms", "mean"); !s.Derived || !near(*s.Value, (6.25+14.29)/2) {
		t.Errorf("tool ITL %+v", s)
	}
	if im.rep.ITLSemantics != "per_token_amortized" {
		t.Errorf("AIPerf ITL semantics %q", im.rep.ITLSemantics)
	}
	// The file's one warm-up record is counted as one ("1 warm-up records"
	// before), in the note in both languages and in the trace's conditions.
	if en := strings.Join(im.rep.NotesIn(lang.EN), " "); !strings.Contains(en, "1 warm-up record left out") {
		t.Errorf("notes %q", en)
	}
	if zh := strings.Join(im.rep.NotesIn(lang.ZH), " "); !strings.Contains(zh, "略去了 1 条预热记录") {
		t.Errorf("notes %q", zh)
	}
	if c := fmt.Sprint(im.conds); !strings.Contains(c, "1 warm-up record dropped") || strings.Contains(c, "1 warm-up records") {
		t.Errorf("conditions %s", c)
	}
}

func TestGenAIPerfChunks(t *testing.T) {
	im := importFile(t, "genai-perf", "genai_perf_profile_export.json", Options{})
	c := im.card
	if c.Attempts != 3 || c.CompleteSuccess != 2 || c.Failures != 1 {
		t.Fatalf("attempts %d ok %d failures %d", c.Attempts, c.CompleteSuccess, c.Failures)
	}
	a := im.attempt(t, "r0") // usage-only chunk and [DONE] are not events, but [DONE] is the end
	if len(a.Events) != 3 || a.EndMS != 161 || a.Events[0].TMS != 100 {
		t.Errorf("r0 %+v", a)
	}
	if c.ITL.N != 3 {
		t.Errorf("ITL n=%d", c.ITL.N)
	}
	if im.tr.Header.Window.EndMS != 290.080001 {
		t.Errorf("window %+v", im.tr.Header.Window)
	}
}

func TestGuidellmStatuses(t *testing.T) {
	im := importFile(t, "guidellm", "guidellm_v2.json", Options{})
	c := im.card
	if c.Attempts != 4 || c.CompleteSuccess != 2 || c.Outcomes["cancelled"] != 1 || c.Outcomes["http_error"] != 1 {
		t.Fatalf("attempts %d ok %d outcomes %v", c.Attempts, c.CompleteSuccess, c.Outcomes)
	}
	if c.TTFTMissing != 1 || c.TTFT.N != 2 || c.ITL.N != 0 {
		t.Errorf("missing %d TTFT n=%d ITL n=%d", c.TTFTMissing, c.TTFT.N, c.ITL.N)
	}
	if a := im.attempt(t, "e-1"); a.HTTPStatus != 503 {
		t.Errorf("e-1 %+v", a)
	}
	// guidellm's total block counts the errored request's TTFT as 0.
	if s := im.stat(t, GuidellmTotalZero, "mean"); *s.Value != 87.5 {
		t.Errorf("total mean %+v", s)
	}
	if im.conds["itl_semantics"] != "per_token_amortized" || im.conds["sampled"] != false {
		t.Errorf("conditions %v", im.conds)
	}

	old := importFile(t, "guidellm", "guidellm_v03.json", Options{})
	if old.conds["sampled"] != true || old.card.Attempts != 3 || old.card.Outcomes["timeout"] != 1 {
		t.Errorf("v0.3: sampled %v attempts %d outcomes %v", old.conds["sampled"], old.card.Attempts, old.card.Outcomes)
	}
	if old.tr.Header.Window.EndMS != 10000 {
		t.Errorf("v0.3 window %+v", old.tr.Header.Window)
	}
}

func TestLLMPerfRows(t *testing.T) {
	im := importFile(t, "llmperf", "llmperf_individual_responses.json", Options{})
	c := im.card
	if c.Attempts != 4 || c.Failures != 2 || c.TTFTMissing != 2 || c.Outcomes["timeout"] != 1 || c.Outcomes["http_error"] != 1 {
		t.Fatalf("attempts %d failures %d missing %d outcomes %v", c.Attempts, c.Failures, c.TTFTMissing, c.Outcomes)
	}
	if im.rep.ITLSemantics != "invalid" {
		t.Errorf("ITL semantics %q", im.rep.ITLSemantics)
	}
	if s := im.stat(t, "error_rate", "value"); *s.Value != 0.5 {
		t.Errorf("error rate %+v", s)
	}
	if s := im.stat(t, "ttft_ms", "p50"); !near(*s.Value, 266) { // pandas linear over the 2 successes
		t.Errorf("tool TTFT p50 %+v", s)
	}
}

// Every malformed input is a located error, and nothing is written.
func TestMalformedInputs(t *testing.T) {
	vllm := func(body string) string {
		return `{"duration": 2.0, "completed": 2, ` + body + `}`
	}
	cases := []struct {
		name, from, in string
		want           []string
	}{
		{"truncated", "vllm", "{\n \"duration\": 1.0,\n \"ttfts\": [0.1,\n", []string{"f.json:4", "truncated"}},
		{"syntax", "vllm", "{\n \"duration\": 1.0,\n \"ttfts\": [0.1 0.2]}", []string{"f.json:3", "column 16", "malformed JSON"}},
		{"not an object", "vllm", `[1, 2]`, []string{"want a JSON object, got an array"}},
		{"no rows", "vllm", `{"duration": 2.0, "num_prompts": 10, "completed": 10}`, []string{"ttfts: missing", "num_prompts"}},
		{"wrong type", "vllm", vllm(`"ttfts": [0.1, "abc"], "itls": [[], []]`), []string{`ttfts[1]: want a number, got the string "abc"`}},
		{"wrong container", "vllm", vllm(`"ttfts": {"a": 1}, "itls": []`), []string{"ttfts: want a JSON array, got an object"}},
		{"length mismatch", "vllm", vllm(`"ttfts": [0.1, 0.2], "itls": [[0.01]]`), []string{"itls: has 1 entry but ttfts has 2"}},
		{"errors mismatch", "vllm", vllm(`"ttfts": [0.1], "itls": [[]], "errors": ["", ""]`), []string{"errors: has 2 entries but ttfts has 1"}},
		{"negative ttft", "vllm", vllm(`"ttfts": [0.1, -0.2], "itls": [[], []]`), []string{"ttfts[1]: is negative (-0.2)"}},
		{"NaN ttft", "vllm", vllm(`"ttfts": [NaN], "itls": [[]]`), []string{"ttfts[0]: is NaN"}},
		{"infinite gap", "vllm", vllm(`"ttfts": [0.1, 0.2], "itls": [[], [0.01, Infinity]]`), []string{"itls[1][1]: is infinite"}},
		{"NaN start", "vllm", vllm(`"ttfts": [0.1], "itls": [[]], "start_times": [NaN]`), []string{"start_times[0]: is NaN"}},
		{"latency before events", "vllm", vllm(`"ttfts": [0.1], "itls": [[0.05]], "latencies": [0.12]`), []string{"latencies[0]", "before the last event"}},
		{"gaps without ttft", "vllm", vllm(`"ttfts": [0.0], "itls": [[0.05]], "errors": ["x"]`), []string{"itls[0]: has 1 gap but"}},
		{"zero duration", "vllm", `{"duration": 0, "ttfts": [0.1], "itls": [[]]}`, []string{"duration: is 0"}},
		{"bad output_lens", "vllm", vllm(`"ttfts": [0.1], "itls": [[]], "output_lens": [1.5]`), []string{"output_lens[0]: is 1.5, want a whole number"}},
		{"aiperf truncated line", "aiperf", "{\"metadata\": {\"request_start_ns\": 1}, \"error\": null}\n{\"metadata\": {\"request_start_ns\": 2", []string{"f.json:2", "truncated"}},
		{"aiperf bad unit", "aiperf", `{"metadata": {"request_start_ns": 1}, "metrics": {"time_to_first_token": {"value": 1, "unit": "parsecs"}}, "error": null}`, []string{"metrics.time_to_first_token.unit", "not a time unit"}},
		{"aiperf negative start", "aiperf", `{"metadata": {"request_start_ns": -5}, "error": null}`, []string{"metadata.request_start_ns: is negative"}},
		{"aiperf end before start", "aiperf", "\n\n" + `{"metadata": {"request_start_ns": 10, "request_end_ns": 5}, "error": null}`, []string{"f.json:3", "request_end_ns: 5 is before"}},
		{"aiperf NaN gap", "aiperf", `{"metadata": {"request_start_ns": 1}, "metrics": {"ttft": {"value": 1, "unit": "ms"}, "inter_chunk_latency": {"value": [1, NaN], "unit": "ms"}}, "error": null}`, []string{"metrics.inter_chunk_latency.value[1]: is NaN"}},
		{"genai-perf order", "genai-perf", `{"experiments": [{"requests": [{"timestamp": 100, "response_timestamps": [200, 150]}]}]}`, []string{"experiments[0].requests[0].response_timestamps[1]", "arrival order"}},
		{"genai-perf outputs mismatch", "genai-perf", `{"experiments": [{"requests": [{"timestamp": 100, "response_timestamps": [200], "response_outputs": []}]}]}`, []string{"response_outputs: has 0 entries but response_timestamps has 1"}},
		{"genai-perf bad body", "genai-perf", `{"experiments": [{"requests": [{"timestamp": 100, "response_timestamps": [200], "response_outputs": [42]}]}]}`, []string{`requests[0].response_outputs[0]: want {"response": "..."}, got the number 42`}},
		{"genai-perf two experiments", "genai-perf", `{"experiments": [{"requests": []}, {"requests": []}]}`, []string{"2 runs", "--run"}},
		{"guidellm no start", "guidellm", `{"benchmarks": [{"requests": {"successful": [{"request_id": "x"}]}}]}`, []string{"benchmarks[0].requests.successful[0]", "send time is unknown"}},
		{"guidellm first before start", "guidellm", `{"benchmarks": [{"requests": {"successful": [{"start_time": 10, "first_token_time": 9}]}}]}`, []string{"first_token_iteration: 9 is before"}},
		{"llmperf wrong type", "llmperf", `[{"error_code": null, "ttft_s": 0.1, "end_to_end_latency_s": 1}, {"error_code": null, "ttft_s": "fast", "end_to_end_latency_s": 1}]`, []string{`[1].ttft_s: want a number, got the string "fast"`}},
		{"llmperf not array", "llmperf", `{"results": []}`, []string{"want a JSON array, got an object"}},
		{"llmperf e2e before ttft", "llmperf", `[{"error_code": null, "ttft_s": 2, "end_to_end_latency_s": 1}]`, []string{"[0].end_to_end_latency_s: 1 s is before ttft_s"}},
		{"empty file", "guidellm", "  \n", []string{"f.json: the file is empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := Import(c.from, strings.NewReader(c.in), "f.json", &out)
			if err == nil {
				t.Fatalf("no error; wrote\n%s", out.String())
			}
			t.Log(err)
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
	_, err := Import("locust", strings.NewReader("{}"), "f.json", new(bytes.Buffer))
	if !errors.Is(err, ErrUnknownTool) || Known("locust") || !Known("genai-perf") {
		t.Errorf("unknown tool: %v", err)
	}
}

// A mid-stream failure keeps the TTFT and gaps vLLM recorded before it
// broke: a stream_error with events, whose TTFT is real, not missing.
func TestVLLMMidStreamFailure(t *testing.T) {
	in := `{"duration": 1.0, "completed": 0, "failed": 1, "ttfts": [0.1], "itls": [[0.02]], "output_lens": [0],
	"errors": ["Traceback (most recent call last):\naiohttp.client_exceptions.ServerDisconnectedError: Server disconnected"]}`
	tr := importVLLMText(t, in)
	a := tr.Attempts[0]
	if a.Outcome != trace.StreamError || len(a.Events) != 2 || a.Events[1].TMS != 120 || a.EndMS != 120 {
		t.Errorf("attempt %+v", a)
	}
	if s := metrics.Summarize(tr, metrics.Options{}); s.TTFTMissing != 0 || s.TTFT.N != 0 || s.Failures != 1 {
		t.Errorf("card: missing %d, TTFT n=%d, failures %d", s.TTFTMissing, s.TTFT.N, s.Failures)
	}
}

// A vLLM label's free-form keys may differ only in case ({"a":1,"A":2}): the trace keeps both
// and reads back (the attacker walk's import exited 2, "does not read back (a bug)").
func TestVLLMLabelKeysDifferingOnlyInCase(t *testing.T) {
	r := vllmResult([]any{"x", "y"}, []string{"", ""})
	r["label"] = map[string]any{"a": 1, "A": 2}
	raw, _ := json.Marshal(r)
	var out bytes.Buffer
	if _, err := ImportWith("vllm", bytes.NewReader(raw), "result.json", &out, Options{}); err != nil {
		t.Fatalf("import: %v", err)
	}
	tr, err := trace.Read(&out, "imported")
	if err != nil {
		t.Fatalf("the imported trace does not read back: %v", err)
	}
	if !strings.Contains(string(tr.Header.Conditions), `"A":2`) || !strings.Contains(string(tr.Header.Conditions), `"a":1`) {
		t.Errorf("label keys not kept as written: %s", tr.Header.Conditions)
	}
}

// The same ServerDisconnectedError before any token (vLLM wrote no TTFT):
// nothing was received, so it is no_response, not a broken stream.
func TestVLLMDisconnectedBeforeAnyTokenIsNoResponse(t *testing.T) {
	in := `{"duration": 1.0, "completed": 0, "failed": 1, "ttfts": [0.0], "itls": [[]], "output_lens": [0],
	"errors": ["Traceback (most recent call last):\naiohttp.client_exceptions.ServerDisconnectedError: Server disconnected"]}`
	if a := importVLLMText(t, in).Attempts[0]; a.Outcome != trace.NoResponse || len(a.Events) != 0 {
		t.Errorf("attempt %+v, want no_response without events", a)
	}
}

// importVLLMText imports a vLLM result given as text and reads the trace
// back.
func importVLLMText(t *testing.T, in string) *trace.Trace {
	t.Helper()
	var out bytes.Buffer
	if _, err := Import("vllm", strings.NewReader(in), "vllm.json", &out); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(&out, "vllm")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
