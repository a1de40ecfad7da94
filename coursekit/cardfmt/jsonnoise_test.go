package cardfmt_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The walk's card JSON said ttft p50 3379.396999999997 and window_s
// 108.27899599999999 where the text card and CSV say 3379.397 and the
// header 108278.996 ms: float noise of subtracting trace times. The JSON
// card writes every float without it (to the nanosecond, finer than any
// trace clock), the same bytes the report embeds.
func TestCardJSONWithoutFloatNoise(t *testing.T) {
	a := ok("A", 1000.1, trace.Unrated)
	a.Events = []trace.Event{{TMS: 4379.497, Tokens: 1}}
	a.EndMS = 5000
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 108278.996}},
		Attempts: []trace.Attempt{a}}
	j := cardIn(t, tr, cardfmt.JSON, lang.ZH)
	for _, want := range []string{`"p50": 3379.397,`, `"window_s": 108.278996,`} {
		if !strings.Contains(j, want) {
			t.Errorf("card JSON lacks %s:\n%.1500s", want, j)
		}
	}
	if strings.Contains(j, "3379.39700000") || strings.Contains(j, "99999") {
		t.Errorf("card JSON keeps float noise:\n%s", j)
	}
}
