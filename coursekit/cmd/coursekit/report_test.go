package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `coursekit report` writes one offline page with the card and the charts.
func TestReportUnitTrace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.html")
	code, stdout, stderr := runCLI(t, "report", unitTrace, "-o", out, "--slo-ttft", "1s", "--slo-ttft", "500ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout should be empty with -o, got %d bytes", len(stdout))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"指标口径卡", "trace.jsonl",
		`id="funnel_0"`, `id="funnel_1"`, `id="attempts"`, `id="ttft_cdf"`, `id="slo_sweep"`, `id="timeline"`,
		"P95 最近秩 2000 ms", "TTFT \u003e 1 s：2",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The P95 under the other method is no number of the embedded summary:
	// the page does not show it.
	if strings.Contains(page, "1720") {
		t.Error("report shows the linear P95 1720 ms, which its summary does not hold")
	}
	if regexp.MustCompile(`(?i)<script[^>]*\ssrc\s*=`).MatchString(page) {
		t.Error("report loads a script from a src: it must work offline")
	}
	if n := strings.Count(page, "if(!window.echarts)"); n != 1 {
		t.Errorf("ECharts inlined %d times, want 1", n)
	}
}

// Without -o the page goes to stdout.
func TestReportStdout(t *testing.T) {
	code, stdout, stderr := runCLI(t, "report", "../../../data/unit01/timeline.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "<!DOCTYPE html>") || !strings.Contains(stdout, "t_end = 1000 ms") {
		t.Errorf("stdout is not the report (%d bytes)", len(stdout))
	}
}

// Bad input exits 2, like card.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":10}}`+"\n"+`{"attempt":"a","start_ms":-5,"outcome":"ok","end_ms":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"no trace":     {"report"},
		"two traces":   {"report", unitTrace, unitTrace},
		"missing file": {"report", filepath.Join(dir, "nope.jsonl")},
		"bad trace":    {"report", bad},
		"bad slo":      {"report", unitTrace, "--slo-ttft", "fast"},
		"bad flag":     {"report", unitTrace, "--nope"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", name, code, stderr)
		}
	}
}

// A trace with only a header, or only an in-flight attempt, still gives a
// page: empty distributions say so instead of failing.
func TestReportEmptyTraces(t *testing.T) {
	dir := t.TempDir()
	header := `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000}}` + "\n"
	for name, body := range map[string]string{
		"empty.jsonl":  header,
		"flying.jsonl": header + `{"attempt":"x","start_ms":5,"outcome":"in_flight"}` + "\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, "report", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		if !strings.Contains(stdout, "没有成功样本") {
			t.Errorf("%s: the distribution should say it has no sample", name)
		}
	}
}
