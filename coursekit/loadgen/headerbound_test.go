package loadgen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/trace"
)

// modelServer lists one model, id, and answers every completion.
func modelServer(t *testing.T, id string) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			b, _ := json.Marshal(id)
			fmt.Fprintf(w, `{"data":[{"id":%s}]}`, b)
			return
		}
		serveOK(w)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// A model id the server lists is copied into the trace header: one over
// MaxModelIDBytes (the walk's server listed a 2 MiB one, and bench wrote a
// header its own reader refused) is refused before any load is sent, with
// the cap named; one at the cap makes a trace that reads back.
func TestHugeModelIDIsRefused(t *testing.T) {
	for _, n := range []int{loadgen.MaxModelIDBytes + 1, 2 << 20} {
		url := modelServer(t, strings.Repeat("m", n))
		var out bytes.Buffer
		_, err := loadgen.Run(context.Background(), loadgen.Config{URL: url, Replay: []float64{0}}, &out)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes", n)) || !strings.Contains(err.Error(), "--model") {
			t.Errorf("model id of %d bytes: %v; want it refused, naming its length and --model", n, err)
		}
		if out.Len() > 0 {
			t.Errorf("model id of %d bytes: %d bytes of trace written", n, out.Len())
		}
	}
	// At the cap, in characters that JSON escapes (the header grows 6×).
	url := modelServer(t, strings.Repeat("\u0001", loadgen.MaxModelIDBytes))
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Replay: []float64{0}})
	if len(tr.Attempts) != 1 {
		t.Errorf("%d attempts", len(tr.Attempts))
	}
}

// Whatever bench is given, the header it writes is one its reader reads:
// a header over trace.MaxLineBytes (a URL of 2 MiB here) is refused before
// any request is sent, naming the limit, never written.
func TestHeaderOverTheLineCapIsRefused(t *testing.T) {
	url := modelServer(t, "m")
	var out bytes.Buffer
	_, err := loadgen.Run(context.Background(), loadgen.Config{URL: url + "/?pad=" + strings.Repeat("p", 2<<20), Model: "m", Replay: []float64{0}}, &out)
	if err == nil || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("2 MiB URL: %v; want the header refused, naming the reader's 1 MiB", err)
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	f, _ := os.Create(path)
	_, err = loadgen.Run(context.Background(), loadgen.Config{URL: url + "/?pad=" + strings.Repeat("p", 2<<20), Model: "m", Replay: []float64{0}}, f)
	f.Close()
	if err == nil || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("2 MiB URL to a file: %v", err)
	}
	if _, rerr := trace.ReadFile(path); rerr == nil {
		t.Errorf("premise: nothing readable was written")
	} else if st, _ := os.Stat(path); st.Size() > 0 {
		t.Errorf("wrote %d bytes: %v", st.Size(), rerr)
	}
}

// --url with a query: the paths bench asks for (/v1/models, then
// /v1/completions) go before the query, which every request keeps. Built
// by concatenation, the path went after "?" and the server saw "/".
func TestURLQueryStaysAQuery(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
			return
		}
		serveOK(w)
	}))
	defer ts.Close()
	for _, given := range []string{ts.URL + "?tenant=t1", ts.URL + "/?tenant=t1", ts.URL + "/v1?tenant=t1", ts.URL + "/v1/?tenant=t1"} {
		seen = nil
		for _, api := range []string{"completions", "chat"} {
			_, tr, _ := run(t, context.Background(), loadgen.Config{URL: given, API: api, Replay: []float64{0}})
			if tr.Attempts[0].Outcome != trace.OK {
				t.Errorf("%s %s: %s %s", given, api, tr.Attempts[0].Outcome, tr.Attempts[0].Error)
			}
		}
		want := "/v1/models?tenant=t1 /v1/completions?tenant=t1 /v1/models?tenant=t1 /v1/chat/completions?tenant=t1"
		if got := strings.Join(seen, " "); got != want {
			t.Errorf("--url %s: the server saw %s; want %s", given, got, want)
		}
	}
}

// A /metrics label of 15 MiB (under the byte cap) made a 94 MB sidecar
// line, past the sidecar reader's 64 MiB line: a series whose key is
// longer than MaxSeriesKeyBytes is left out and counted in "capped", and
// the sidecar reads back.
func TestMetricsHugeLabelIsLeftOut(t *testing.T) {
	s := scrapeOnce(t, func(w io.Writer) {
		fmt.Fprintf(w, "vllm:num_requests_running{model_name=\"m\"} 3\n")
		fmt.Fprintf(w, "big{l=\"%s\"} 1\n", strings.Repeat("<", 15<<20))
		fmt.Fprintf(w, "edge{l=\"%s\"} 2\n", strings.Repeat("a", loadgen.MaxSeriesKeyBytes-len(`edge{l=""}`)))
	}, 64<<10)
	if len(s.Values) != 2 || s.Capped != 1 || s.Values[`vllm:num_requests_running{model_name="m"}`] != 3 {
		t.Errorf("values %d, capped %d; want the gauge and the series at the cap kept, the huge one counted", len(s.Values), s.Capped)
	}
}
