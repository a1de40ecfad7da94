package loadgen_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// TestRecordedStreams replays SSE streams recorded from llama.cpp
// (xllamacpp 2026.10.11549, SmolLM2-135M, include_usage) and a vLLM-style
// stream with continuous usage: only chunks with output text are events,
// the final cumulative usage is the stream's output_tokens (not one
// event's), and the server's timings and cached tokens land in meta.
func TestRecordedStreams(t *testing.T) {
	for _, tc := range []struct {
		file, api    string
		events, toks int // events and the sum of their tokens
		outTokens    int
		stream       map[string]int
		cached       int
		timings      bool
	}{
		{"llamacpp-chat.sse", "chat", 12, 12, 12, map[string]int{"role_only": 1, "finish_only": 1, "no_choices": 1}, 0, true},
		{"llamacpp-completions.sse", "completions", 12, 12, 12, map[string]int{"finish_only": 1}, 0, true},
		{"vllm-style-chat-continuous.sse", "chat", 2, 4, 4, map[string]int{"role_only": 1, "finish_only": 1, "no_choices": 1}, 3, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write(body)
			}))
			defer srv.Close()
			_, tr, _ := run(t, context.Background(), loadgen.Config{URL: srv.URL, API: tc.api, Model: "m", Replay: []float64{0}})
			if len(tr.Attempts) != 1 {
				t.Fatalf("%d attempts, want 1", len(tr.Attempts))
			}
			a := tr.Attempts[0]
			if a.Outcome.String() != "ok" {
				t.Fatalf("outcome %s (%s)", a.Outcome, a.Error)
			}
			sum := 0
			for _, e := range a.Events {
				sum += e.Tokens
			}
			if len(a.Events) != tc.events || sum != tc.toks || a.OutputTokens != tc.outTokens {
				t.Errorf("events %d carrying %d tokens, output_tokens %d; want %d, %d, %d", len(a.Events), sum, a.OutputTokens, tc.events, tc.toks, tc.outTokens)
			}
			var meta struct {
				Stream        map[string]int  `json:"stream"`
				CachedTokens  *int            `json:"cached_tokens"`
				ServerTimings json.RawMessage `json:"server_timings"`
			}
			if err := json.Unmarshal(a.Meta, &meta); err != nil {
				t.Fatalf("meta %s: %v", a.Meta, err)
			}
			if len(meta.Stream) != len(tc.stream) {
				t.Errorf("meta.stream %v, want %v", meta.Stream, tc.stream)
			}
			for k, v := range tc.stream {
				if meta.Stream[k] != v {
					t.Errorf("meta.stream %v, want %v", meta.Stream, tc.stream)
				}
			}
			if meta.CachedTokens == nil || *meta.CachedTokens != tc.cached {
				t.Errorf("meta.cached_tokens %v, want %d", meta.CachedTokens, tc.cached)
			}
			if tc.timings {
				var tm struct {
					PromptN    *int     `json:"prompt_n"`
					PredictedN int      `json:"predicted_n"`
					PromptMS   *float64 `json:"prompt_ms"`
				}
				if err := json.Unmarshal(meta.ServerTimings, &tm); err != nil || tm.PromptN == nil || tm.PromptMS == nil || tm.PredictedN != tc.outTokens {
					t.Errorf("meta.server_timings %s (%v)", meta.ServerTimings, err)
				}
			} else if meta.ServerTimings != nil {
				t.Errorf("meta.server_timings %s, want none", meta.ServerTimings)
			}
		})
	}
}
