package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

var updateCapacity = flag.Bool("update-capacity", false, "rewrite testdata/capacity_zh.golden")

// capacityResults are searches that reach every line of capacityText: an
// answer, no answer, an interrupted search, latency SLOs, an empty step.
func capacityResults() []*capacity.Result {
	f := func(v float64) *float64 { return &v }
	steps := []capacity.Step{
		{Rate: 1, Attempts: 20, Qualified: 20, Attainment: f(1), CILow: f(0.839), CIHigh: f(1), Verdict: capacity.Meets, WindowS: 10},
		{Rate: 2, Attempts: 40, Qualified: 33, Attainment: f(0.825), CILow: f(0.68), CIHigh: f(0.91), Verdict: capacity.Undecided, WindowS: 20, Extended: 1},
		{Rate: 4, Attempts: 80, Qualified: 20, Attainment: f(0.25), CILow: f(0.17), CIHigh: f(0.35), Verdict: capacity.Fails, WindowS: 10},
		{Rate: 3, Verdict: capacity.Interrupted, WindowS: 0},
	}
	return []*capacity.Result{
		{Target: 0.9, SLOTTFTMS: 1000, Steps: steps[:3], MaxRateMeeting: f(1), ElapsedS: 42.5},
		{Target: 0.95, SLOTTFTMS: 500, LatencySLO: metrics.LatencySLO{E2EMS: 2000, ITLP95MS: 50, TPOTMS: 40}, Steps: steps[2:3], ElapsedS: 12},
		{Target: 0.9, SLOTTFTMS: 1000, Steps: steps, MaxRateMeeting: f(1), Provisional: true, ElapsedS: 50},
	}
}

// The Chinese capacity summary is pinned byte for byte; the English one has
// no Chinese character or full-width punctuation.
func TestCapacityTextLang(t *testing.T) {
	var zh strings.Builder
	for _, r := range capacityResults() {
		zh.WriteString(capacityText(r) + "---\n")
	}
	path := filepath.Join("testdata", "capacity_zh.golden")
	if *updateCapacity {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(zh.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if zh.String() != string(want) {
		t.Errorf("Chinese capacity text changed:\n%s\nwant:\n%s", zh.String(), want)
	}
	for _, r := range capacityResults() {
		en := capacityTextIn(lang.EN, r)
		noCJK(t, "capacity --lang en", en)
		if !strings.Contains(en, "Capacity search") {
			t.Errorf("not the English summary:\n%s", en)
		}
	}
}

// capacity refuses a bad --lang before sending any load.
func TestCapacityLangRefused(t *testing.T) {
	t.Setenv(lang.EnvVar, "")
	code, _, errs := runCLI(t, "capacity", "--lang", "fr", "--out", t.TempDir())
	if code != 2 || !strings.Contains(errs, "--lang") || !strings.Contains(errs, "want zh or en") {
		t.Errorf("exit %d: %q", code, errs)
	}
}
