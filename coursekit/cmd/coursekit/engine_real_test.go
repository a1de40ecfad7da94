//go:build engine

package main

// `make test-engine`: the views of runs against the real engine (llama.cpp
// with SmolLM2-135M, 1 thread) agree. Built only with -tags engine;
// without the engine it fails, never skips.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// bench → card → report against the real engine: the report embeds the
// card's summary under the same flags and every number it and the card
// show is the summary's (an unjudged run whose header records TTFT and
// E2E SLOs, read with no flag; a judged run with --slo-e2e); the server's
// decode time per token is the mean gap between the tokens' events; every
// attempt records how late the client was.
func TestRealEngineViewsAgree(t *testing.T) {
	p := startEngine(t)
	dir := t.TempDir()
	easy := filepath.Join("..", "..", "..", "data", "datasets", "easy.jsonl")
	for _, c := range []struct {
		name        string
		bench, read []string
	}{
		{"unjudged, SLOs recorded", []string{"--api", "chat", "--concurrency", "1", "--num-requests", "10", "--max-tokens", "24", "--slo-ttft", "1s", "--slo-e2e", "1500ms"}, nil},
		{"judged, --slo-e2e", []string{"--api", "chat", "--dataset", easy, "--concurrency", "2", "--num-requests", "10", "--max-tokens", "16"}, []string{"--slo-ttft", "800ms", "--slo-e2e", "2s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name+".jsonl")
			cliOut(t, append([]string{"bench", "--url", p.URL, "--duration", "5m", "--timeout", "60s", "--progress", "0", "--out", out}, c.bench...)...)
			js := cliOut(t, append([]string{"card", out, "--format", "json"}, c.read...)...)
			var s metrics.Summary
			var want map[string]any
			if err := json.Unmarshal([]byte(js), &s); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal([]byte(js), &want)
			if s.CompleteSuccess == 0 || s.Server == nil {
				t.Fatalf("no complete success with server timings: %s", js)
			}
			allowed := append(numbersOf(want), derived(&s)...)
			for _, l := range []lang.Lang{lang.ZH, lang.EN} {
				for _, f := range []string{"text", "markdown"} {
					txt := cliOut(t, append([]string{"card", out, "--format", f, "--lang", string(l)}, c.read...)...)
					checkNumbers(t, "card "+f+" "+string(l), txt, out, allowed)
					checkQualified(t, "card "+f+" "+string(l), txt, l, &s)
				}
				checkReport(t, l, out, c.read, js, &s, allowed)
			}

			tr, err := trace.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var ratios []float64
			for i := range tr.Attempts {
				a := &tr.Attempts[i]
				var m struct {
					Lag *float64 `json:"client_lag_ms"`
					ST  *struct {
						N  float64 `json:"predicted_n"`
						MS float64 `json:"predicted_ms"`
					} `json:"server_timings"`
				}
				if err := json.Unmarshal(a.Meta, &m); err != nil || m.Lag == nil {
					t.Errorf("attempt %s records no client_lag_ms: %s", a.ID, a.Meta)
				}
				if a.Outcome != trace.OK || m.ST == nil || m.ST.N < 4 || len(a.Events) == 0 {
					continue
				}
				// t_N is the last token's arrival: the last text event when
				// every token came as one, else the finish chunk's, which
				// carries the end-of-sequence token the events did not (the
				// model's own stop, as often as not on easy prompts).
				var tN float64
				switch {
				case len(a.Events) == int(m.ST.N):
					tN = a.Events[len(a.Events)-1].TMS
				case len(a.Events) == int(m.ST.N)-1 && a.HasFinish:
					tN = a.FinishMS
				default:
					continue
				}
				wire := (tN - a.Events[0].TMS) / (m.ST.N - 1)
				ratios = append(ratios, m.ST.MS/(m.ST.N-1)/wire)
			}
			if len(ratios) < 3 {
				t.Fatalf("%d attempts to set the server's decode time beside the events", len(ratios))
			}
			slices.Sort(ratios)
			t.Logf("predicted_ms / (predicted_n − 1) over the mean wire gap: median %.3f of %d attempts", ratios[len(ratios)/2], len(ratios))
			if r := ratios[len(ratios)/2]; r < 0.97 || r > 1.03 {
				t.Errorf("predicted_ms / (predicted_n − 1) is %.3f× the mean gap between events (median of %d)", r, len(ratios))
			}
			if s.Server.DecodeDefinition != metrics.DecodeDefinition {
				t.Errorf("the card's decode definition %q", s.Server.DecodeDefinition)
			}
		})
	}
}

