package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

const gaugeTraceText = `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":3000},"conditions":{"metrics_sidecar":"SIDE"}}
{"attempt":"a","start_ms":0,"outcome":"ok","http_status":200,"events":[{"t_ms":100}],"end_ms":2500}
{"attempt":"b","start_ms":500,"outcome":"ok","http_status":200,"events":[{"t_ms":600}],"end_ms":1500}
`

func reportWithSidecar(t *testing.T, sideName, side string) string {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(in, []byte(strings.Replace(gaugeTraceText, "SIDE", sideName, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if side != "" {
		if err := os.WriteFile(filepath.Join(dir, sideName), []byte(side), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return reportPage(t, in)
}

// reportPage is the page `coursekit report TRACE -o FILE` writes beside the trace.
func reportPage(t *testing.T, trace string) string {
	t.Helper()
	out := filepath.Join(filepath.Dir(trace), "r.html")
	code, _, stderr := runCLI(t, "report", trace, "-o", out)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A trace whose header names a metrics sidecar gets the server-gauge chart:
// the client's in-flight line beside the server's gauges.
func TestReportServerGauges(t *testing.T) {
	page := reportWithSidecar(t, "t.jsonl.metrics.jsonl",
		`{"t_ms":1000,"dur_ms":1.5,"values":{"llamacpp:requests_processing":1,"llamacpp:requests_deferred":1}}`+"\n"+
			`{"t_ms":2000,"dur_ms":1.2,"values":{"llamacpp:requests_processing":1,"llamacpp:requests_deferred":0}}`+"\n")
	for _, w := range []string{`id="server_gauges"`, "客户端在途请求（由 trace 算出）", "llama.cpp 合计：处理 + 等待", "2 次读数（0 次失败"} {
		if !strings.Contains(page, w) {
			t.Errorf("report lacks %q", w)
		}
	}
}

// A missing or unreadable sidecar is a note in the report (escaped), not a
// failed report; a trace with no sidecar has neither chart nor note.
func TestReportServerGaugesMissingOrBad(t *testing.T) {
	page := reportWithSidecar(t, "x<i>.jsonl", "")
	if !strings.Contains(page, "读不了它") || strings.Contains(page, "x<i>") || strings.Contains(page, `id="server_gauges"`) {
		t.Error("missing sidecar: no escaped note, or a chart")
	}
	page = reportWithSidecar(t, "m.jsonl", `{"t_ms":1,"dur_ms":1}`+"\n"+`not json`+"\n")
	if !strings.Contains(page, "m.jsonl:2: ") || strings.Contains(page, `id="server_gauges"`) {
		t.Error("bad sidecar: the note does not name FILE:LINE")
	}
	code, stdout, _ := runCLI(t, "report", unitTrace)
	if code != 0 || strings.Contains(stdout, "server_gauges") || strings.Contains(stdout, "metrics_sidecar") {
		t.Error("a trace without a sidecar should have no server-gauge part")
	}
}

// The report says when, against what and with what a bench run was
// measured (the header's meta), escaped.
func TestReportRunLine(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.jsonl")
	head := `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":3000},"meta":{"tool":"coursekit bench","started_at":"2026-12-02T17:16:19.327734Z","url":"http://127.0.0.1:1/<script>","client":"coursekit 0.1.0"}}`
	body := strings.SplitN(gaugeTraceText, "\n", 2)[1]
	if err := os.WriteFile(in, []byte(head+"\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, page, stderr := runCLI(t, "report", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(page, "测量：开始于 2026-12-02T17:16:19.327734Z · 服务器 http://127.0.0.1:1/&lt;script&gt; · 客户端 coursekit 0.1.0。") {
		t.Error("the report lacks the run line, or does not escape it")
	}
	if code, page, _ := runCLI(t, "report", unitTrace); code != 0 || strings.Contains(page, "测量：开始于") {
		t.Error("a trace without bench meta should have no run line")
	}
}

// A long sidecar is read line by line and downsampled, keeping only the request gauges, and
// the page says so; scrapes bench capped are noted. The attacker walk's 440 MB sidecar was read
// whole (817 MB of RSS, outside --memory).
func TestReportServerGaugesLongSidecarDownsampled(t *testing.T) {
	var b strings.Builder
	const n = 3 * maxGaugeScrapes
	for i := range n {
		capped := ""
		if i == 0 {
			capped = `,"capped":7`
		}
		fmt.Fprintf(&b, `{"t_ms":%d,"dur_ms":1,"values":{"vllm:num_requests_running":%d,"junk_%d":1}%s}`+"\n", i, i%3, i, capped)
	}
	page := reportWithSidecar(t, "t.jsonl.metrics.jsonl", b.String())
	for _, w := range []string{`id="server_gauges"`, fmt.Sprintf("服务器指标文件有 %d 次读数，图中每 4 次取 1 次", n), "1 次读数的序列数超过了 bench 的上限"} {
		if !strings.Contains(page, w) {
			t.Errorf("report lacks %q", w)
		}
	}
	if strings.Contains(page, "junk_") {
		t.Error("a series other than the request gauges reached the page")
	}
	var g gaugeScrapes
	for i := range n {
		g.add(trace.Scrape{TMS: float64(i), Values: map[string]float64{"vllm:num_requests_waiting": 1, "x": 2}})
	}
	if len(g.kept) >= maxGaugeScrapes || g.stride != 4 || g.kept[1].TMS != 4 || len(g.kept[0].Values) != 1 {
		t.Errorf("kept %d, stride %d, second at %v, values %v", len(g.kept), g.stride, g.kept[1].TMS, g.kept[0].Values)
	}
}
