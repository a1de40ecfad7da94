package nb

import (
	"slices"
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
