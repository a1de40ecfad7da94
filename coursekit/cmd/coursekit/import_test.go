package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

const importData = "../../importer/testdata/"

// The trace goes to stdout, the comparison to stderr: vLLM's linear p99
// beside our nearest-rank one, and the failure kept in our denominators.
func TestImportVLLMStdout(t *testing.T) {
	code, out, errs := runCLI(t, "import", "--from", "vllm", importData+"vllm_current.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	tr, err := trace.Read(strings.NewReader(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{})
	if s.Attempts != 4 || s.Failures != 1 || s.TTFTMissing != 1 {
		t.Errorf("card: attempts %d failures %d missing %d", s.Attempts, s.Failures, s.TTFTMissing)
	}
	for _, want := range []string{"609.78", "620.3", "1/4 = 25%", "linear interpolation vs nearest-rank", "request_goodput", "(n=7 events)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("comparison lacks %q:\n%s", want, errs)
		}
	}
}

// -o writes the file only after a whole import; card reads it.
func TestImportToFileThenCard(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ from, file string }{
		{"aiperf", "aiperf_profile_export.jsonl"}, {"genai-perf", "genai_perf_profile_export.json"},
		{"guidellm", "guidellm_v2.json"}, {"llmperf", "llmperf_individual_responses.json"}, {"vllm", "vllm_nan.json"},
	} {
		dst := filepath.Join(dir, c.from+".jsonl")
		code, out, errs := runCLI(t, "import", importData+c.file, "--from", c.from, "-o", dst)
		if code != 0 || out != "" {
			t.Fatalf("%s: exit %d, stdout %q: %s", c.from, code, out, errs)
		}
		if code, _, errs := runCLI(t, "card", dst, "--format", "json"); code != 0 {
			t.Errorf("%s: card exit %d: %s", c.from, code, errs)
		}
	}
	if _, errs := runCLIStderr(t, "import", "--from", "aiperf", importData+"aiperf_profile_export.jsonl"); !strings.Contains(errs, "per-request average per token; ours: per event") {
		t.Errorf("AIPerf ITL difference not explained:\n%s", errs)
	}
}

func runCLIStderr(t *testing.T, args ...string) (int, string) {
	code, _, errs := runCLI(t, args...)
	return code, errs
}

// Bad input exits 2 with a located message and leaves no output file.
func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n \"duration\": 1.0,\n \"ttfts\": [0.1,"), 0o644)
	dst := filepath.Join(dir, "out.jsonl")
	code, out, errs := runCLI(t, "import", "--from", "vllm", bad, "-o", dst)
	if code != 2 || out != "" || !strings.Contains(errs, "bad.json:3") {
		t.Errorf("truncated: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("output file written for a bad input")
	}
	nan := filepath.Join(dir, "nan.json")
	os.WriteFile(nan, []byte(`{"duration": 1, "ttfts": [0.1, NaN], "itls": [[], []]}`), 0o644)
	if code, _, errs := runCLI(t, "import", "--from", "vllm", nan); code != 2 || !strings.Contains(errs, "ttfts[1]: is NaN") {
		t.Errorf("NaN: exit %d, stderr %q", code, errs)
	}
	for _, args := range [][]string{
		{"import", "--from", "locust", bad},
		{"import", bad},
		{"import", "--from", "vllm"},
		{"import", "--from", "vllm", filepath.Join(dir, "absent.json")},
		{"import", "--from", "vllm", importData + "vllm_append.jsonl"},
		{"import", "--from", "vllm", "--run", "3", importData + "vllm_append.jsonl"},
	} {
		if code, out, errs := runCLI(t, args...); code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if code, _, errs := runCLI(t, "import", "--from", "vllm", "--run", "2", importData+"vllm_append.jsonl"); code != 0 {
		t.Errorf("--run 2: exit %d: %s", code, errs)
	}
}
