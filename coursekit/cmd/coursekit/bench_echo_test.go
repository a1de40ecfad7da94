package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// The bearer token of --api-key-env, echoed by the server in a 401 body,
// in a Location and in a metric's label, is written nowhere by bench, and
// printed nowhere: bench knows it and writes xxxxx in its place.
func TestBenchEchoedTokenRedacted(t *testing.T) {
	const token = "sk-ECHOSECRET-7f3a"
	t.Setenv("COURSEKIT_TEST_ECHO_KEY", token)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/metrics":
			w.Header().Set("Location", "/login/"+strings.TrimPrefix(auth, "Bearer "))
			w.WriteHeader(http.StatusFound)
		default:
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte("bad key " + auth))
		}
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "t.jsonl")
	args := append(benchSecretArgs(srv.URL, srv.URL+"/metrics", out), "--api-key-env", "COURSEKIT_TEST_ECHO_KEY")
	code, o, e := runCLI(t, args...)
	all := written(t, out, o, e)
	if code != 0 || !strings.Contains(all, "bad key Bearer xxxxx") || !strings.Contains(all, "/login/xxxxx") {
		t.Fatalf("exit %d, want 0 with the echoes recorded, the token as xxxxx:\n%s", code, all)
	}
	if strings.Contains(all, "ECHOSECRET") {
		t.Errorf("the token written by bench:\n%s", all)
	}
}
