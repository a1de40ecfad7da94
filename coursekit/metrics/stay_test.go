package metrics

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// W is the mean of end − start over every attempt in the window that has
// ended, failures included; in-flight attempts and those outside the
// window are left out.
func TestMeanStayIsTheMeanTimeInSystem(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Window: trace.Window{StartMS: 0, EndMS: 1000}}, Attempts: []trace.Attempt{
		{ID: "a", StartMS: 0, Outcome: trace.OK, HasEnd: true, EndMS: 100, Events: []trace.Event{{TMS: 50, Tokens: 1}}},
		{ID: "b", StartMS: 100, Outcome: trace.Timeout, HasEnd: true, EndMS: 600},
		{ID: "c", StartMS: 200, Outcome: trace.InFlight},
		{ID: "d", StartMS: 2000, Outcome: trace.OK, HasEnd: true, EndMS: 9000, Events: []trace.Event{{TMS: 2100, Tokens: 1}}},
	}}
	if ms, n := MeanStay(tr); ms != 300 || n != 2 {
		t.Fatalf("MeanStay = %v over %d, want 300 over 2 (a's 100 and b's 500)", ms, n)
	}
	if ms, n := MeanStay(&trace.Trace{Header: tr.Header}); ms != 0 || n != 0 {
		t.Fatalf("empty: %v, %d", ms, n)
	}
}
