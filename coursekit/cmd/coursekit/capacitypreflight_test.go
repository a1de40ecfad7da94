package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// capacity checks the server first, as bench does: against a web server
// that answers HTML it says the URL does not answer as an OpenAI-compatible
// server, exits 2 before any step, and leaves no --out folder; bench exits
// 2 the same way.
func TestCapacityPreflight(t *testing.T) {
	html := webPage(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "steps")
	code, _, errs := runCLI(t, "capacity", "--url", html.URL, "--slo-e2e", "5s", "--out", out)
	if code != 2 || !strings.Contains(errs, "does not answer as an OpenAI-compatible server") {
		t.Errorf("capacity against HTML: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out %s was made (%v): a search that never started leaves nothing", out, err)
	}
	code, _, errs = runCLI(t, "bench", "--url", html.URL, "--rate", "1", "--duration", "1s", "--out", filepath.Join(dir, "b.jsonl"))
	if code != 2 || !strings.Contains(errs, "does not answer as an OpenAI-compatible server") {
		t.Errorf("bench against HTML: exit %d, %s", code, errs)
	}
}

// capacity refuses an unlisted --model before any step, as bench does,
// naming the models the server offers: every step would otherwise record
// 100 % http_error and the search would call the server incapable.
func TestCapacityPreflightRefusesAnUnlistedModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"object":"list","data":[{"id":"qwen3-0.6b"}]}`))
			return
		}
		http.Error(w, "no such model", http.StatusNotFound)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "steps")
	code, _, errs := runCLI(t, "capacity", "--url", srv.URL, "--model", "gpt-4o", "--slo-e2e", "5s", "--out", out)
	if code != 2 || !strings.Contains(errs, `--model "gpt-4o" is not among the models it lists: "qwen3-0.6b"`) {
		t.Errorf("capacity with an unlisted model: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out %s was made (%v): a search that never started leaves nothing", out, err)
	}
}

// webPage is a web server that answers every request with an HTML page, as
// a wrong --url might: what the pre-flight must refuse.
func webPage(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!DOCTYPE html><title>not a model server</title>"))
	}))
	t.Cleanup(s.Close)
	return s
}
