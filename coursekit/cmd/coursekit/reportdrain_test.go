package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportSaysDrainTPOTAndMissingNone: the report prints what the card
// says (walk 35e F3, F4): how many of the attempts its throughput counts
// ended after the window closed, TPOT with its 95 % intervals (and its P95
// in the table beside TTFT's), and "missing
// TTFT: none" where the count is 0, never "missing TTFT 0 (not 0)".
func TestReportSaysDrainTPOTAndMissingNone(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "drain.jsonl")
	tr := `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000}}
{"attempt":"a","start_ms":0,"outcome":"ok","http_status":200,"events":[{"t_ms":100},{"t_ms":120},{"t_ms":150}],"end_ms":160,"quality":"pass"}
{"attempt":"b","start_ms":900,"outcome":"ok","http_status":200,"events":[{"t_ms":1000},{"t_ms":1030},{"t_ms":1050}],"end_ms":1060,"quality":"pass"}
`
	if err := os.WriteFile(in, []byte(tr), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report.html")
	if code, _, stderr := runCLI(t, "report", in, "--lang", "en", "-o", out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"Complete-success throughput: 2 / 1 s = 2 /s (1 of them ended after the window closed; 1 ended within it)",
		"<li>TPOT = (t_N − t_1) / (N − 1) (n=2, nearest-rank): P50 25 ms/token",
		"missing TTFT: none",
		"<td>TPOT P95 of successes</td><td>25 ms/token (n=2)", // the table's row beside TTFT's
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if i := strings.Index(page, "<li>TPOT = "); i >= 0 {
		rest := page[i:]
		if j := strings.Index(rest, "</li>"); j < 0 || !strings.HasPrefix(strings.TrimSpace(rest[j+len("</li>"):]), `<li class="sub">95% confidence intervals`) {
			t.Error("the report's TPOT has no interval line under it")
		}
	}
	for _, bad := range []string{"missing TTFT 0 (not 0)", "0 attempts had no first output"} {
		if strings.Contains(page, bad) {
			t.Errorf("the report says %q", bad)
		}
	}
}
