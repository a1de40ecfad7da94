package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchSecretArgs is a short bounded bench against srv (three requests,
// each answered at once), writing to out with its sidecar scraped from
// metrics.
func benchSecretArgs(url, metrics, out string) []string {
	return []string{"bench", "--url", url, "--model", "m", "--rate", "20", "--num-requests", "3", "--duration", "2s",
		"--timeout", "2s", "--progress", "0", "--no-preflight", "--metrics-url", metrics, "--metrics-interval", "200ms", "--out", out}
}

// written is every byte bench wrote: the trace, its sidecar, stdout and stderr.
func written(t *testing.T, out, stdout, stderr string) string {
	t.Helper()
	tr, _ := os.ReadFile(out)
	side, _ := os.ReadFile(out + ".metrics.jsonl")
	return string(tr) + string(side) + stdout + stderr
}

// A server that redirects to https on the same host, quoting the request
// URI back: the Location bench names in the attempt's and the scrape's
// error keeps no secret of the query (the run's URL passes RedactURL; the
// Location did not).
func TestBenchRedirectLocationRedacted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "https://"+r.Host+r.RequestURI)
		w.WriteHeader(http.StatusPermanentRedirect)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "t.jsonl")
	code, o, e := runCLI(t, benchSecretArgs(srv.URL+"/v1?api_key=QSECRET&token=TSECRET", srv.URL+"/metrics?token=MSECRET", out)...)
	all := written(t, out, o, e)
	if code != 0 || strings.Count(all, "not followed") < 2 {
		t.Fatalf("exit %d, want 0 with the redirects named in the trace and the sidecar:\n%s", code, all)
	}
	for _, s := range []string{"QSECRET", "TSECRET", "MSECRET"} {
		if strings.Contains(all, s) {
			t.Errorf("%s written by bench:\n%s", s, all)
		}
	}
}
