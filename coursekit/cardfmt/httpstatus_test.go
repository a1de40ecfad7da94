package cardfmt_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// TestHTTPErrorsByStatus: `sim --fail-429 0.2 --fail-503 0.1` then bench
// gave a card that said only "HTTP error 24". The summary splits http_error
// by the status each attempt recorded (http_status_counts), and the card's
// text, Markdown and JSON show it; an http_error without a recorded status
// (an import) is counted as unrecorded, never given a status.
func TestHTTPErrorsByStatus(t *testing.T) {
	fail := func(id string, start float64, status int) trace.Attempt {
		return trace.Attempt{ID: id, StartMS: start, Outcome: trace.HTTPError, HTTPStatus: status, HasEnd: true, EndMS: start + 5}
	}
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}},
		Attempts: []trace.Attempt{ok("A", 0, trace.Pass), fail("B", 10, 429), fail("C", 20, 429), fail("D", 30, 503), fail("E", 40, 0)}}
	for _, tc := range []struct {
		l    lang.Lang
		want string
	}{
		{lang.ZH, "HTTP 错误 4（429 ×2、503 ×1、未记录状态 1）"},
		{lang.EN, "HTTP error 4 (429 ×2, 503 ×1, status not recorded 1)"},
	} {
		for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
			if c := cardIn(t, tr, f, tc.l); !strings.Contains(c, tc.want) {
				t.Errorf("%s %s card lacks %q:\n%s", tc.l, f, tc.want, c)
			}
		}
	}
	j := cardIn(t, tr, cardfmt.JSON, lang.ZH)
	if !strings.Contains(j, `"http_status_counts": {
    "429": 2,
    "503": 1
  }`) {
		t.Errorf("card JSON lacks http_status_counts {429: 2, 503: 1}:\n%s", j)
	}
	// Without a recorded status nothing is split and no status is made up.
	tr.Attempts = []trace.Attempt{ok("A", 0, trace.Pass), fail("E", 40, 0)}
	if c := cardIn(t, tr, cardfmt.Text, lang.ZH); !strings.Contains(c, "HTTP 错误 1（未记录状态 1）") {
		t.Errorf("card of an import's http_error:\n%s", c)
	}
	if j := cardIn(t, tr, cardfmt.JSON, lang.ZH); strings.Contains(j, "http_status_counts") {
		t.Errorf("JSON invents a status:\n%s", j)
	}
}
