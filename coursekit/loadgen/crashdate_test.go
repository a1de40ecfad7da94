package loadgen_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// A server that dies as kill.jsonl's did (walk 35e): it answers one
// request, takes the next and closes its connection a while later with no
// response byte (no_response), and listens no more (connect_error). The
// run dates the death from the last response byte, the answer's end, not
// from the no_response's end, and counts every connect error since; the
// card's summary of the trace says the same.
func TestUnansweredFromLastResponseByte(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if n.Add(1) == 1 {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, okStream)
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		ln.Close() // nothing listens from now on
		time.Sleep(150 * time.Millisecond)
		conn.Close() // no response byte: no_response
	})}
	srv.SetKeepAlivesEnabled(false) // a fresh connection each: a reused one the client would retry on
	go srv.Serve(ln)
	defer srv.Close()
	res, tr, _ := run(t, context.Background(), loadgen.Config{URL: "http://" + ln.Addr().String(), Model: "m", Concurrency: 1, Duration: 1200 * time.Millisecond, Timeout: time.Minute})
	var okEnd, noRespEnd float64
	var conn int64
	for _, a := range tr.Attempts {
		switch a.Outcome {
		case trace.OK:
			okEnd = a.EndMS
		case trace.NoResponse:
			noRespEnd = a.EndMS
		case trace.ConnectError:
			conn++
		default:
			t.Fatalf("unexpected %s: %s", a.Outcome, a.Error)
		}
	}
	if okEnd == 0 || noRespEnd <= okEnd || conn == 0 {
		for _, a := range tr.Attempts {
			t.Logf("%s %s %v–%v %s", a.ID, a.Outcome, a.StartMS, a.EndMS, a.Error)
		}
		t.Fatalf("not the shape wanted: ok end %v, no_response end %v, %d connect errors", okEnd, noRespEnd, conn)
	}
	if u := res.Unanswered; u.FromMS != okEnd || u.ConnectErrors != conn {
		t.Errorf("bench: unanswered %+v, want from %v ms (the answer's end, not the no_response's %v) and %d connect errors", u, okEnd, noRespEnd, conn)
	}
	if u := metrics.Summarize(tr, metrics.Options{}).Unanswered; u == nil || u.FromMS != okEnd || u.ConnectErrors != conn {
		t.Errorf("card: unanswered %+v, want from %v ms and %d connect errors", u, okEnd, conn)
	}
}
