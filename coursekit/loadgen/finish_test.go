package loadgen_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// TestFinishStampsTheTextlessLastToken: as llama.cpp does when the model
// samples its end-of-sequence token, the stream sends three text tokens,
// then the finish_reason chunk without text, and usage counts 4 tokens.
// The trace records when the finish arrived (between the last event and the
// end), and TPOT's t_N is that arrival: TPOT is the mean of the 3 steps
// after the first token, not 2 steps spread over 3 gaps.
func TestFinishStampsTheTextlessLastToken(t *testing.T) {
	const step = 20 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		send := func(s string) { fmt.Fprintf(w, "data: %s\n\n", s); f.Flush() }
		for i, tok := range []string{"a", "b", "c"} {
			if i > 0 {
				time.Sleep(step)
			}
			send(`{"choices":[{"index":0,"delta":{"content":"` + tok + `"},"finish_reason":null}]}`)
		}
		time.Sleep(step)
		send(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		send(`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":4}}`)
		send("[DONE]")
	}))
	defer srv.Close()
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: srv.URL, API: "chat", Model: "m", Replay: []float64{0}})
	if len(tr.Attempts) != 1 {
		t.Fatalf("%d attempts, want 1", len(tr.Attempts))
	}
	a := tr.Attempts[0]
	if a.Outcome.String() != "ok" || len(a.Events) != 3 || a.OutputTokens != 4 {
		t.Fatalf("outcome %s (%s), %d events, output_tokens %d; want ok, 3, 4", a.Outcome, a.Error, len(a.Events), a.OutputTokens)
	}
	last := a.Events[len(a.Events)-1].TMS
	if !a.HasFinish || a.FinishMS < last || a.FinishMS > a.EndMS {
		t.Fatalf("finish_ms %v (recorded %v), want between the last event %v and the end %v", a.FinishMS, a.HasFinish, last, a.EndMS)
	}
	tpot, ok := a.TPOT()
	if !ok || tpot != (a.FinishMS-a.Events[0].TMS)/3 {
		t.Errorf("TPOT %v, want (finish − first)/(N − 1) = %v", tpot, (a.FinishMS-a.Events[0].TMS)/3)
	}
}
