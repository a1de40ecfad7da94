package capacity

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Garwood's exact interval against published values (e.g. Ulm 1990 tables):
// 0 → [0, 3.689], 10 → [4.795, 18.390], 100 → [81.364, 121.627].
func TestPoissonInterval(t *testing.T) {
	for _, c := range []struct {
		k      int64
		lo, hi float64
	}{{0, 0, 3.6889}, {1, 0.0253, 5.5716}, {10, 4.7954, 18.3904}, {100, 81.3639, 121.6269}} {
		lo, hi := PoissonInterval(c.k, 0.95)
		if math.Abs(lo-c.lo) > 1e-3 || math.Abs(hi-c.hi) > 1e-3 {
			t.Errorf("k=%d: [%.4f, %.4f], want [%.4f, %.4f]", c.k, lo, hi, c.lo, c.hi)
		}
	}
	// Large counts neither underflow nor lose the normal approximation.
	lo, hi := PoissonInterval(40000, 0.95)
	if math.Abs(lo-(40000-1.96*200)) > 5 || math.Abs(hi-(40000+1.96*200)) > 5 {
		t.Errorf("k=40000: [%g, %g]", lo, hi)
	}
}

// The rule on counts: a server completing at its saturation μ while λ
// arrives is overloaded once λT is large enough for the interval to
// exclude λ, and never when it keeps up.
func TestOverloadTestRule(t *testing.T) {
	for _, c := range []struct {
		name              string
		offered, window   float64
		arr, done, n0, n1 int64
		want              bool
	}{
		{"keeps up", 100, 10, 1000, 998, 5, 7, false},
		{"10 % over, 3,000 attempts", 110, 30, 3300, 3000, 40, 340, true},
		{"10 % over, 110 attempts: cannot tell", 110, 1, 110, 100, 4, 14, false},
		{"few arrivals, server kept up", 100, 10, 930, 928, 5, 7, false},
		{"completions short but in flight flat", 100, 10, 930, 930, 6, 6, false},
	} {
		lc, err := OverloadTest(c.offered, c.window, c.arr, c.done, c.n0, c.n1)
		if err != nil {
			t.Fatal(err)
		}
		if lc.Overloaded != c.want {
			t.Errorf("%s: overloaded %v, want %v (%+v)", c.name, lc.Overloaded, c.want, lc)
		}
		if !(lc.SlopeLow <= lc.SlopePerS && lc.SlopePerS <= lc.SlopeHigh) {
			t.Errorf("%s: slope %g outside its interval [%g, %g]", c.name, lc.SlopePerS, lc.SlopeLow, lc.SlopeHigh)
		}
	}
	for _, bad := range [][2]float64{{0, 1}, {1, 0}, {math.NaN(), 1}, {1, math.Inf(1)}} {
		if _, err := OverloadTest(bad[0], bad[1], 1, 1, 0, 0); err == nil {
			t.Errorf("offered %g, window %g: no error", bad[0], bad[1])
		}
	}
}

// Under a server that keeps up, arrivals are Poisson and completions equal
// them up to the in-flight change: the rule's false alarms stay well under
// its 2.5 % one-sided level (seeded, so the count is exact).
func TestOverloadFalseAlarmsRare(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const runs = 1000
	alarms := 0
	for range runs {
		lambdaT := 200.0
		a := poissonDraw(rng, lambdaT)
		n0, n1 := poissonDraw(rng, 6), poissonDraw(rng, 6) // stationary in-flight
		d := max(a+n0-n1, 0)
		lc, err := OverloadTest(lambdaT/4, 4, a, d, n0, n1)
		if err != nil {
			t.Fatal(err)
		}
		if lc.Overloaded {
			alarms++
		}
	}
	t.Logf("%d false overloads in %d stable windows", alarms, runs)
	if alarms > runs/100 { // 1 %
		t.Errorf("%d false overloads in %d stable windows", alarms, runs)
	}
}

func poissonDraw(rng *rand.Rand, m float64) int64 {
	var k int64
	for t := rng.ExpFloat64(); t < m; t += rng.ExpFloat64() {
		k++
	}
	return k
}
