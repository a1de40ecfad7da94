package loadgen_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/sim"
)

// An open loop of 50 requests/s for 200 ms against the simulator: the
// schedule (0, 20, …, 180 ms) is fixed before the first send, so exactly
// 10 attempts are sent, and all 10 are in the trace.
func Example() {
	s := sim.New(sim.Config{DecodeStep: time.Millisecond, MaxBatch: 16})
	ts := httptest.NewServer(s) // 127.0.0.1:0
	defer func() { s.Close(); ts.Close() }()

	res, err := loadgen.Run(context.Background(), loadgen.Config{
		URL:       ts.URL,
		Rate:      50,
		Arrival:   loadgen.Constant,
		Duration:  200 * time.Millisecond,
		Timeout:   5 * time.Second,
		MaxTokens: 4,
	}, io.Discard) // a file in real use: the trace is flushed attempt by attempt
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("model:", res.Model)
	fmt.Println("sent:", res.Sent, "recorded:", res.Recorded, "ok:", res.Outcomes["ok"])
	// Output:
	// model: sim-model
	// sent: 10 recorded: 10 ok: 10
}
