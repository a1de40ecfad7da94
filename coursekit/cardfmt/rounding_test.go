package cardfmt

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// A share prints at one decimal of a percent (the card's confidence
// intervals already do): 4/33 is 12.1%, not 12.121%. The exact fraction
// stays beside it.
func TestShareRoundsToOneDecimal(t *testing.T) {
	v := 4.0 / 33
	got := RatioText(metrics.Ratio{Num: 4, Den: 33, Value: &v, Unit: "failed attempts / attempts"})
	if !strings.Contains(got, "4 / 33 = 12.1%") {
		t.Errorf("RatioText(4/33) = %q, want 4 / 33 = 12.1%%", got)
	}
	half := 7.0 / 8
	if got := RatioText(metrics.Ratio{Num: 7, Den: 8, Value: &half, Unit: "quality passes / rated complete successes"}); !strings.Contains(got, "= 87.5%") {
		t.Errorf("RatioText(7/8) = %q", got)
	}
}

// Measure rounds per magnitude: whole milliseconds from 1000 ms up, one
// decimal below; percentages at one decimal; other values at three
// significant digits at most.
func TestMeasure(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{2052.849, "ms", "2053 ms"},
		{148.04, "ms", "148 ms"},
		{23.345, "ms", "23.3 ms"},
		{0.55, "ms", "0.6 ms"},
		{12.121, "%", "12.1%"},
		{100, "%", "100%"},
		{61.2345, "token/s", "61.2 token/s"},
		{0.52551, "次/s", "0.526 次/s"},
		{1234.5678, "", "1235"},
	} {
		if got := Measure(c.v, c.unit); got != c.want {
			t.Errorf("Measure(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}
