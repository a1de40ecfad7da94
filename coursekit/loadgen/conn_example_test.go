package loadgen_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

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
