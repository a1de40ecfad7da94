package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// bench and capacity given a full endpoint as --url
// (http://HOST:PORT/v1/chat/completions) stop at the pre-flight with an
// error that says to give the base URL, naming it, and send no load.
func TestPreflightEndpointURLBenchAndCapacity(t *testing.T) {
	var inference atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"object":"list","data":[{"id":"m"}]}`))
			return
		}
		if r.Method == http.MethodPost {
			inference.Add(1)
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	want := "not an endpoint (/v1/chat/completions): give " + srv.URL + ";"
	code, _, errs := runCLI(t, "bench", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--concurrency", "1", "--num-requests", "2", "--duration", "5s", "--progress", "0", "--out", filepath.Join(dir, "b.jsonl"))
	if code != 2 || !strings.Contains(errs, "bench: pre-flight: ") || !strings.Contains(errs, want) {
		t.Errorf("bench: exit %d, %s; want %q", code, errs, want)
	}
	out := filepath.Join(dir, "steps")
	code, _, errs = runCLI(t, "capacity", "--url", srv.URL+"/v1/chat/completions", "--model", "m", "--slo-e2e", "5s", "--out", out)
	if code != 2 || !strings.Contains(errs, "capacity: pre-flight: ") || !strings.Contains(errs, want) {
		t.Errorf("capacity: exit %d, %s; want %q", code, errs, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("capacity made --out (%v)", err)
	}
	if n := inference.Load(); n != 0 {
		t.Errorf("%d inference requests sent; the pre-flight should stop both before any load", n)
	}
}
