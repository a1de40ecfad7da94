package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const unitTrace = "../../../data/unit01/trace.jsonl"

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLIContext(t, context.Background(), args...)
}

// runCLIContext is runCLI with bench, capacity and sim stopped when ctx
// ends, as by Ctrl-C.
func runCLIContext(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runContext(ctx, args, &o, &e)
	return code, o.String(), e.String()
}

// The card prints the unit's numbers for both SLOs side by side.
func TestCardJSONUnitNumbers(t *testing.T) {
	code, out, errs := runCLI(t, "card", unitTrace, "--slo-ttft", "1s", "--slo-ttft", "500ms", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var card struct {
		Trace            string                            `json:"trace"`
		WindowS          float64                           `json:"window_s"`
		PercentileMethod string                            `json:"percentile_method"`
		Attempts         int                               `json:"attempts"`
		FailureRate      struct{ Num, Den, Value float64 } `json:"failure_rate"`
		TTFT             struct {
			N   int     `json:"n"`
			P95 float64 `json:"p95"`
		} `json:"ttft_ms"`
		ITL        struct{ Unit string } `json:"itl_ms"`
		Conditions []struct {
			SLO       float64 `json:"slo_ttft_ms"`
			Qualified int     `json:"qualified"`
			Goodput   float64 `json:"goodput_per_s"`
			Cost      float64 `json:"cost_per_1000_qualified"`
		} `json:"conditions"`
	}
	if err := json.Unmarshal([]byte(out), &card); err != nil {
		t.Fatal(err)
	}
	if card.Trace != "llm-serving/v1" || card.WindowS != 10 || card.PercentileMethod != "nearest-rank" || card.Attempts != 10 {
		t.Errorf("header fields: %+v", card)
	}
	if card.FailureRate.Num != 2 || card.FailureRate.Den != 10 || card.TTFT.N != 8 || card.TTFT.P95 != 2000 || card.ITL.Unit != "event" {
		t.Errorf("failure rate %+v, ttft %+v, itl unit %q", card.FailureRate, card.TTFT, card.ITL.Unit)
	}
	if len(card.Conditions) != 2 ||
		card.Conditions[0].Qualified != 5 || card.Conditions[0].Goodput != 0.5 || card.Conditions[0].Cost != 4 ||
		card.Conditions[1].Qualified != 4 || card.Conditions[1].Goodput != 0.4 || card.Conditions[1].Cost != 5 {
		t.Errorf("conditions: %+v", card.Conditions)
	}
}

func TestCardTextIsChineseWithUnits(t *testing.T) {
	code, out, _ := runCLI(t, "card", "--slo-ttft", "1s", "--slo-ttft", "500ms", unitTrace)
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{
		"失败率：2 / 10 = 20%（失败尝试 / 全部尝试）",
		"质量通过率：7 / 8 = 87.5%",
		"首字时延 TTFT（n=8，最近秩）：P50 500 ms · P90 2000 ms · P95 2000 ms",
		"缺失 TTFT：2 次",
		"条件 TTFT ≤ 1 s",
		"goodput：5 次 / 10 s = 0.5 次/s",
		"0.02 元 / 5 × 1000 = 4 元 / 千次合格",
		"条件 TTFT ≤ 500 ms",
		"联合合格：4 / 10 = 40%",
		"0.02 元 / 4 × 1000 = 5 元 / 千次合格",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text card lacks %q", want)
		}
	}
}

func TestCardMarkdownTable(t *testing.T) {
	_, out, _ := runCLI(t, "card", unitTrace, "--slo-ttft", "1s", "--slo-ttft", "0.5s", "--format", "markdown")
	if !strings.Contains(out, "| 联合合格 | 5 / 10 = 50%（联合合格尝试 / 全部尝试） | 4 / 10 = 40%（联合合格尝试 / 全部尝试） |") {
		t.Errorf("markdown:\n%s", out)
	}
}

func TestCardWindowCostOverride(t *testing.T) {
	_, out, _ := runCLI(t, "card", unitTrace, "--window-cost", "0.05", "--format", "json")
	if !strings.Contains(out, `"cost_per_1000_qualified": 10`) {
		t.Errorf("0.05 / 5 × 1000 = 10:\n%s", out)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1}}`+"\n"+`{"attempt":"x","start_ms":0,"outcome":"maybe","end_ms":1}`+"\n"), 0o644)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"card", bad}, 2, bad + ":2: attempt \"x\": outcome: unknown outcome \"maybe\""},
		{[]string{"card", filepath.Join(dir, "none.jsonl")}, 2, "no such file"},
		{[]string{"card", unitTrace, "--percentile", "average"}, 2, "unknown percentile method"},
		{[]string{"card", unitTrace, "--slo-ttft", "fast"}, 2, "is not a duration"},
		{[]string{"card", unitTrace, "--format", "pdf"}, 2, "unknown format"},
		{[]string{"card"}, 2, "want exactly one TRACE"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"csv", bad}, 2, ":2:"},
		// --max-tokens 0 used to become 64 without a word.
		{[]string{"bench", "--url", "http://127.0.0.1:1", "--concurrency", "1", "--max-tokens", "0"}, 2, "--max-tokens 0: a request must ask for at least 1 token"},
		{[]string{"bench", "--url", "http://127.0.0.1:1", "--concurrency", "1", "--max-tokens", "-3"}, 2, "--max-tokens -3: a request must ask for at least 1 token"},
		{[]string{"capacity", "--url", "http://127.0.0.1:1", "--slo-e2e", "1s", "--out", dir, "--max-tokens", "0"}, 2, "--max-tokens 0: a request must ask for at least 1 token"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.msg)
		}
	}
}

func TestCSVAndGen(t *testing.T) {
	code, out, _ := runCLI(t, "csv", unitTrace)
	if code != 0 || strings.Count(out, "\n") != 11 {
		t.Fatalf("csv: exit %d, %d lines", code, strings.Count(out, "\n"))
	}
	code, out, _ = runCLI(t, "gen", "--seed", "7", "--requests", "50")
	if code != 0 || !strings.HasPrefix(out, `{"trace":"llm-serving/v1"`) {
		t.Fatalf("gen: exit %d", code)
	}
	f := filepath.Join(t.TempDir(), "g.jsonl")
	os.WriteFile(f, []byte(out), 0o644)
	if code, _, errs := runCLI(t, "card", f); code != 0 {
		t.Fatalf("card of a generated trace: %s", errs)
	}
}
