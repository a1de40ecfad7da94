//go:build engine

package main

// `make test-engine`: the views of runs against the real engine (llama.cpp
// with SmolLM2-135M, 1 thread) agree. Built only with -tags engine;
// without the engine it fails, never skips.

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

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
	p, err := lab.Engine{}.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Stop(); err != nil {
			t.Error(err)
		}
	}()
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
			var other metrics.Summary
			json.Unmarshal([]byte(cliOut(t, append([]string{"card", out, "--format", "json", "--percentile", "linear"}, c.read...)...)), &other)
			chartNums := append(append([]float64(nil), allowed...), deref64(other.TTFT.P95)...)
			for _, l := range []lang.Lang{lang.ZH, lang.EN} {
				for _, f := range []string{"text", "markdown"} {
					txt := cliOut(t, append([]string{"card", out, "--format", f, "--lang", string(l)}, c.read...)...)
					checkNumbers(t, "card "+f+" "+string(l), txt, out, allowed)
					checkQualified(t, "card "+f+" "+string(l), txt, l, &s)
				}
				checkReport(t, l, out, c.read, js, &s, allowed, chartNums)
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
				if a.Outcome == trace.OK && m.ST != nil && m.ST.N >= 4 && len(a.Events) == int(m.ST.N) {
					wire := (a.Events[len(a.Events)-1].TMS - a.Events[0].TMS) / float64(len(a.Events)-1)
					ratios = append(ratios, m.ST.MS/(m.ST.N-1)/wire)
				}
			}
			if len(ratios) < 3 {
				t.Fatalf("%d attempts to set the server's decode time beside the events", len(ratios))
			}
			slices.Sort(ratios)
			if r := ratios[len(ratios)/2]; r < 0.97 || r > 1.03 {
				t.Errorf("predicted_ms / (predicted_n − 1) is %.3f× the mean gap between events (median of %d)", r, len(ratios))
			}
			if s.Server.DecodeDefinition != metrics.DecodeDefinition {
				t.Errorf("the card's decode definition %q", s.Server.DecodeDefinition)
			}
		})
	}
}

func deref64(v *float64) []float64 {
	if v == nil {
		return nil
	}
	return []float64{*v}
}
