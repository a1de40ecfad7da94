package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchPromptFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--prompt-reuse", "shared-prefix:0"}, "--prompt-reuse"},
		{[]string{"--prompt-reuse", "prefix"}, "--prompt-reuse"},
		{[]string{"--prompt-salt", "a b"}, "--prompt-salt"},
		{[]string{"--prompt-salt", ""}, "--prompt-salt"},
		{[]string{"--prompt-reuse", "shared-prefix:40", "--prompt-tokens", "16"}, "prompt reuse shared-prefix:40"},
		{[]string{"--dataset", "arith", "--prompt-reuse", "same"}, "--dataset prompts are sent as written"},
		{[]string{"--dataset", "arith", "--prompt-salt", "x"}, "--dataset prompts are sent as written"},
	} {
		code, _, errs := runCLI(t, append([]string{"bench", "--rate", "1"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// Replacing a trace of the same salt against the same server warns that
// the run repeats its prompts; a fresh salt does not.
func TestBenchWarnsWhenPromptsRepeat(t *testing.T) {
	// 1 ms steps: the warning does not depend on the server's speed, and its
	// nine answers one after another took 8 s at the default 10 ms.
	addr := startSimCLI(t, "--decode-step", "1ms")
	out := filepath.Join(t.TempDir(), "t.jsonl")
	bench := func(extra ...string) string {
		t.Helper()
		args := append([]string{"bench", "--url", "http://" + addr, "--concurrency", "1", "--num-requests", "3", "--progress", "0", "--out", out}, extra...)
		code, _, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("bench exit %d: %s", code, errs)
		}
		return errs
	}
	errs := bench("--prompt-salt", "s1")
	if strings.Contains(errs, "warning") || !strings.Contains(errs, "prompts: salt s1, --prompt-reuse none") {
		t.Errorf("first run:\n%s", errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Meta struct {
			Salt string `json:"prompt_salt"`
		} `json:"meta"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &h); err != nil || h.Meta.Salt != "s1" {
		t.Errorf("header meta.prompt_salt %q (%v)", h.Meta.Salt, err)
	}
	if errs := bench("--prompt-salt", "s1", "--prompt-reuse", "same"); !strings.Contains(errs, "warning: "+out+" is a run with the same --prompt-salt s1") {
		t.Errorf("second run with the same salt gave no warning:\n%s", errs)
	}
	if errs := bench(); strings.Contains(errs, "warning") || !strings.Contains(errs, "prompts: salt ") {
		t.Errorf("fresh salt:\n%s", errs)
	}
}

// A dataset's prompts are not salted: replacing a run of the same dataset
// warns that this one repeats its prompts; another dataset does not.
func TestBenchWarnsWhenDatasetRepeats(t *testing.T) {
	addr := startSimCLI(t)
	out := filepath.Join(t.TempDir(), "d.jsonl")
	bench := func(seed string) string {
		t.Helper()
		code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--concurrency", "1", "--num-requests", "2", "--progress", "0",
			"--dataset", "arith", "--seed", seed, "--out", out)
		if code != 0 {
			t.Fatalf("bench exit %d: %s", code, errs)
		}
		return errs
	}
	if errs := bench("1"); strings.Contains(errs, "warning") || strings.Contains(errs, "prompts: salt") {
		t.Errorf("first run:\n%s", errs)
	}
	if errs := bench("1"); !strings.Contains(errs, "warning: "+out+" is a run of the same dataset arith") {
		t.Errorf("same dataset again, no warning:\n%s", errs)
	}
	if errs := bench("2"); strings.Contains(errs, "warning") {
		t.Errorf("other arith questions (seed 2) warned:\n%s", errs)
	}
}
