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
		// no_response and empty_output came after the practice trace:
		// they are what a live client (coursekit bench) records when a
		// server drops a request it was sent, or answers with no text;
		// the notebooks' numbers stay those of this trace.
		if s.Outcomes[o.String()] == 0 && o != trace.NoResponse && o != trace.EmptyOutput {
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
	tr := generated(t, tracegen.Config{Seed: 1, Requests: 10})
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

// A server that packs k tokens into one event sends it once the k-th is
// generated: the event comes after the k-fold wait, not before it (the
// third review found several tokens "arriving" before they could have been
// generated). So the gap before a k-token event holds k tokens' generation
// and is about k times the gap before a one-token event, while the gap
// after it is an ordinary one. On a seeded trace the means say it plainly.
func TestAMultiTokenEventComesAfterItsWait(t *testing.T) {
	tr := generated(t, tracegen.Config{Seed: 3, Requests: 4000})
	before := map[int][]float64{} // tokens of the event → gaps before it
	afterMulti := []float64{}     // gaps right after a multi-token event
	for _, a := range tr.Attempts {
		for i := 1; i < len(a.Events); i++ {
			gap := a.Events[i].TMS - a.Events[i-1].TMS
			before[a.Events[i].Tokens] = append(before[a.Events[i].Tokens], gap)
			if a.Events[i-1].Tokens > 1 && a.Events[i].Tokens == 1 {
				afterMulti = append(afterMulti, gap)
			}
		}
	}
	mean := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	one := mean(before[1])
	for k := 2; k <= 4; k++ {
		if len(before[k]) < 50 {
			t.Fatalf("only %d gaps before %d-token events", len(before[k]), k)
		}
		if r := mean(before[k]) / one; r < float64(k)-0.5 || r > float64(k)+0.5 {
			t.Errorf("the gap before a %d-token event is %.2f× the gap before a one-token event; want about %d×", k, r, k)
		}
	}
	if r := mean(afterMulti) / one; r < 0.8 || r > 1.25 {
		t.Errorf("the gap after a multi-token event is %.2f× an ordinary one; want about 1×", r)
	}
}

// The client gives up waiting for the first token at the timeout: no
// complete success has a first event later than it, coalesced or not.
func TestNoSuccessWaitsPastTheTimeout(t *testing.T) {
	cfg := tracegen.Config{Seed: 4, Requests: 4000}
	tr := generated(t, cfg)
	limit := cfg.Defaults().TimeoutMS
	for _, a := range tr.Attempts {
		if ttft, ok := a.TTFT(); ok && ttft > limit {
			t.Errorf("attempt %s (%s) got its first event %.1f ms after sending, past the %g ms timeout", a.ID, a.Outcome, ttft, limit)
		}
	}
}

// generated is the trace cfg generates, read back as a reader would.
func generated(t *testing.T, cfg tracegen.Config) *trace.Trace {
	t.Helper()
	var b bytes.Buffer
	if _, err := tracegen.Generate(&b, cfg); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(&b, "gen")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
