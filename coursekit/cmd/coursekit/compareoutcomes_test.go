package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/llmperf-course/course/coursekit/compare"
)

// Two runs of one `bench --num-requests` command differ in their windows
// (each ends when its last answer does): an outcome, not a condition, so
// compare lists no changed condition; the request cap is the condition,
// and a run with another cap is named by it.
func TestWindowIsNotACondition(t *testing.T) {
	addr := startSimCLI(t, "--decode-step", "2ms", "--max-tokens", "8")
	dir := t.TempDir()
	bench := func(name, n string) string {
		out := filepath.Join(dir, name)
		code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--rate", "40", "--num-requests", n, "--max-tokens", "8",
			"--seed", "1", "--prompt-salt", "0123456789ab", "--progress", "0", "--out", out)
		if code != 0 {
			t.Fatalf("bench exit %d: %s", code, errs)
		}
		return out
	}
	changed := func(a, b string) []compare.ConditionDiff {
		code, stdout, stderr := runCLI(t, "compare", "--format", "json", a, b)
		if code != 0 {
			t.Fatalf("compare exit %d: %s", code, stderr)
		}
		var r compare.Result
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatal(err)
		}
		return r.ConditionsChanged
	}
	run2, run3 := bench("run2.jsonl", "20"), bench("run3.jsonl", "20")
	if c := changed(run2, run3); len(c) != 0 {
		t.Errorf("one command run twice: changed conditions %+v, want none", c)
	}
	run4 := bench("run4.jsonl", "30")
	if c := changed(run2, run4); len(c) != 1 || c[0].Name != "num_requests" || string(c[0].A) != "20" || string(c[0].B) != "30" {
		t.Errorf("another --num-requests: changed %+v, want num_requests 20 → 30 alone", c)
	}
}
