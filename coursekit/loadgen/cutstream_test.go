package loadgen_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/trace"
)

// A server that answers 200, flushes the header (and, the second time,
// one event) and dies: the attempt said a bare "unexpected EOF". It is a
// stream_error, as a 2xx whose stream broke is (data/README.md), and says
// the stream ended before [DONE] because the connection closed
// mid-stream, as the product words a cut-off stream.
func TestConnectionClosedMidStream(t *testing.T) {
	for _, events := range []int{0, 1} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for range events {
				_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\"a\"}]}\n\n")
			}
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			conn.Close()
		}))
		_, tr, _ := run(t, context.Background(), loadgen.Config{URL: srv.URL, Model: "m", Concurrency: 1, NumRequests: 1, Duration: time.Minute, Timeout: time.Minute})
		srv.Close()
		if len(tr.Attempts) != 1 {
			t.Fatalf("events %d: %d attempts", events, len(tr.Attempts))
		}
		a := tr.Attempts[0]
		want := "stream ended before [DONE]: the connection closed mid-stream (unexpected EOF)"
		if a.Outcome != trace.StreamError || a.HTTPStatus != 200 || a.Error != want || len(a.Events) != events {
			t.Errorf("events %d: %s %d %q with %d events, want stream_error 200 %q", events, a.Outcome, a.HTTPStatus, a.Error, len(a.Events), want)
		}
	}
}
