package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The engine walk: 1 req/s failed (Wilson upper 49 %) and 0.5 req/s failed
// too (57.6 %), both below the 80 % target, while a step above them was
// left short. The lowest steps were decided: the server failed them, and
// the answer must not say the step length bounds it.
func TestCapacityNoRateDecidedIsNotStepLength(t *testing.T) {
	r := &capacity.Result{Target: 0.8, SLOTTFTMS: 1000, MaxRate: 4, BoundedBy: capacity.BoundNoRate, AttemptsToMeet: 17,
		Steps: []capacity.Step{{Rate: 1, Attempts: 14, Qualified: 4, Verdict: capacity.Fails},
			{Rate: 0.5, Attempts: 13, Qualified: 5, Verdict: capacity.Fails},
			{Rate: 0.75, Attempts: 9, Qualified: 7, Verdict: capacity.Undecided}}}
	if s := r.ShortStep(); s != nil {
		t.Fatalf("short step %+v, want none: the lowest steps failed", s)
	}
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		v := capacityTextIn(l, r)
		if strings.Contains(v, "不是服务器") || strings.Contains(v, "not the server") {
			t.Errorf("%s: blames the step length:\n%s", l, v)
		}
	}
}

// A busy counter read on two clocks can pass 100 % (the walk's "device
// busy 105.0%"); the text shows at most 100 %.
func TestCapacityBusyShownAtMost100(t *testing.T) {
	busy := 1.05
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, MaxRate: 4, BoundedBy: capacity.BoundMaxRate,
		Steps: []capacity.Step{{Rate: 4, Attempts: 80, Qualified: 80, Verdict: capacity.Meets, BusyMean: &busy}}}
	r.MaxRateMeeting = &r.Steps[0].Rate
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		v := capacityTextIn(l, r)
		if strings.Contains(v, "105.0%") || !strings.Contains(v, "100.0%") {
			t.Errorf("%s: busy share shown as measured:\n%s", l, v)
		}
	}
}

// --no-preflight starts the search against a URL the pre-flight refuses,
// as bench's does; without it the refusal names the flag.
func TestCapacityNoPreflight(t *testing.T) {
	html := webPage(t)
	dir := t.TempDir()
	args := []string{"capacity", "--url", html.URL, "--model", "m", "--slo-e2e", "5s", "--start-rate", "1", "--max-rate", "2", "--resolution", "0.5",
		"--warmup", "0s", "--step-duration", "1s", "--step-max-duration", "1s", "--busy-gauge", ""}
	code, _, errs := runCLI(t, append(args, "--out", filepath.Join(dir, "a"))...)
	if code != 2 || !strings.Contains(errs, "pre-flight: ") || !strings.Contains(errs, "--no-preflight") {
		t.Fatalf("without --no-preflight: exit %d, %s; want the pre-flight's refusal naming --no-preflight", code, errs)
	}
	out := filepath.Join(dir, "b")
	code, stdout, errs := runCLI(t, append(args, "--no-preflight", "--out", out)...)
	if strings.Contains(errs, "pre-flight") {
		t.Fatalf("--no-preflight still checked: exit %d, %s", code, errs)
	}
	if steps, _ := filepath.Glob(filepath.Join(out, "step-*.jsonl")); len(steps) == 0 {
		t.Errorf("--no-preflight: no step was run (exit %d): %s\n%s", code, errs, stdout)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("--out not made: %v", err)
	}
}
