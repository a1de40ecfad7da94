package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/loadgen"
)

// Saved runs compare by their names, two a side: every metric has a
// verdict and the hierarchical method, each side's traces are the runs'
// names, and a run that was never saved is an error naming it.
func TestCompareSavedRuns(t *testing.T) {
	l := small(t)
	load := loadgen.Config{Concurrency: 2, Duration: 200 * time.Millisecond, Timeout: 5 * time.Second, MaxTokens: 4, Seed: 3}
	for _, name := range []string{"a1", "a2", "b1", "b2"} {
		if _, err := l.Run(name, name, load); err != nil {
			t.Fatal(err)
		}
	}
	r, err := l.Compare([]string{"a1", "a2"}, []string{"b1", "b2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.A.Traces) != 2 || r.A.Traces[0] != "a1" || r.B.Traces[1] != "b2" || !r.BetweenRuns.A || !r.BetweenRuns.B {
		t.Errorf("sides %v %v, between runs %+v", r.A.Traces, r.B.Traces, r.BetweenRuns)
	}
	for _, m := range r.Metrics {
		// Welch's t over the runs, unless the runs' values agree exactly.
		want, alone := compare.MethodHierarchicalWelch, compare.MethodHierarchical
		if strings.HasPrefix(m.Name, "failure_rate") || strings.HasPrefix(m.Name, "qualified_rate") {
			want, alone = compare.MethodHierarchicalNewcombeWelch, compare.MethodHierarchicalNewcombe
		}
		// A percentile these short runs cannot bound within runs: Welch's
		// t over the runs alone.
		if strings.HasPrefix(m.Name, "goodput") || strings.HasPrefix(m.Name, "throughput") || m.WelchOnly() {
			want = compare.MethodWelchRuns
		}
		if (m.Method != want && m.Method != alone) || m.Verdict == "" {
			t.Errorf("%s: method %q, verdict %q", m.Name, m.Method, m.Verdict)
		}
	}
	if _, err := l.Compare([]string{"a1"}, []string{"nope"}); err == nil {
		t.Error("a run never saved was compared")
	}
	if _, err := l.Compare([]string{"../a1"}, []string{"b1"}); err == nil {
		t.Error("a path was taken for a run name")
	}
}
