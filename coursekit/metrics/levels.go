package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/trace"
)

// LevelValue is one chosen percentile of a distribution with its 95 %
// order-statistic interval.
type LevelValue struct {
	P     float64  `json:"p"` // a fraction: 0.999 is P99.9
	Value *float64 `json:"value"`
	CI95  Interval `json:"ci95"`
}

// ParseLevels reads "50,90,99,99.9" (percent, each in (0, 100)) into
// fractions, in the order given.
func ParseLevels(s string) ([]float64, error) {
	var out []float64
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(v) {
			return nil, fmt.Errorf("percentile %d %q is not a number (write 50,90,99,99.9)", i+1, f)
		}
		if !(v > 0 && v < 100) {
			// a number, out of range: say so, not "not a number" (issue 35)
			return nil, fmt.Errorf("percentile %d: %s is outside (0, 100) (write 50,90,99,99.9)", i+1, f)
		}
		out = append(out, math.Round(v/100*1e12)/1e12) // 99.9/100 is 0.9990000000000001
	}
	return out, nil
}

// levels reads the chosen levels ps of s under method m, each with its
// interval; nil for no levels.
func (s *samples) levels(m Method, ps []float64) []LevelValue {
	if len(ps) == 0 {
		return nil
	}
	out := make([]LevelValue, len(ps))
	n := s.n
	var ks []int
	type pos struct{ a, b, l, u int }
	at := make([]pos, len(ps))
	for i, p := range ps {
		out[i].P = p
		if n == 0 {
			continue
		}
		a := NearestRankIndex(n, p)
		b := a
		if m == Linear {
			a = min(int(float64(n-1)*p), n-1)
			b = min(a+1, n-1)
		}
		l, u := QuantileRanks(n, p, Confidence)
		at[i] = pos{a, b, l, u}
		ks = append(ks, a, b)
		if l > 0 {
			ks = append(ks, l-1)
		}
		if u > 0 {
			ks = append(ks, u-1)
		}
	}
	if n == 0 {
		return out
	}
	v := s.orderStats(ks)
	for i, p := range ps {
		x := v[at[i].a]
		if m == Linear {
			h := float64(n-1) * p
			x = lerp(v[at[i].a], v[at[i].b], h-math.Floor(h))
		}
		out[i].Value = &x
		var lo, hi *float64
		if at[i].l > 0 {
			w := v[at[i].l-1]
			lo = &w
		}
		if at[i].u > 0 {
			w := v[at[i].u-1]
			hi = &w
		}
		out[i].CI95 = quantileInterval(p, at[i].l, at[i].u, lo, hi)
	}
	return out
}

// HeaderLevels reads conditions.percentiles (fractions, as bench writes
// them); nil when absent.
func HeaderLevels(h *trace.Header) ([]float64, error) {
	c, err := h.ReadConditions()
	if err != nil {
		return nil, err
	}
	ps := c.Percentiles
	for _, p := range ps {
		if !(p > 0 && p < 1) {
			return nil, &trace.Error{Field: "conditions.percentiles", Msg: fmt.Sprintf("%g is not a fraction in (0, 1)", p)}
		}
	}
	return ps, nil
}
