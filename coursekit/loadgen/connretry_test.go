package loadgen_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// keepAliveLiar serves each connection one recorded llama.cpp stream with
// "Keep-Alive: timeout=5, max=100", then closes it, as llama.cpp does.
func keepAliveLiar(t *testing.T) string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "llamacpp-completions.sse"))
	if err != nil {
		t.Fatal(err)
	}
	// rawServerFunc (hostile_test.go) reads each request, then this answers it.
	return rawServerFunc(t, func(c net.Conn) {
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: %s\r\n\r\n", strconv.Itoa(len(body)))
		c.Write(body)
		// Close only after the client has had time to send its next
		// request on this connection: it then gets EOF before any
		// response byte, every time, not only when it wins a race.
		time.Sleep(30 * time.Millisecond)
	})
}

// TestDeadPooledConnectionIsRetried: a server that closes after each
// response while advertising keep-alive makes no false failure; the
// transparent retries are counted in meta.conn_retries.
func TestDeadPooledConnectionIsRetried(t *testing.T) {
	url := keepAliveLiar(t)
	// A count, not a duration: on a loaded machine 300 ms held one attempt.
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Model: "m", Concurrency: 1, NumRequests: 6, Duration: time.Minute})
	retries := 0
	for _, a := range tr.Attempts {
		if a.Outcome.String() != "ok" {
			t.Errorf("attempt %s: %s (%s), a false failure", a.ID, a.Outcome, a.Error)
		}
		var m struct {
			ConnRetries int `json:"conn_retries"`
		}
		json.Unmarshal(a.Meta, &m)
		retries += m.ConnRetries
	}
	// A retry's fresh connection is closed after use, so the attempt after
	// it dials anew: about every other attempt meets a dead pooled one.
	if len(tr.Attempts) < 3 || retries == 0 || retries > len(tr.Attempts)-1 {
		t.Errorf("%d transparent retries over %d attempts", retries, len(tr.Attempts))
	}
}

// TestRefusedConnectionStaysAFailure: a server that is not there is a
// connect_error, not retried away.
func TestRefusedConnectionStaysAFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Model: "m", Replay: []float64{0, 1}})
	for _, a := range tr.Attempts {
		if a.Outcome.String() != "connect_error" {
			t.Errorf("attempt %s: %s, want connect_error", a.ID, a.Outcome)
		}
	}
}
