package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// deadURL is a loopback address nothing listens on.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// Credentials in --url: the user as well as the password, every
// secret-looking parameter (pw, sas, access …) and the fragment are kept
// out of what bench writes (meta.url, metrics_url) and what capacity
// prints; capacity's /metrics is built with net/url, after the path.
func TestURLCredentialsRedacted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	out := filepath.Join(t.TempDir(), "t.jsonl")
	u := "http://USERSECRET:PASS@" + host + "/?pw=PWSECRET&sas=SASSECRET&access=ACCSECRET&model=keep#FRAGSECRET"
	code, o, e := runCLI(t, benchSecretArgs(u, u, out)...)
	all := written(t, out, o, e)
	if code != 0 || !strings.Contains(all, "model=keep") {
		t.Fatalf("exit %d, want 0 with the URL's other parameters kept:\n%s", code, all)
	}
	for _, s := range []string{"USERSECRET", "PASS", "PWSECRET", "SASSECRET", "ACCSECRET", "FRAGSECRET"} {
		if strings.Contains(all, s) {
			t.Errorf("%s written by bench:\n%s", s, all)
		}
	}
	// capacity against a dead port: the error names the URL, redacted.
	code, o, e = runCLI(t, "capacity", "--url", "http://CUSER:CPASS@"+deadURL(t)+"/?api_key=CKEY", "--out", t.TempDir(), "--slo-e2e", "1s")
	if code == 0 || !strings.Contains(o+e, "127.0.0.1") {
		t.Fatalf("capacity against a dead port: exit %d\n%s%s", code, o, e)
	}
	for _, s := range []string{"CUSER", "CPASS", "CKEY"} {
		if strings.Contains(o+e, s) {
			t.Errorf("capacity printed %s:\n%s%s", s, o, e)
		}
	}
}
