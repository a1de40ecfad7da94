package numfmt

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// Each way of writing a number, pinned: the views printed these before
// they shared this package, and must print them still.
func TestWays(t *testing.T) {
	tenth := 0.1
	for _, c := range []struct{ got, want string }{
		{Exact(0.5), "0.5"}, {Exact(1720), "1720"}, {Exact(tenth + 0.2), "0.30000000000000004"},
		{Num(61.66666), "61.667"}, {Num(4), "4"}, {Num(87.5), "87.5"}, {Num(0.0004), "0"}, {Num(math.Inf(1)), "∞"}, {Num(math.Inf(-1)), "-∞"}, {Num(math.NaN()), "?"},
		{MS(12.46), "12.5"}, {MS(700), "700"}, {MS(math.NaN()), "?"},
		{OneDecimal(61.25), "61.3"}, {Trim(2.500, 3), "2.5"}, {Trim(3, 0), "3"},
		{Fixed(100, 1), "100.0"}, {Signed(0.5, 2), "+0.50"}, {Signed(-3.254, 2), "−3.25"}, {Signed(math.Copysign(0, -1), 2), "+0.00"}, {Signed(-0.004, 2), "+0.00"}, {Signed(-0.16, 2), "−0.16"},
		{Pct(0.875), "87.5%"}, {Pct(1), "100%"}, {PctFixed(1), "100.0%"}, {PctFixed(0.9123), "91.2%"},
		{Cell(0.1), "0.1"}, {Cell(1234567.891234567), "1.23457e+06"},
		{MiB(512 << 20), "512.0 MiB"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	// The float verbs the views used before, for the values they printed.
	for _, v := range []float64{0, 0.5, -0.05, 3.14159, -2.675, 99.95, 1e-9} {
		if Signed(v, 2) != strings.Replace(fmt.Sprintf("%+.2f", v), "-", "−", 1) || Fixed(v, 1) != fmt.Sprintf("%.1f", v) || PctFixed(v) != fmt.Sprintf("%.1f%%", v*100) {
			t.Errorf("%g: %s %s %s", v, Signed(v, 2), Fixed(v, 1), PctFixed(v))
		}
	}
	for _, c := range []struct {
		v    float64
		unit Unit
		want string
	}{{1234.5, UnitMS, "1235 ms"}, {12.34, UnitMS, "12.3 ms"}, {87.54, UnitPercent, "87.5%"}, {61.234, "token/s", "61.2 token/s"}, {0.52631, "次/s", "0.526 次/s"}, {0, UnitNone, "0"}} {
		if got, ok := Measure(c.v, c.unit); !ok || got != c.want {
			t.Errorf("Measure(%g, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
	if _, ok := Measure(math.NaN(), UnitMS); ok {
		t.Error("NaN measured")
	}
}
