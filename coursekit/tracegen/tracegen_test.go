package tracegen_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/textcheck"
	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/tracegen"
)

// The committed practice trace is exactly what `coursekit gen --seed 1` writes.
func TestPracticeTraceIsReproducible(t *testing.T) {
	var b bytes.Buffer
	if _, err := tracegen.Generate(&b, tracegen.Config{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../../data/unit01/practice.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), committed) {
		t.Fatal("data/unit01/practice.jsonl differs from `coursekit gen --seed 1`; regenerate it with: go run ./coursekit/cmd/coursekit gen --seed 1 -o data/unit01/practice.jsonl")
	}
	if len(committed) > 2<<20 {
		t.Fatalf("practice trace is %d bytes, over 2 MB", len(committed))
	}
}

// The practice trace teaches every case: all outcomes, retries, warm-up
// outside the window, multi-token events, unrated and failed quality.
func TestPracticeTraceCoversEveryCase(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/practice.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{})
	for _, o := range trace.Outcomes {
		// no_response came after the practice trace: it is what a live
		// client (coursekit bench) records when a server drops a request
		// it was sent; the notebooks' numbers stay those of this trace.
		if s.Outcomes[o.String()] == 0 && o != trace.NoResponse {
			t.Errorf("no %s attempt in the window", o)
		}
	}
	if s.Requests >= s.Attempts {
		t.Error("no retries")
	}
	if s.OutsideWindow == 0 || s.Event.MultiTokenEvents == 0 || s.UnratedSuccesses == 0 || s.QualityFails == 0 {
		t.Errorf("outside %d, multi-token %d, unrated %d, fails %d", s.OutsideWindow, s.Event.MultiTokenEvents, s.UnratedSuccesses, s.QualityFails)
	}
	if s.TTFT.Max == nil || *s.TTFT.Max < 3**s.TTFT.P50 {
		t.Error("TTFT should be long-tailed")
	}
}

func TestSeedsDiffer(t *testing.T) {
	var a, b bytes.Buffer
	tracegen.Generate(&a, tracegen.Config{Seed: 1, Requests: 100})
	tracegen.Generate(&b, tracegen.Config{Seed: 2, Requests: 100})
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("different seeds gave the same trace")
	}
}

// Notebook 04 shows the practice trace's conditions to learners: every
// value that is prose is Chinese, with full-width punctuation next to it.
// The keys stay the trace format's English identifiers, and the generator
// is the command's name.
func TestConditionsAreChinese(t *testing.T) {
	var b bytes.Buffer
	if _, err := tracegen.Generate(&b, tracegen.Config{Seed: 1, Requests: 10}); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(&b, "gen")
	if err != nil {
		t.Fatal(err)
	}
	var conds map[string]any
	if err := json.Unmarshal(tr.Header.Conditions, &conds); err != nil {
		t.Fatal(err)
	}
	if len(conds) < 10 {
		t.Fatalf("only %d conditions: %v", len(conds), conds)
	}
	for k, v := range conds {
		s, ok := v.(string)
		if !ok || k == "generator" {
			continue
		}
		if !strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			t.Errorf("condition %s = %q is not Chinese", k, s)
		}
		if p := textcheck.Punctuation(s); len(p) > 0 {
			t.Errorf("condition %s = %q: ASCII punctuation next to Chinese at %q", k, s, p)
		}
	}
}
