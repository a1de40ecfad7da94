package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// A server that answers every request with an error (here a plain file
// server: 404 for every POST), measured with --no-preflight, gives a trace
// of failures only. The run still exits 0 (every failure was recorded), but
// its last lines say that nothing succeeded, how the server answered, and
// what to check, so nobody reads a card of 100 % http_error as a server
// measurement.
func TestBenchSaysWhenNoAttemptSucceeded(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "none.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", srv.URL, "--no-preflight", "--model", "m", "--concurrency", "1",
		"--num-requests", "3", "--duration", "5s", "--progress", "0", "--out", out)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, errs)
	}
	for _, want := range []string{"no attempt succeeded: http_error 3 of 3", "404", "--url", "--model", "--no-preflight"} {
		if !strings.Contains(errs, want) {
			t.Errorf("bench's last lines lack %q:\n%s", want, errs)
		}
	}
	// A run with a success says nothing of the kind.
	ok := "http://" + startSimCLI(t)
	code, _, errs = runCLI(t, "bench", "--url", ok, "--concurrency", "1", "--num-requests", "2", "--duration", "5s",
		"--progress", "0", "--out", filepath.Join(t.TempDir(), "ok.jsonl"))
	if code != 0 || strings.Contains(errs, "no attempt succeeded") {
		t.Errorf("a run with successes: exit %d, says no attempt succeeded:\n%s", code, errs)
	}
}
