package loadgen_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// Before the first answer there is no TTFT: the progress line says so
// instead of showing 0 ms, and shows the percentiles once there is one.
func TestProgressNoTTFTBeforeTheFirstAnswer(t *testing.T) {
	none := loadgen.Progress{Phase: "window", Sent: 3, InFlight: 3}.String()
	if strings.Contains(none, "0.0 ms") || !strings.Contains(none, "TTFT — (no answer yet)") {
		t.Errorf("no answer yet: %q", none)
	}
	one := loadgen.Progress{Phase: "window", Sent: 3, Done: 1, TTFTN: 1, TTFTP50: 12.5, TTFTP95: 12.5}.String()
	if !strings.Contains(one, "TTFT p50 12.5 ms p95 12.5 ms") || strings.Contains(one, "no answer") {
		t.Errorf("one answer: %q", one)
	}
}
