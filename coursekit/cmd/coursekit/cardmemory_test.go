package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// card --memory with a budget far below what the trace needs spills to a
// temporary directory and prints the same card, text and JSON, but for
// the footer (text) and the "spill" field (JSON) that say so.
func TestCardMemoryBudgetSameCard(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	if code, _, errs := runCLI(t, "gen", "--seed", "4", "--requests", "30000", "--rate", "100", "-o", tr); code != 0 {
		t.Fatal(errs)
	}
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o755)
	t.Setenv("TMPDIR", tmp)
	_, memText, _ := runCLI(t, "card", tr, "--slo-ttft", "1s", "--slo-ttft", "300ms")
	code, spillText, errs := runCLI(t, "card", tr, "--slo-ttft", "1s", "--slo-ttft", "300ms", "--memory", "1MiB")
	if code != 0 {
		t.Fatal(errs)
	}
	body, foot, ok := strings.Cut(spillText, "\n\n内存：样本和记录超出了内存预算 1.0 MiB，已分 ")
	if !ok || body+"\n" != memText || !strings.HasSuffix(foot, "临时目录已删除。\n") {
		t.Fatalf("the spilled text card differs:\n%s\nin memory:\n%s", spillText, memText)
	}
	_, memJSON, _ := runCLI(t, "card", tr, "--format", "json")
	_, spillJSON, _ := runCLI(t, "card", tr, "--format", "json", "--memory", "1MiB")
	var m, s map[string]any
	json.Unmarshal([]byte(memJSON), &m)
	json.Unmarshal([]byte(spillJSON), &s)
	sp, _ := s["spill"].(map[string]any)
	if sp == nil || sp["memory_budget_bytes"] != float64(1<<20) || sp["runs"].(float64) < 2 {
		t.Fatalf("no spill field: %v", s["spill"])
	}
	delete(s, "spill")
	a, _ := json.Marshal(m)
	b, _ := json.Marshal(s)
	if string(a) != string(b) {
		t.Fatal("the spilled JSON card differs from the in-memory one")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the spill left %d entries in the temporary directory", len(left))
	}
	if code, _, errs := runCLI(t, "card", tr, "--memory", "lots"); code != 2 || !strings.Contains(errs, "--memory") {
		t.Fatalf("a bad --memory: exit %d, %s", code, errs)
	}
}
