package loadgen_test

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/trace"
)

// A closed-loop user whose request finds nothing listening backs off
// before its next one (ConnectBackoffMin, doubling to ConnectBackoffMax),
// so that a crashed server's trace measures the server, not how fast the
// client can resend (it was ~21,000 connect errors a second). The header
// says so, and the result says from when nothing answered.
func TestClosedLoopBacksOffAfterConnectError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	res, tr, _ := run(t, context.Background(), loadgen.Config{URL: closed, Model: "m", Concurrency: 1, Duration: 700 * time.Millisecond, Timeout: time.Minute})
	if len(tr.Attempts) < 2 {
		t.Fatalf("%d attempts", len(tr.Attempts))
	}
	wait := loadgen.ConnectBackoffMin
	for i := 1; i < len(tr.Attempts); i++ {
		prev, a := tr.Attempts[i-1], tr.Attempts[i]
		if prev.Outcome != trace.ConnectError {
			t.Fatalf("attempt %d: %s (%s)", i-1, prev.Outcome, prev.Error)
		}
		if gap := a.StartMS - prev.EndMS; gap < float64(wait.Milliseconds()) {
			t.Fatalf("attempt %d sent %.3f ms after a connect_error, want ≥ %v (backoff)", i, gap, wait)
		}
		wait = min(2*wait, loadgen.ConnectBackoffMax)
	}
	var c map[string]any
	if err := json.Unmarshal(tr.Header.Conditions, &c); err != nil || c["connect_backoff"] == nil {
		t.Errorf("the header does not record the backoff: %s", tr.Header.Conditions)
	}
	if res.Unanswered.ConnectErrors != int64(len(tr.Attempts)) || res.Unanswered.FromMS != 0 {
		t.Errorf("unanswered %+v, want all %d attempts from 0 ms", res.Unanswered, len(tr.Attempts))
	}
}
