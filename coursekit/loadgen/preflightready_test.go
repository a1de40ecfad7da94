package loadgen_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// A server still loading its model answers GET /v1/models with 503 (the
// real engine does): the pre-flight says it is not ready yet, not that it
// is no OpenAI-compatible server (walk 35j). A 404 still says the latter.
func TestPreflightSaysNotReadyOn503(t *testing.T) {
	for _, c := range []struct {
		status int
		want   string
		absent string
	}{
		{http.StatusServiceUnavailable, "answers but is not ready yet (GET %s/v1/models: 503 Service Unavailable)", "does not answer as an OpenAI-compatible server"},
		{http.StatusNotFound, "does not answer as an OpenAI-compatible server (GET %s/v1/models: 404 Not Found)", "not ready"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"message":"Loading model"}}`, c.status)
		}))
		err := loadgen.Preflight(context.Background(), loadgen.NewClient(), srv.URL, nil)
		srv.Close()
		if want := fmt.Sprintf(c.want, srv.URL); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), c.absent) {
			t.Errorf("%d: %v; want %q", c.status, err, want)
		}
	}
}
