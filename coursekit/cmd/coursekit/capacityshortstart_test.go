package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Walk 35e, F7: with --start-rate 1 the first step was extended 4 times
// (a 40 s window) to gather the 35 attempts meeting 0.9 needs, and nothing
// said so before. When the first window cannot hold them, capacity says
// so up front on stderr, before the first run starts: the first steps are
// extended up to --step-max-duration, about 35 / rate seconds of window,
// and a higher --start-rate shortens the search.
func TestCapacitySaysUpFrontTheFirstStepsAreExtended(t *testing.T) {
	addr := startSimCLI(t, "--max-batch", "8", "--decode-step", "2ms", "--decode-per-seq", "0", "--prefill-per-token", "0", "--max-tokens", "10")
	out := filepath.Join(t.TempDir(), "steps")
	code, _, stderr := runCLI(t, "capacity", "--lang", "en", "--url", "http://"+addr, "--max-tokens", "10", "--slo-ttft", "1s", "--slo-e2e", "2s",
		"--start-rate", "20", "--max-rate", "40", "--resolution", "10", "--warmup", "100ms",
		"--step-duration", "300ms", "--step-max-duration", "2s", "--busy-gauge", "", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "coursekit capacity: the first window (--step-duration 0.3 s × --start-rate 20 req/s) holds about 6 attempts: the first steps will be extended up to --step-max-duration 2 s to gather the 35 attempts meeting the target needs: at --start-rate 20 req/s, a window of about 1.8 s; a higher --start-rate shortens the search\n"
	first, _, _ := strings.Cut(stderr, "coursekit capacity: run 1 of the search starts")
	if first != want {
		t.Errorf("stderr before the first run:\n%q\nwant\n%q\nall of it:\n%s", first, want, stderr)
	}
}
