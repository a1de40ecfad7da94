package sim_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/sim"
)

func do(t *testing.T, method, url, host, contentType, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

const oneToken = `{"prompt":"hi","max_tokens":1,"stream":true}`

// A browser can POST text/plain (a form, or fetch with a string body) to
// any address without a CORS preflight: sim takes only application/json.
func TestSimRefusesPostsThatAreNotJSON(t *testing.T) {
	_, ts := start(t, fast)
	for _, tc := range []struct {
		ct   string
		want int
	}{
		{"text/plain", http.StatusUnsupportedMediaType},
		{"text/plain;charset=UTF-8", http.StatusUnsupportedMediaType},
		{"application/x-www-form-urlencoded", http.StatusUnsupportedMediaType},
		{"multipart/form-data; boundary=x", http.StatusUnsupportedMediaType},
		{"", http.StatusUnsupportedMediaType}, // fetch with a Blob body sends none
		{"application/json", http.StatusOK},
		{"Application/JSON; charset=utf-8", http.StatusOK},
	} {
		for _, path := range []string{"/v1/completions", "/v1/chat/completions"} {
			body := oneToken
			if strings.Contains(path, "chat") {
				body = `{"messages":[{"role":"user","content":"hi"}],"max_tokens":1,"stream":true}`
			}
			if resp := do(t, "POST", ts.URL+path, "", tc.ct, body); resp.StatusCode != tc.want {
				t.Errorf("POST %s with Content-Type %q: %s, want %d", path, tc.ct, resp.Status, tc.want)
			}
		}
	}
}

// DNS rebinding: a page on evil.example whose name later resolves to
// 127.0.0.1 reaches sim with Host: evil.example. Only loopback names, the
// bound address and hosts allowed on purpose are served.
func TestSimRefusesForeignHostHeaders(t *testing.T) {
	_, ts := start(t, fast)
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	for _, tc := range []struct {
		host string
		want int
	}{
		{"evil.example", http.StatusMisdirectedRequest},
		{"evil.example:" + port, http.StatusMisdirectedRequest},
		{"127.0.0.1.evil.example", http.StatusMisdirectedRequest},
		{"localhost.evil.example:" + port, http.StatusMisdirectedRequest},
		{"10.0.0.5:" + port, http.StatusMisdirectedRequest},
		{"127.0.0.1:" + port, http.StatusOK},
		{"127.0.0.2", http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"LOCALHOST", http.StatusOK},
		{"[::1]:" + port, http.StatusOK},
	} {
		for _, path := range []string{"/debug/truth", "/metrics", "/v1/models"} {
			if resp := do(t, "GET", ts.URL+path, tc.host, "", ""); resp.StatusCode != tc.want {
				t.Errorf("GET %s with Host %q: %s, want %d", path, tc.host, resp.Status, tc.want)
			}
		}
		if resp := do(t, "POST", ts.URL+"/v1/completions", tc.host, "application/json", oneToken); resp.StatusCode != tc.want {
			t.Errorf("POST with Host %q: %s, want %d", tc.host, resp.Status, tc.want)
		}
	}
}

// Config.AllowedHosts serves other names on purpose (sim bound to a
// non-loopback address for a class); "*" serves any.
func TestSimAllowedHosts(t *testing.T) {
	cfg := fast
	cfg.AllowedHosts = []string{"sim.internal", "192.0.2.7"}
	_, ts := start(t, cfg)
	for host, want := range map[string]int{
		"sim.internal:8000": http.StatusOK,
		"SIM.internal":      http.StatusOK,
		"192.0.2.7":         http.StatusOK,
		"other.internal":    http.StatusMisdirectedRequest,
		"127.0.0.1":         http.StatusOK,
	} {
		if resp := do(t, "GET", ts.URL+"/v1/models", host, "", ""); resp.StatusCode != want {
			t.Errorf("Host %q: %s, want %d", host, resp.Status, want)
		}
	}
	cfg.AllowedHosts = []string{"*"}
	_, any := start(t, cfg)
	if resp := do(t, "GET", any.URL+"/v1/models", "anything.example", "", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("AllowedHosts *: %s", resp.Status)
	}
	var _ = sim.DefaultConfig
}
