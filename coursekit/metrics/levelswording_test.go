package metrics_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// A percentile that is a number out of range says it is outside (0, 100),
// not that it is not a number (issue 35: --percentiles 50,101); one that
// is not a number says that.
func TestParseLevelsWording(t *testing.T) {
	for _, c := range []struct{ in, want, never string }{
		{"50,101", `percentile 2: 101 is outside (0, 100)`, "not a number"},
		{"0", `percentile 1: 0 is outside (0, 100)`, "not a number"},
		{"90,-5", `percentile 2: -5 is outside (0, 100)`, "not a number"},
		{"50,abc", `percentile 2 "abc" is not a number`, "outside"},
		{"NaN", `percentile 1 "NaN" is not a number`, "outside"},
	} {
		_, err := metrics.ParseLevels(c.in)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), c.never) {
			t.Errorf("%s: %v\nwant %q...", c.in, err, c.want)
		}
	}
}
