package main

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// The comparison table's explanations of the goodput rows go under the
// table, marked [n] in the cell, which keeps its numbers (walk 35g F8: the
// sentence widened the "ours nearest-rank" column to about 150
// characters); the throughput row's implied duration reads as a formula
// with units (walk 35g F10: "3 / 0.767 = 3.911 s" read as completed ÷
// throughput in seconds).
func TestImportTableExplanationsUnderTheTable(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		lang, header, why string
		args              []string
		want              []string
	}{
		{"en", "metric", "why they differ", []string{"--from", "vllm", importData + "vllm_current.json"}, []string{
			"TTFT ≤ 1 s: qualified unknown [1]",
			"[1] request_goodput, ours nearest-rank: quality unrated; --slo-e2e or another latency SLO judges on latency alone, --dataset judges quality",
			"tool: completed / its own duration, which this implies is 3 completed / 0.767 /s = 3.911 s, not its duration_s"}},
		{"zh", "指标", "为什么不同", []string{"--from", "vllm", importData + "vllm_current.json"}, []string{
			"TTFT ≤ 1 s：合格数未知 [1]",
			"[1] request_goodput，我们（最近秩）：质量未评分；--slo-e2e 或其他时延 SLO 只按时延判定，--dataset 评质量",
			"这个时长由此反推为 3 次 / 0.767 次/s = 3.911 s，不是它的 duration_s"}},
		{"en", "metric", "why they differ", []string{"--from", "inference-perf", "--slo-e2e", "60s", "--summary", importData + "inference_perf_summary_lifecycle_metrics.json", importData + "inference_perf_per_request.json"}, []string{
			"TTFT ≤ 1 s ∧ E2E ≤ 60 s: qualified 2/1.748 s = 1.144/s [1]",
			"TTFT ≤ 1 s ∧ E2E ≤ 60 s: qualified 2/4 attempts = 50% [2]",
			"[1] request_goodput, ours nearest-rank: qualified means complete success ∧ TTFT ≤ 1 s ∧ E2E ≤ 60 s; quality not judged: latency only"}},
	} {
		args := append([]string{"import", "--lang", c.lang, "-o", filepath.Join(dir, "t.jsonl")}, c.args...)
		code, _, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s %s: comparison lacks %q:\n%s", c.lang, c.args[1], w, errs)
			}
		}
		if strings.Contains(errs, "3 / 0.767 = 3.911 s") {
			t.Errorf("%s: the implied duration still reads as completed ÷ rate in seconds:\n%s", c.lang, errs)
		}
		for _, line := range strings.Split(errs, "\n") {
			if strings.HasPrefix(line, c.header+" ") {
				if i := strings.Index(line, c.why); i < 0 || utf8.RuneCountInString(line[:i]) > 120 {
					t.Errorf("%s %s: the last column starts at rune %d, want ≤ 120:\n%s", c.lang, c.args[1], utf8.RuneCountInString(line[:max(i, 0)]), errs)
				}
			}
		}
	}
}
