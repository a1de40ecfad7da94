package importer

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// A key that differs from one an importer reads only in case ("TTFTS"
// beside or instead of "ttfts") is refused by every importer and summary
// reader, naming the file and the key: the tool, Python and pandas read
// only the exact key, so importing either the real one (the shadow
// silently ignored) or nothing ("ttfts: missing") would hide what the
// file holds. Nothing is written.
func TestImportRefusesCaseTwins(t *testing.T) {
	for _, c := range []struct {
		from, file, key, shadow string
		summary                 bool
	}{
		{"vllm", "vllm_current.json", "ttfts", "TTFTS", false},
		{"vllm", "vllm_current.json", "request_goodput", "Request_Goodput", false},
		{"vllm", "vllm_current.json", "p99_ttft_ms", "P99_TTFT_MS", false},
		{"vllm", "vllm_old.json", "duration", "DURATION", false},
		{"aiperf", "aiperf_profile_export.jsonl", "benchmark_phase", "Benchmark_Phase", false},
		{"aiperf", "aiperf_profile_export_aiperf.json", "avg", "AVG", true},
		{"genai-perf", "genai_perf_profile_export.json", "timestamp", "Timestamp", false},
		{"guidellm", "guidellm_v2.json", "benchmarks", "Benchmarks", false},
		{"guidellm", "guidellm_v03.json", "requests", "REQUESTS", false},
		{"llmperf", "llmperf_individual_responses.json", "ttft_s", "TTFT_s", false},
		{"llmperf", "llmperf_summary.json", "results_ttft_s_quantiles_p50", "RESULTS_ttft_s_quantiles_p50", true},
		{"inference-perf", "inference_perf_per_request.json", "start_time", "Start_Time", false},
		{"inference-perf", "inference_perf_summary_lifecycle_metrics.json", "count", "COUNT", true},
	} {
		raw, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		quoted := `"` + c.key + `":`
		if !bytes.Contains(raw, []byte(quoted)) {
			t.Fatalf("%s holds no %s", c.file, quoted)
		}
		for how, text := range map[string]string{
			"renamed": strings.Replace(string(raw), quoted, `"`+c.shadow+`":`, 1),
			"twin":    strings.Replace(string(raw), quoted, `"`+c.shadow+`": null, `+quoted, 1),
		} {
			var out bytes.Buffer
			if c.summary {
				_, err = ReadSummary(c.from, strings.NewReader(text), c.file)
			} else {
				_, err = Import(c.from, strings.NewReader(text), c.file, &out)
			}
			if err == nil || !trace.IsBadInput(err) || !strings.HasPrefix(err.Error(), c.file+":") ||
				!strings.Contains(err.Error(), c.shadow+": differs from the key \""+c.key+"\" only in case") {
				t.Errorf("%s %s, %q %s: err = %v, want a refusal naming the file and %s", c.from, c.file, c.shadow, how, err, c.shadow)
			}
			if out.Len() > 0 {
				t.Errorf("%s %s, %s: a trace was written", c.from, c.file, how)
			}
		}
	}
}

// Keys the importers do not read stay free: a case variant of a key no
// importer looks at is imported as before.
func TestImportKeepsUnreadCaseVariants(t *testing.T) {
	raw, err := os.ReadFile("testdata/vllm_current.json")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(raw), `"date":`, `"my_note": 1, "MY_NOTE": 2, "date":`, 1)
	if _, err := Import("vllm", strings.NewReader(text), "vllm_current.json", &bytes.Buffer{}); err != nil {
		t.Errorf("a file with free keys my_note and MY_NOTE: %v", err)
	}
}
