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
		{web.URL, web.URL + " does not answer as an OpenAI-compatible server (GET " + web.URL + "/v1/models: 404 Not Found)"},
	} {
		code, _, errs := runCLI(t, "bench", "--url", c.url, "--model", "m", "--concurrency", "1", "--num-requests", "3", "--duration", "5s", "--progress", "0", "--out", out)
		if code != 2 || !strings.Contains(errs, "pre-flight: "+c.want) || !strings.Contains(errs, "--no-preflight") {
			t.Errorf("%s: exit %d, %s; want the pre-flight to stop it with %q", c.url, code, errs, c.want)
		}
		// Not a usage error: no pointer to the command's help.
		if strings.Contains(errs, "for usage") {
			t.Errorf("%s: a pre-flight failure points at the usage: %s", c.url, errs)
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

// A --model the server does not list stops bench before any load (exit
// 2), naming the models it offers; --no-preflight skips the check.
func TestBenchPreflightRefusesAnUnlistedModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"object":"list","data":[{"id":"qwen3-0.6b"},{"id":"llama-3"}]}`))
			return
		}
		http.Error(w, "no such model", http.StatusNotFound)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "run.jsonl")
	args := []string{"bench", "--url", srv.URL, "--model", "gpt-4o", "--concurrency", "1", "--num-requests", "2", "--duration", "5s", "--progress", "0", "--out", out}
	code, _, errs := runCLI(t, args...)
	if code != 2 || !strings.Contains(errs, `--model "gpt-4o" is not among the models it lists: "qwen3-0.6b", "llama-3"`) || !strings.Contains(errs, "--no-preflight") {
		t.Errorf("exit %d, %s; want exit 2 naming the models offered", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		if b, _ := os.ReadFile(out); len(b) > 0 {
			t.Errorf("the load was sent: %.300s", b)
		}
	}
	code, _, errs = runCLI(t, append(args, "--no-preflight")...)
	if b, _ := os.ReadFile(out); code != 0 || !strings.Contains(string(b), `"outcome":"http_error"`) {
		t.Errorf("--no-preflight: exit %d, %s; the load was not sent:\n%.300s", code, errs, b)
	}
	code, _, errs = runCLI(t, append(args[:4:4], append([]string{"--model", "llama-3"}, args[6:]...)...)...)
	if strings.Contains(errs, "pre-flight") {
		t.Errorf("a listed model was refused: exit %d, %s", code, errs)
	}
}
