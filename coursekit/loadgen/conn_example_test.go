package loadgen_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/sim"
)

// One user sending one request after another keeps one connection: the
// client reads each body to its end after [DONE], so the connection goes
// back to the pool instead of being closed (which cost every request a new
// TCP handshake and a new server connection).
func Example_connectionReuse() {
	s := sim.New(sim.Config{DecodeStep: time.Millisecond, MaxBatch: 16})
	ts := httptest.NewUnstartedServer(s)
	var conns atomic.Int64
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	ts.Start()
	defer func() { s.Close(); ts.Close() }()

	res, err := loadgen.Run(context.Background(), loadgen.Config{
		URL: ts.URL, Concurrency: 1, Duration: 150 * time.Millisecond, Timeout: 5 * time.Second, MaxTokens: 3,
	}, io.Discard)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("all ok:", res.Outcomes["ok"] == res.Sent && res.Sent > 5, "connections:", conns.Load())
	// Output:
	// all ok: true connections: 1
}

// A server that keeps the stream open after [DONE] does not hold the
// attempt: it ends ok at [DONE], and the connection is dropped after a
// short wait.
func Example_streamOpenAfterDone() {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\"a\",\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer ts.Close()
	res, err := loadgen.Run(context.Background(), loadgen.Config{
		URL: ts.URL, Model: "m", Replay: []float64{0, 0}, MaxTokens: 1,
	}, io.Discard)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("sent:", res.Sent, "ok:", res.Outcomes["ok"])
	// Output:
	// sent: 2 ok: 2
}
