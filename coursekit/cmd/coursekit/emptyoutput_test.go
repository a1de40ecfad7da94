package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server that answers every request correctly but with no text (as
// llama.cpp does when SmolLM2 samples its end token first): bench records
// empty_output, says so with the usual cause on --api completions, and the
// card names them "空输出", failures in the denominator, not "流中途断开".
func TestBenchEmptyAnswersAreEmptyOutput(t *testing.T) {
	empty, err := os.ReadFile(filepath.Join("..", "..", "loadgen", "testdata", "llamacpp-completions-empty.sse"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model"}]}`))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(empty)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "empty.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", srv.URL, "--concurrency", "1", "--num-requests", "3", "--duration", "10s", "--progress", "0", "--out", out)
	if code != 0 || !strings.Contains(errs, "(empty_output 3)") || !strings.Contains(errs, "3 of 3 attempts were empty_output") || !strings.Contains(errs, "--api chat applies the template") {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	code, text, _ := runCLI(t, "card", out)
	if code != 0 || !strings.Contains(text, "失败：3（空输出 3）") || strings.Contains(text, "流中途断开") {
		t.Errorf("card:\n%s", text)
	}
	code, text, _ = runCLI(t, "card", out, "--lang", "en")
	if code != 0 || !strings.Contains(text, "empty output 3") {
		t.Errorf("English card:\n%s", text)
	}
}
