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
	all := echoRun(t, token)
	if strings.Contains(all, "ECHOSECRET") {
		t.Errorf("the token written by bench:\n%s", all)
	}
}

// A token of 1–7 bytes is hidden too, where the server echoes it as a
// whole value (the 401 body's "Bearer k", the Location's path segment),
// without touching the other k's bench writes (its own words, the JSON
// keys of the trace and the sidecar).
func TestBenchEchoedShortTokenRedacted(t *testing.T) {
	for _, token := range []string{"k", "e", "s3cr!t"} {
		all := echoRun(t, token)
		if strings.Contains(all, "Bearer "+token) || strings.Contains(all, "/login/"+token+`"`) {
			t.Errorf("token %q written by bench:\n%s", token, all)
		}
		for _, kept := range []string{"coursekit bench: ", `"tokens"`, `"attempt"`, "keep-alive"} {
			if strings.Contains(all, strings.ReplaceAll(kept, token, "xxxxx")) && !strings.Contains(all, kept) {
				t.Errorf("token %q: ordinary text %q mangled:\n%s", token, kept, all)
			}
		}
	}
}

// echoRun runs bench with the bearer token against a server that echoes
// it in a 401 body and in a Location, and returns every byte bench wrote.
func echoRun(t *testing.T, token string) string {
	t.Helper()
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
	return all
}
