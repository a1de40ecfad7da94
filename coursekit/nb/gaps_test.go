package nb

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// Fig. 01.2's attempt: events at 700, 800 and 950 ms.
func TestGaps(t *testing.T) {
	a := trace.Attempt{Events: []trace.Event{{TMS: 700}, {TMS: 800}, {TMS: 950}}}
	if g := Gaps(a); !slices.Equal(g, []float64{100, 150}) || GapCount(a) != 2 || GapSum(a) != 250 {
		t.Errorf("gaps %v, count %d, sum %v", g, GapCount(a), GapSum(a))
	}
	if one := (trace.Attempt{Events: []trace.Event{{TMS: 1}}}); GapCount(one) != 0 || GapSum(one) != 0 {
		t.Error("one event has no gap")
	}
}

func TestNumTo(t *testing.T) {
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{{1234.6, 0, "1235"}, {2.857, 2, "2.86"}, {0.5, 0, "1"}, {7, 1, "7"}} {
		if got := NumTo(c.v, c.d); got != c.want {
			t.Errorf("NumTo(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
}

// EventGapLines prints a trace's event gaps under their own name: with
// multi-token events they are no ITL, and the line says so without the
// learner cell reading a field named ITL.
func TestEventGapLinesNameTheGapsNotITL(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Window: trace.Window{StartMS: 0, EndMS: 10000}}, Attempts: []trace.Attempt{{
		ID: "R1", Outcome: trace.OK, StartMS: 0, HasEnd: true, EndMS: 500, OutputTokens: 5,
		Events: []trace.Event{{TMS: 100, Tokens: 1}, {TMS: 200, Tokens: 3}, {TMS: 400, Tokens: 1}},
	}}}
	got := EventGapLines(tr)
	for _, want := range []string{"事件 3 个，token 5 个；多 token 事件 1 个，单个事件最多 3 个 token", "事件间隔（不是 ITL）：P50 = 100 ms", "P95 = 200 ms", "n = 2 个间隔"} {
		if !strings.Contains(got, want) {
			t.Errorf("EventGapLines = %q; want %q in it", got, want)
		}
	}
}
