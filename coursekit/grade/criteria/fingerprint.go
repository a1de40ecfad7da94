package criteria

import (
	"math"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// Fingerprint is what tells variants apart on a card: window length,
// success P95, cost at 1 s, qualified counts at 1 s and 0.5 s.
type Fingerprint [5]float64

// TraceFingerprint is the fingerprint of a trace, from its summary.
func TraceFingerprint(s *metrics.Summary) Fingerprint {
	fp := Fingerprint{s.WindowS, math.NaN(), float64(s.Conditions[0].Qualified), float64(s.Conditions[1].Qualified), math.NaN()}
	if s.TTFT.P95 != nil {
		fp[1] = *s.TTFT.P95
	}
	if s.Conditions[0].CostPer1000 != nil {
		fp[4] = *s.Conditions[0].CostPer1000
	}
	return fp
}

// CardFingerprint is the fingerprint of the figures a card states (NaN
// where it states none).
func CardFingerprint(c *card.Card) Fingerprint {
	fp := Fingerprint{c.Window.Seconds, math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	if c.P95.Value != 0 || c.P95.Unit != "" {
		fp[1], _ = ToMS(c.P95)
	}
	conds := CondsBySLO(c)
	if a := conds[0]; a != nil {
		fp[2] = float64(a.Qualified)
		fp[4] = a.CostPer1000.Value
	}
	if b := conds[1]; b != nil {
		fp[3] = float64(b.Qualified)
	}
	return fp
}

// Matches counts the fingerprint components that agree within the card's
// tolerances; distinctive is true when the two rare ones (P95 and cost,
// dozens of values each) both agree. Window and counts take a handful of
// values, so agreeing on them alone proves nothing.
func (a Fingerprint) Matches(b Fingerprint) (n int, distinctive bool) {
	for i := range a {
		if agree(i, a[i], b[i]) {
			n++
		}
	}
	return n, agree(1, a[1], b[1]) && agree(4, a[4], b[4])
}

// agree compares fingerprint component i: window in s, P95 in ms within
// 5 ms, counts exactly, cost within 1 %.
func agree(i int, x, want float64) bool {
	if !finiteF(x) || !finiteF(want) {
		return false
	}
	tol := 0.0
	switch i {
	case 0:
		tol = 1e-6
	case 1:
		tol = 5
	case 4:
		tol = math.Max(0.01, 0.01*math.Abs(want))
	}
	return math.Abs(x-want) <= tol
}

// Stated reports whether a card's fingerprint holds enough figures to say
// which trace they come from: both rare ones (P95 and cost) and at least
// one more. A blank card states none, and "no copy detected" on it would
// mean nothing.
func (a Fingerprint) Stated() bool {
	n := 0
	for _, v := range a {
		if finiteF(v) && v != 0 {
			n++
		}
	}
	return n >= 3 && finiteF(a[1]) && a[1] != 0 && finiteF(a[4]) && a[4] != 0
}