// capacity against the real engine, the same bounded search twice (steps of
// 5 s up to 4 req/s, about a minute in all): the second, given the first's
// JSON, gives the same answer, or answers within the search's resolution,
// or says why not from what the searches recorded. Properties only: which
// of them holds depends on the machine, never a timing.
func TestRealEngineCapacityTwice(t *testing.T) {
	p := startEngine(t)
	dir := t.TempDir()
	flags := []string{"--url", p.URL, "--max-tokens", "8", "--slo-ttft", "3s", "--slo-e2e", "5s", "--target", "0.5",
		"--start-rate", "1", "--max-rate", "4", "--resolution", "1", "--warmup", "500ms", "--step-duration", "5s", "--step-max-duration", "5s",
		"--timeout", "8s", "--busy-gauge", "llamacpp:requests_processing", "--format", "json"}
	first := filepath.Join(dir, "first.json")
	js := cliOut(t, append([]string{"capacity", "--out", filepath.Join(dir, "a")}, flags...)...)
	if err := os.WriteFile(first, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	var a, b capacity.Result
	if err := json.Unmarshal([]byte(js), &a); err != nil {
		t.Fatal(err)
	}
	chart := filepath.Join(dir, "b.html")
	if err := json.Unmarshal([]byte(cliOut(t, append([]string{"capacity", "--out", filepath.Join(dir, "b"), "--previous", first, "--chart", chart, "--lang", "en"}, flags...)...)), &b); err != nil {
		t.Fatal(err)
	}
	// The chart says which steps the client was late for, as the JSON
	// records them (a loaded machine makes some; an idle one none).
	page, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range b.Steps {
		late := (s.ClientLag != nil && s.ClientLag.OverBound > 0) || (s.SendLagP99MS != nil && *s.SendLagP99MS > metrics.SendLagBoundMS)
		line := fmt.Sprintf("%s req/s: %d / %d qualified", numfmt.Exact(s.Rate), s.Qualified, s.Attempts)
		i := strings.Index(string(page), line)
		if i < 0 {
			t.Errorf("the chart has no line for step %g", s.Rate)
			continue
		}
		rest := string(page)[i:]
		// The step's own line: the chart's option is one line of JSON, so
		// the tooltip ends at its closing quote (escaped in the page).
		rest = rest[:strings.IndexAny(rest, "\n<\"\\")]
		if strings.Contains(rest, "client late: ") != late {
			t.Errorf("step %g: late %v (client lag %+v, send lag P99 %v), chart line %q", s.Rate, late, s.ClientLag, deref(s.SendLagP99MS), rest)
		}
	}
	ag := b.Again
	if ag == nil {
		t.Fatal("the second search does not compare itself with the first")
	}
	t.Logf("answers %v (%s) then %v (%s), %d and %d steps:\n%s", deref(a.MaxRateMeeting), a.BoundedBy, deref(b.MaxRateMeeting), b.BoundedBy, len(a.Steps), len(b.Steps), capacityAgainIn(lang.EN, ag))
	same := fmt.Sprint(deref(a.MaxRateMeeting)) == fmt.Sprint(deref(b.MaxRateMeeting)) && a.BoundedBy == b.BoundedBy
	if ag.Same != same || (!same && len(ag.Reasons) == 0) {
		t.Fatalf("same answer %v, comparison says %v with reasons %+v", same, ag.Same, ag.Reasons)
	}
	within := a.MaxRateMeeting != nil && b.MaxRateMeeting != nil && math.Abs(*a.MaxRateMeeting-*b.MaxRateMeeting) <= a.Resolution
	stepReason := false
	for _, w := range ag.Reasons {
		switch w.Kind {
		case capacity.WhyFlagsDiffer, capacity.WhyInterrupted:
			t.Errorf("the same flags, uninterrupted, yet %s: %+v", w.Kind, w)
		case capacity.WhyWithinResolution:
			if !within {
				t.Errorf("within the resolution, yet %v and %v", deref(a.MaxRateMeeting), deref(b.MaxRateMeeting))
			}
		default:
			// A step reason names a rate both searched and judged differently.
			if w.Rate == nil || w.Previous == nil || w.This == nil || w.Previous.Rate != *w.Rate || w.This.Rate != *w.Rate || w.Previous.Verdict == w.This.Verdict {
				t.Errorf("%s: rate %v, steps %+v / %+v", w.Kind, deref(w.Rate), w.Previous, w.This)
			}
			stepReason = true
		}
	}
	if !same && !within && !stepReason {
		t.Errorf("answers %v and %v, more than the resolution apart, with no step's reason: %+v", deref(a.MaxRateMeeting), deref(b.MaxRateMeeting), ag.Reasons)
	}
	for _, s := range append(a.Steps, b.Steps...) {
		if s.LoadAvg == nil {
			t.Errorf("step %g records no load average", s.Rate)
		}
	}
	text := capacityTextIn(lang.EN, &b)
	if !strings.Contains(text, "Against the previous search ("+first+"): ") || (!same && !strings.Contains(text, "Why:\n  - ")) {
		t.Errorf("the text does not say it:\n%s", text)
	}
}

// startEngine starts the real engine for the test and stops it after.
func startEngine(t *testing.T) *lab.EngineProcess {
	t.Helper()
	p, err := lab.Engine{}.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Error(err)
		}
	})
	return p
}

