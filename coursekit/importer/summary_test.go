package importer

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

func readSummaryFile(t *testing.T, from, file string) []Stat {
	t.Helper()
	f, err := os.Open("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stats, err := ReadSummary(from, f, file)
	if err != nil {
		t.Fatalf("summary %s: %v", file, err)
	}
	return stats
}

// importWithSummary imports rows with the tool's summary file beside them.
func importWithSummary(t *testing.T, from, rows, summary string) imported {
	t.Helper()
	return importFile(t, from, rows, Options{Summary: readSummaryFile(t, from, summary), SummaryName: "testdata/" + summary})
}

// want checks one stat read from a summary: its value (in ms for times),
// its JSON key, and that it is the tool's own number, not a recomputation.
func (im imported) want(t *testing.T, metric, stat, key string, v float64) {
	t.Helper()
	s := im.stat(t, metric, stat)
	if s.Value == nil || !near(*s.Value, v) || s.Key != key || s.Derived {
		t.Errorf("%s %s = %+v, want %v from %s, not derived", metric, stat, s, v, key)
	}
}

// AIPerf's summary replaces the numbers recomputed from the records: its
// benchmark_duration in seconds becomes duration_s, its ms stay ms.
func TestImportAIPerfSummary(t *testing.T) {
	im := importWithSummary(t, "aiperf", "aiperf_profile_export.jsonl", "aiperf_profile_export_aiperf.json")
	im.want(t, "completed", "count", "request_count.avg", 2)
	im.want(t, "failed", "count", "error_request_count.avg", 2)
	im.want(t, "duration_s", "value", "benchmark_duration.avg", 1.167099637)
	im.want(t, "ttft_ms", "p90", "time_to_first_token.p90", 250.292)
	im.want(t, "itl_ms", "mean", "inter_token_latency.avg", 10.27)
	im.want(t, "e2e_ms", "p99", "request_latency.p99", 305.8055986)
	if im.rep.Summary != "aiperf_profile_export_aiperf.json" {
		t.Errorf("report summary %q", im.rep.Summary)
	}
	notes := strings.Join(im.rep.NotesIn(lang.EN), "\n")
	if strings.Contains(notes, "recomputed") || !strings.Contains(notes, "request counts agree") {
		t.Errorf("notes:\n%s", notes)
	}
	// The card is the same with or without the summary: it reads the rows.
	if im.card.Attempts != 4 || im.card.Failures != 2 {
		t.Errorf("card attempts %d failures %d", im.card.Attempts, im.card.Failures)
	}
}

// A unit field decides the scale: ns and s become ms.
func TestImportSummaryUnits(t *testing.T) {
	in := `{"time_to_first_token": {"unit": "ns", "avg": 81200000, "p99": 120000000},
	 "request_latency": {"unit": "s", "avg": 2.5}, "benchmark_duration": {"unit": "ms", "avg": 1500}}`
	stats, err := ReadSummary("genai-perf", strings.NewReader(in), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"ttft_ms mean": 81.2, "ttft_ms p99": 120, "e2e_ms mean": 2500, "duration_s value": 1.5}
	for _, s := range stats {
		if v, ok := want[s.Metric+" "+s.Stat]; !ok || s.Value == nil || *s.Value != v {
			t.Errorf("%s %s = %v (want %v)", s.Metric, s.Stat, s.Value, v)
		}
		delete(want, s.Metric+" "+s.Stat)
	}
	if len(want) > 0 {
		t.Errorf("missing %v", want)
	}
}

func TestImportGenAIPerfSummary(t *testing.T) {
	im := importWithSummary(t, "genai-perf", "genai_perf_profile_export.json", "genai_perf_profile_export_genai_perf.json")
	im.want(t, "completed", "count", "request_count.avg", 2)
	im.want(t, "ttft_ms", "p99", "time_to_first_token.p99", 199)
	im.want(t, "request_throughput", "value", "request_throughput.avg", 6.894649628)
	if !strings.Contains(strings.Join(im.rep.NotesIn(lang.EN), " "), "agree") {
		t.Errorf("notes %q", im.rep.Notes)
	}
}

// llmperf's flattened keys; seconds become ms, requests per minute per second.
func TestImportLLMPerfSummary(t *testing.T) {
	im := importWithSummary(t, "llmperf", "llmperf_individual_responses.json", "llmperf_summary.json")
	im.want(t, "attempts", "count", "results_num_requests_started", 4)
	im.want(t, "completed", "count", "results_num_completed_requests", 2)
	im.want(t, "failed", "count", "results_number_errors", 2)
	im.want(t, "error_rate", "value", "results_error_rate", 0.5)
	im.want(t, "ttft_ms", "p99", "results_ttft_s_quantiles_p99", 348.32)
	im.want(t, "e2e_ms", "mean", "results_end_to_end_latency_s_mean", 3055)
	im.want(t, "llmperf_itl_ms (invalid)", "p50", "results_inter_token_latency_s_quantiles_p50", 22.2)
	im.want(t, "request_throughput", "value", "results_num_completed_requests_per_min (÷ 60)", 0.6666/60)
}

func TestImportInferencePerfSummary(t *testing.T) {
	im := importWithSummary(t, "inference-perf", "inference_perf_per_request.json", "inference_perf_summary_lifecycle_metrics.json")
	im.want(t, "attempts", "count", "load_summary.count", 4)
	im.want(t, "completed", "count", "successes.count", 2)
	im.want(t, "failed", "count", "failures.count", 2)
	im.want(t, "duration_s", "value", "benchmark_time_seconds", 1.748)
	im.want(t, "ttft_ms", "median", "successes.latency.time_to_first_token.median", 150)
	im.want(t, "itl_ms", "p99", "successes.latency.inter_token_latency.p99", 39.2)
	im.want(t, "tpot_ms", "mean", "successes.latency.time_per_output_token.mean", 16.6667)
	im.want(t, "goodput_percentage", "value", "successes.goodput_metrics.goodput_percentage", 50)
	im.want(t, "schedule_lag_ms", "max", "load_summary.schedule_delay.max", 10)
}

// A summary of another run or stage is not silently shown as this one's.
func TestImportSummaryCountMismatch(t *testing.T) {
	stage := `{"load_summary": {"count": 10, "schedule_delay": {"mean": -0.001}},
	 "successes": {"count": 9, "latency": {"time_to_first_token": null}}, "failures": {"count": 1}}`
	stats, err := ReadSummary("inference-perf", strings.NewReader(stage), "stage_3_lifecycle_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile("testdata/inference_perf_per_request.json")
	var out bytes.Buffer
	rep, err := ImportWith("inference-perf", bytes.NewReader(raw), "rows.json", &out, Options{Summary: stats, SummaryName: "stage_3_lifecycle_metrics.json"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 {
		t.Fatal("a count mismatch is a note, not an error: the trace must be written")
	}
	note := rep.NotesIn(lang.EN)[0]
	for _, w := range []string{"COUNT MISMATCH", "stage_3_lifecycle_metrics.json", "attempts = 10 (load_summary.count) but the rows give 4",
		"completed = 9 (successes.count) but the rows give 2", "failed = 1 (failures.count) but the rows give 2", "another run or stage"} {
		if !strings.Contains(note, w) {
			t.Errorf("note lacks %q: %s", w, note)
		}
	}
	for _, s := range rep.Stats {
		if s.Metric == "schedule_lag_ms" && (s.Value == nil || *s.Value != -1) {
			t.Errorf("a negative schedule lag is allowed: %+v", s)
		}
	}
}

// --summary for a tool whose result file holds its own numbers is refused
// by both entry points.
func TestImportSummaryForToolWithoutOne(t *testing.T) {
	for _, from := range []string{"vllm", "guidellm"} {
		if HasSummary(from) {
			t.Errorf("%s has no separate summary", from)
		}
		if _, err := ReadSummary(from, strings.NewReader("{}"), "s.json"); !errors.Is(err, ErrNoSummaryFile) {
			t.Errorf("%s: ReadSummary err %v", from, err)
		}
		raw, _ := os.ReadFile("testdata/vllm_current.json")
		var out bytes.Buffer
		_, err := ImportWith(from, bytes.NewReader(raw), "f.json", &out, Options{Summary: []Stat{{Metric: "completed"}}})
		if !errors.Is(err, ErrNoSummaryFile) || out.Len() != 0 {
			t.Errorf("%s: ImportWith err %v, wrote %d bytes", from, err, out.Len())
		}
	}
	if _, err := ReadSummary("locust", strings.NewReader("{}"), "s.json"); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
}

// Every malformed summary is a located error.
func TestImportSummaryMalformed(t *testing.T) {
	ip := func(body string) string {
		return `{"successes": {"count": 2` + body + `}, "failures": {"count": 0}}`
	}
	cases := []struct {
		name, from, in string
		want           []string
	}{
		{"empty", "aiperf", " \n", []string{"s.json: the file is empty"}},
		{"truncated", "aiperf", "{\n \"request_count\": {\"unit\": \"requests\",\n  \"avg\": 2", []string{"s.json:3", "truncated"}},
		{"two values", "aiperf", "{}\n{}", []string{"s.json:2", "want one JSON object (profile_export_aiperf.json)"}},
		{"not an object", "genai-perf", `[{"request_count": 2}]`, []string{"want a JSON object, got an array"}},
		{"nothing known", "aiperf", `{"schema_version": "1.5"}`, []string{"no summary number found", "profile_export_aiperf.json"}},
		{"block not an object", "aiperf", `{"request_count": 2}`, []string{"request_count: want a JSON object, got the number 2"}},
		{"no unit", "aiperf", `{"time_to_first_token": {"avg": 1}}`, []string{"time_to_first_token.unit: missing"}},
		{"bad unit", "genai-perf", `{"ttft": {"unit": "tokens", "avg": 1}}`, []string{`ttft.unit: "tokens" is not a time unit`}},
		{"string value", "aiperf", `{"request_latency": {"unit": "ms", "p99": "fast"}}`, []string{`request_latency.p99: want a number, got the string "fast"`}},
		{"NaN count", "aiperf", `{"request_count": {"unit": "requests", "avg": NaN}}`, []string{"request_count.avg: is NaN, want a whole number"}},
		{"negative latency", "aiperf", `{"request_latency": {"unit": "ms", "avg": -3}}`, []string{"request_latency.avg: is negative (-3)"}},
		{"llmperf nested", "llmperf", `{"results": {"ttft_s": {"mean": 1}}}`, []string{"no summary number found", "*_summary.json"}},
		{"llmperf fractional count", "llmperf", `{"results_number_errors": 1.5}`, []string{"results_number_errors: is 1.5, want a whole number"}},
		{"llmperf NaN started", "llmperf", `{"results_num_requests_started": NaN}`, []string{"results_num_requests_started: is NaN"}},
		{"llmperf string quantile", "llmperf", `{"results_ttft_s_quantiles_p99": "0.3"}`, []string{`results_ttft_s_quantiles_p99: want a number, got the string "0.3"`}},
		{"ip no successes", "inference-perf", `{"failures": {"count": 0}}`, []string{"successes: missing"}},
		{"ip no failures count", "inference-perf", `{"successes": {"count": 1}, "failures": {}}`, []string{"failures.count: missing"}},
		{"ip NaN count", "inference-perf", `{"successes": {"count": NaN}, "failures": {"count": 0}}`, []string{"successes.count: is NaN"}},
		{"ip latency not an object", "inference-perf", ip(`, "latency": {"time_to_first_token": [0.1]}`), []string{"successes.latency.time_to_first_token: want a JSON object, got an array"}},
		{"ip string p99", "inference-perf", ip(`, "latency": {"request_latency": {"p99": "1s"}}`), []string{`successes.latency.request_latency.p99: want a number, got the string "1s"`}},
		{"ip negative ttft", "inference-perf", ip(`, "latency": {"time_to_first_token": {"mean": -0.1}}`), []string{"successes.latency.time_to_first_token.mean: is negative"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stats, err := ReadSummary(c.from, strings.NewReader(c.in), "s.json")
			if err == nil {
				t.Fatalf("no error; read %+v", stats)
			}
			if !trace.IsBadInput(err) {
				t.Errorf("%v is not a located bad-input error", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
