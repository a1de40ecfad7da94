package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// A web server measured with --no-preflight answers every POST with an
// HTML page: the walk saw bench print the raw page, "<!DOCTYPE HTML>\n<html
// lang=…", with its line breaks escaped. The error says it was an HTML page
// and gives its title, no markup.
func TestBenchHTMLErrorPageExcerpt(t *testing.T) {
	for _, c := range []struct {
		page, want string
	}{
		{"<!DOCTYPE HTML>\n<html lang=\"en\">\n    <head>\n        <meta charset=\"utf-8\">\n        <title>Error response</title>\n    </head>\n    <body>\n        <h1>Error response</h1>\n        <p>Error code: 501</p>\n" + strings.Repeat("<p>filler</p>\n", 40) + "</body>\n</html>\n",
			`an HTML page titled "Error response"`},
		{"<html><body>\n\n<h1>Bad  gateway &amp; more</h1><p>" + strings.Repeat("x", 300) + "</p></body></html>",
			`an HTML page that begins "Bad gateway & more"`},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotImplemented)
			fmt.Fprint(w, c.page)
		}))
		out := filepath.Join(t.TempDir(), "html.jsonl")
		code, _, errs := runCLI(t, "bench", "--url", srv.URL, "--no-preflight", "--model", "m", "--concurrency", "1",
			"--num-requests", "2", "--duration", "5s", "--progress", "0", "--out", out)
		srv.Close()
		if code != 0 {
			t.Fatalf("bench exit %d: %s", code, errs)
		}
		var first string
		for _, l := range strings.Split(errs, "\n") {
			if _, after, ok := strings.Cut(l, "the first: "); ok {
				first, _, _ = strings.Cut(after, ". The trace keeps")
			}
		}
		if !strings.Contains(first, c.want) || !strings.Contains(first, "501") {
			t.Errorf("the first error %q does not say %q", first, c.want)
		}
		if strings.ContainsAny(first, "<>") || strings.Contains(first, `\n`) || len(first) > 250 {
			t.Errorf("the first error shows the page raw or long (%d bytes): %q", len(first), first)
		}
	}
}
