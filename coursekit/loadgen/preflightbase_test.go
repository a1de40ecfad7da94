package loadgen_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// A --url that is a full endpoint (.../v1/chat/completions) made the
// pre-flight ask .../v1/chat/completions/v1/models and say only "does not
// answer … (GET /v1/models: 404)". The error now says to give the base
// URL, naming it; a base URL that gets a 404 gets no such hint.
func TestPreflightEndpointURLSaysGiveTheBase(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" || r.URL.Path == "/proxy/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"object":"list","data":[{"id":"m"}]}`))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, c := range []struct{ url, base string }{
		{srv.URL + "/v1/chat/completions", srv.URL},
		{srv.URL + "/v1/completions", srv.URL},
		{srv.URL + "/chat/completions", srv.URL},
		{srv.URL + "/completions/", srv.URL},
		{srv.URL + "/proxy/v1/chat/completions?api_key=s3cret", srv.URL + "/proxy"},
		{"http://u:pw@" + host + "/v1/chat/completions", "http://xxxxx@" + host},
	} {
		err := loadgen.Preflight(context.Background(), nil, c.url, nil)
		want := "not an endpoint"
		if err == nil || !strings.Contains(err.Error(), "/v1/models") || !strings.Contains(err.Error(), ": 404 Not Found") || !strings.Contains(err.Error(), want) ||
			!strings.HasSuffix(err.Error(), ": give "+c.base) {
			t.Errorf("%s: %v; want the base URL %s", c.url, err, c.base)
		}
		if err != nil && (strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "pw@")) {
			t.Errorf("%s: the error shows a secret: %v", c.url, err)
		}
	}
	for _, u := range []string{srv.URL + "/v2", srv.URL + "/completions-old"} {
		if err := loadgen.Preflight(context.Background(), nil, u, nil); err == nil || strings.Contains(err.Error(), "not an endpoint") {
			t.Errorf("%s: %v; want a 404 without the endpoint hint", u, err)
		}
	}
	// The error names the whole URL the pre-flight asked, redacted as every
	// URL the product prints, so that a wrong path shows (walk 35l: "--url
	// …/v2" said only "GET /v1/models: 404 Not Found").
	for _, c := range []struct{ url, asked string }{
		{srv.URL + "/v2", "GET " + srv.URL + "/v2/v1/models: 404 Not Found"},
		{srv.URL + "/v2/v1", "GET " + srv.URL + "/v2/v1/models: 404 Not Found"},
		{"http://u:pw@" + host + "/v2?api_key=s3cret", "GET http://xxxxx@" + host + "/v2/v1/models?api_key=xxxxx: 404 Not Found"},
	} {
		err := loadgen.Preflight(context.Background(), nil, c.url, nil)
		if err == nil || !strings.Contains(err.Error(), c.asked) {
			t.Errorf("%s: %v; want it to name %q", c.url, err, c.asked)
		}
		if err != nil && (strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "pw@")) {
			t.Errorf("%s: the error shows a secret: %v", c.url, err)
		}
	}
	if err := loadgen.Preflight(context.Background(), nil, srv.URL+"/v1", nil); err != nil {
		t.Errorf("the base URL with /v1: %v", err)
	}
}
