package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A wrong --url stops bench before any load, with what is wrong: nothing
// listening, or a server that is not OpenAI-compatible (a web page's
// 404). The trace already there is left as it was. --no-preflight sends
// the load anyway (every attempt then fails, as recorded).
func TestBenchPreflightStopsAWrongURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>not here</html>", http.StatusNotFound)
	}))
	defer web.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "run.jsonl")
	const before = "the previous run's trace\n"
	if err := os.WriteFile(out, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ url, want string }{
		{closed, "nothing answers at " + closed},
		{web.URL, web.URL + " does not answer as an OpenAI-compatible server (GET /v1/models: 404 Not Found)"},
	} {
		code, _, errs := runCLI(t, "bench", "--url", c.url, "--model", "m", "--concurrency", "1", "--num-requests", "3", "--duration", "5s", "--progress", "0", "--out", out)
		if code == 0 || !strings.Contains(errs, "pre-flight: "+c.want) || !strings.Contains(errs, "--no-preflight") {
			t.Errorf("%s: exit %d, %s; want the pre-flight to stop it with %q", c.url, code, errs, c.want)
		}
		if b, _ := os.ReadFile(out); string(b) != before {
			t.Errorf("%s: the trace was touched: %q", c.url, b)
		}
	}
	code, _, errs := runCLI(t, "bench", "--url", closed, "--model", "m", "--concurrency", "1", "--num-requests", "3", "--duration", "5s", "--progress", "0", "--no-preflight", "--out", out)
	if code != 0 {
		t.Fatalf("--no-preflight: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), `"outcome":"connect_error"`) {
		t.Errorf("--no-preflight: the load was not sent:\n%.500s", b)
	}
}
