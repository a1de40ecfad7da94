package loadgen_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/trace"
)

// A server that answers correctly but with no text (llama.cpp when the
// model samples its end-of-sequence token first: predicted_n 1, no
// content) gives empty_output, not stream_error: nothing broke. Recorded
// from xllamacpp 2026.10.11549, SmolLM2-135M, /v1/completions. A stream
// that ends after its finish_reason without [DONE] is the same.
func TestEmptyAnswerIsEmptyOutput(t *testing.T) {
	recorded, err := os.ReadFile(filepath.Join("testdata", "llamacpp-completions-empty.sse"))
	if err != nil {
		t.Fatal(err)
	}
	noDone := strings.TrimSuffix(string(recorded), "data: [DONE]\n\n")
	for _, tc := range []struct{ name, body string }{
		{"done", string(recorded)},
		{"finish then EOF", noDone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			_, tr, _ := run(t, context.Background(), loadgen.Config{URL: srv.URL, Model: "m", Replay: []float64{0}})
			a := tr.Attempts[0]
			if a.Outcome != trace.EmptyOutput || len(a.Events) != 0 || !strings.Contains(a.Error, "without any output text") {
				t.Errorf("outcome %s, %d events, error %q; want empty_output, no events, an error naming it", a.Outcome, len(a.Events), a.Error)
			}
			if a.HTTPStatus != 200 || a.OutputTokens != 1 || !strings.Contains(string(a.Meta), `"predicted_n":1`) {
				t.Errorf("status %d, output_tokens %d, meta %s: want the server's answer kept", a.HTTPStatus, a.OutputTokens, a.Meta)
			}
		})
	}
}
