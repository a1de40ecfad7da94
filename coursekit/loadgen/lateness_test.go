package loadgen_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// A client machine too busy to run the client on time is visible in the
// trace: with one CPU for Go and a goroutine spinning on it for a while
// (what CPU contention does to the client), the lateness probe wakes late,
// the attempts alive then record it in meta.client_lag_ms, the run's
// ClientLag has it, and the card counts the attempts over the bound. The
// attempts sent while the client was idle record a small lag.
func TestClientLatenessIsRecorded(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\"a\"}]}\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(150 * time.Millisecond)
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\"b\",\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer ts.Close()
	var spin atomic.Bool
	go func() {
		time.Sleep(400 * time.Millisecond) // after the first attempts
		spin.Store(true)
		for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
		}
		spin.Store(false)
	}()
	res, tr, _ := run(t, context.Background(), loadgen.Config{URL: ts.URL, Model: "m", Concurrency: 2, Duration: 1200 * time.Millisecond, Timeout: time.Minute})
	if res.ClientLag.N == 0 || res.ClientLag.Max <= metrics.ClientLagBoundMS {
		t.Fatalf("run's client lag %+v: want the spin's lateness over %g ms", res.ClientLag, metrics.ClientLagBoundMS)
	}
	var over, every int
	for i := range tr.Attempts {
		var m struct {
			Lag *float64 `json:"client_lag_ms"`
		}
		if err := json.Unmarshal(tr.Attempts[i].Meta, &m); err != nil || m.Lag == nil {
			t.Fatalf("attempt %s records no client_lag_ms: %s", tr.Attempts[i].ID, tr.Attempts[i].Meta)
		}
		every++
		if *m.Lag > metrics.ClientLagBoundMS {
			over++
		}
	}
	// The attempts alive during the spin are late; the others may be too on
	// a loaded machine (16 of 16 at load 8-13), which is what the card's
	// note is for, so only "some" is a property.
	if over == 0 {
		t.Errorf("%d of %d attempts over the bound; want at least the ones alive during the spin", over, every)
	}
	s := cardopts.MustSummarize(tr, cardopts.Flags{})
	if c := s.ClientLag; c == nil || c.OverBound == 0 || c.MaxMS <= metrics.ClientLagBoundMS {
		t.Errorf("card's client lag %+v", c)
	}
}