// On /v1/completions the easy set's bare questions often get no text at
// all: llama.cpp answers 200 and [DONE] after the end-of-sequence token
// (usage 1 completion token). Each such attempt is empty_output, never
// stream_error, and the card names them 空输出; bench says why.
func TestRealEngineEmptyAnswers(t *testing.T) {
	p := startEngine(t)
	out := filepath.Join(t.TempDir(), "empty.jsonl")
	easy := filepath.Join("..", "..", "..", "data", "datasets", "easy.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", p.URL, "--dataset", easy, "--concurrency", "1", "--num-requests", "12", "--max-tokens", "16",
		"--duration", "5m", "--timeout", "60s", "--progress", "0", "--out", out)
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errs)
	}
	tr, err := trace.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	empty := 0
	for _, a := range tr.Attempts {
		if a.HTTPStatus == 200 && len(a.Events) == 0 && a.Outcome != trace.EmptyOutput {
			t.Errorf("attempt %s: 200 without text is %s (%q), want empty_output", a.ID, a.Outcome, a.Error)
		}
		if a.Outcome == trace.EmptyOutput {
			empty++
			if a.OutputTokens != 1 || !strings.Contains(string(a.Meta), `"predicted_n":1`) {
				t.Errorf("attempt %s: empty_output with output_tokens %d, meta %s", a.ID, a.OutputTokens, a.Meta)
			}
		}
	}
	// The model's own chance of an end token first is 0.23–0.84 per
	// question (docs/engineers.md): twelve without one is not chance.
	if empty == 0 {
		t.Fatalf("no empty answer in %d attempts on /v1/completions", len(tr.Attempts))
	}
	if !strings.Contains(errs, "attempts were empty_output") || !strings.Contains(errs, "--api chat applies the template") {
		t.Errorf("bench does not say why:\n%s", errs)
	}
	if card := cliOut(t, "card", out); !strings.Contains(card, fmt.Sprintf("空输出 %d", empty)) || strings.Contains(card, "流中途断开") {
		t.Errorf("card:\n%s", card)
	}
}
