package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The sidecar bench writes beside --out is opened without following a
// link: a symlink there (to a victim file) is refused, naming it, and the
// victim keeps its bytes; so is a symlinked --out.
func TestBenchSidecarFollowsNoLink(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	out := filepath.Join(dir, "t.jsonl")
	for _, link := range []string{out + ".metrics.jsonl", out} {
		os.WriteFile(victim, []byte("precious\n"), 0o644)
		if err := os.Symlink(victim, link); err != nil {
			t.Fatal(err)
		}
		code, o, e := runCLI(t, benchSecretArgs(srv.URL, srv.URL+"/metrics", out)...)
		if code == 0 || !strings.Contains(e, link) || !strings.Contains(e, "symlink") {
			t.Errorf("%s a symlink: exit %d, want an error naming it:\n%s%s", link, code, o, e)
		}
		if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
			t.Errorf("%s a symlink: bench wrote through it into the victim: %q", link, b)
		}
		os.Remove(link)
		os.Remove(out)
	}
}
