package tracefig

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// A sweep point's text, typed back as --slo-ttft, qualifies the point's
// count: 1481.941 ms (a success's TTFT) is not shown as 1481.9 ms, which
// would drop that success (issue 35).
func TestPointTextsKeepCount(t *testing.T) {
	for _, c := range []struct {
		ms   []float64
		want []string
	}{
		{[]float64{1450, 1481.941, 1500, 2000}, []string{"1450 ms", "1481.941 ms", "1500 ms", "2 s"}},
		{[]float64{1450, 1481.9413, 1500}, []string{"1450 ms", "1481.9413 ms", "1500 ms"}},
		// A success's TTFT with the float noise of its two stamps is rounded
		// up at 3 decimals, not printed with every digit (walk 35).
		{[]float64{1000, 1004.4800000000005, 1161.3580000000002, 1239.1520000000019}, []string{"1 s", "1004.481 ms", "1161.359 ms", "1239.153 ms"}},
		{[]float64{1004.48, 1004.4800000000005}, []string{"1004.48 ms", "1004.481 ms"}},
	} {
		var pts []metrics.Condition
		for _, v := range c.ms {
			pts = append(pts, metrics.Condition{SLOTTFTMS: v})
		}
		got := pointTexts(pts)
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("point %v: %q, want %q", pts[i].SLOTTFTMS, got[i], c.want[i])
			}
		}
		for i, text := range got {
			if strings.HasSuffix(text, " s") {
				continue
			}
			x, err := strconv.ParseFloat(strings.TrimSuffix(text, " ms"), 64)
			if err != nil {
				t.Fatalf("%q: %v", text, err)
			}
			if x < pts[i].SLOTTFTMS || i+1 < len(pts) && x >= pts[i+1].SLOTTFTMS {
				t.Errorf("%q qualifies another count than %v", text, pts[i].SLOTTFTMS)
			}
		}
	}
}

// The funnel's y axis ends near its attempts: 60 for 43, not 80 (issue
// 35), with room above the bars for the drop labels.
func TestFunnelAxisMax(t *testing.T) {
	for _, c := range []struct {
		attempts int64
		want     float64
	}{{43, 60}, {10, 14}, {1, 2}, {1000, 1400}} {
		if got := funnelAxisMax(c.attempts); got != c.want || got < float64(c.attempts)*1.2 {
			t.Errorf("%d attempts: axis max %v, want %v", c.attempts, got, c.want)
		}
	}
}
