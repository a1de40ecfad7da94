package metrics

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the coverage of every interval the card reports.
const Confidence = 0.95

// z95 is the two-sided 95 % standard normal quantile, Φ⁻¹(0.975).
const z95 = 1.959963984540054

// Interval methods, named beside every interval as the card names its
// percentile method.
const (
	// OrderStatistic is the distribution-free interval for a quantile: two
	// order statistics whose ranks come from Binomial(n, p), two-sided,
	// each tail at most 2.5 %. Exact for continuous data, conservative with
	// ties; it assumes nothing about the shape of the distribution.
	OrderStatistic = "order-statistic"
	// Wilson is the Wilson score interval for a share of counts.
	Wilson = "wilson"
)

// Interval is a 95 % confidence interval. A side is nil when the sample is
// too small to bound it; NeedN then says the smallest sample that would.
type Interval struct {
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence float64  `json:"confidence"`
	Method     string   `json:"method"`
	// Tails states the convention: "two-sided, each tail ≤ 0.025".
	Tails string `json:"tails"`
	// LowRank and HighRank are the 1-based order statistics used (0: none).
	LowRank  int `json:"low_rank,omitempty"`
	HighRank int `json:"high_rank,omitempty"`
	// NeedNLow and NeedNHigh are the smallest sample sizes that bound the
	// missing side (0 when the side is bounded).
	NeedNLow  int `json:"need_n_low,omitempty"`
	NeedNHigh int `json:"need_n_high,omitempty"`
	// Sampling names what the interval takes as independent draws when
	// that is not one value per attempt: SamplingIndependentGaps on the
	// event gaps. Absent on TTFT, E2E and TPOT (one value an attempt).
	Sampling string `json:"sampling,omitempty"`
}

// SamplingIndependentGaps marks the event-gap intervals: the order
// statistics of all gaps taken as independent draws. The gaps of one
// attempt are not independent (one slow batch slows them all), so the
// interval is narrower than the truth; compare resamples whole attempts
// (an attempt's gaps together), so its event-gap interval is wider, or
// unbounded with few attempts, for the same trace.
const SamplingIndependentGaps = "independent-gaps"

// markSampling sets every interval of d (its levels and the chosen ones)
// to sampling s.
func markSampling(d *Dist, s string) {
	if d.CI95 != nil {
		for _, p := range Levels {
			d.CI95.Level(p).Sampling = s
		}
	}
	for i := range d.Chosen {
		d.Chosen[i].CI95.Sampling = s
	}
}

// tails is the one convention the course uses.
const tails = "two-sided, each tail ≤ 0.025"

// DistCI holds the interval of every level a Dist reports.
type DistCI struct {
	P50 Interval `json:"p50"`
	P90 Interval `json:"p90"`
	P95 Interval `json:"p95"`
	P99 Interval `json:"p99"`
}

// Level returns the interval of level p (one of Levels), or nil.
func (c *DistCI) Level(p float64) *Interval {
	switch p {
	case 0.50:
		return &c.P50
	case 0.90:
		return &c.P90
	case 0.95:
		return &c.P95
	case 0.99:
		return &c.P99
	}
	return nil
}

// QuantileRanks are the 1-based ranks l ≤ u of the order statistics that
// bound the p-quantile of n values with each tail ≤ (1−conf)/2:
// l is the largest with P(B ≤ l−1) ≤ α/2 and u the smallest with
// P(B ≥ u) ≤ α/2, for B ~ Binomial(n, p). A rank is 0 when no order
// statistic bounds that side: (1−p)ⁿ > α/2 for the lower, pⁿ > α/2 for
// the upper.
func QuantileRanks(n int, p, conf float64) (l, u int) {
	if n <= 0 {
		return 0, 0
	}
	a := (1 - conf) / 2
	lower := distuv.Binomial{N: float64(n), P: p}
	// P(B ≥ u) = P(B' ≤ n−u) with B' ~ Binomial(n, 1−p): no 1−x cancellation.
	upper := distuv.Binomial{N: float64(n), P: 1 - p}
	below := func(k int) float64 { return lower.CDF(float64(k)) } // P(B ≤ k)
	atLeast := func(k int) float64 { return upper.CDF(float64(n - k)) }
	// Largest l in [1, n] with below(l−1) ≤ a; below is increasing in l.
	if below(0) <= a {
		lo, hi := 1, n // below(lo−1) ≤ a holds at lo
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if below(mid-1) <= a {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		l = lo
	}
	// Smallest u in [1, n] with atLeast(u) ≤ a; atLeast is decreasing in u.
	if atLeast(n) <= a {
		lo, hi := 1, n // atLeast(hi) ≤ a holds at hi
		for lo < hi {
			mid := (lo + hi) / 2
			if atLeast(mid) <= a {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		u = lo
	}
	return l, u
}

// QuantileCoverage is the exact coverage P(x₍ₗ₎ ≤ ξ ≤ x₍ᵤ₎) of the ranks
// QuantileRanks chooses, for continuous data; a missing side counts as
// −∞ or +∞.
func QuantileCoverage(n int, p, conf float64) float64 {
	l, u := QuantileRanks(n, p, conf)
	miss := 0.0
	if l > 0 {
		miss += distuv.Binomial{N: float64(n), P: p}.CDF(float64(l - 1))
	}
	if u > 0 {
		miss += distuv.Binomial{N: float64(n), P: 1 - p}.CDF(float64(n - u))
	}
	return 1 - miss
}

// NeedN is the smallest sample size at which an order statistic bounds
// the p-quantile from above (upper) or below, with that tail ≤ (1−conf)/2:
// the smallest n with pⁿ ≤ α/2, or (1−p)ⁿ ≤ α/2 for the lower side.
func NeedN(p, conf float64, upper bool) int {
	a := (1 - conf) / 2
	q := p
	if !upper {
		q = 1 - p
	}
	if q <= 0 {
		return 1
	}
	if q >= 1 {
		return 0 // never
	}
	n := max(1, int(math.Floor(math.Log(a)/math.Log(q)))-1)
	for math.Pow(q, float64(n)) > a {
		n++
	}
	return n
}

// QuantileCI is the 95 % order-statistic interval of the p-quantile of an
// ascending sample.
func QuantileCI(sorted []float64, p float64) Interval {
	l, u := QuantileRanks(len(sorted), p, Confidence)
	var lo, hi *float64
	if l > 0 {
		lo = &sorted[l-1]
	}
	if u > 0 {
		hi = &sorted[u-1]
	}
	return quantileInterval(p, l, u, lo, hi)
}

func quantileInterval(p float64, l, u int, lo, hi *float64) Interval {
	iv := Interval{Low: lo, High: hi, Confidence: Confidence, Method: OrderStatistic, Tails: tails, LowRank: l, HighRank: u}
	if l == 0 {
		iv.NeedNLow = NeedN(p, Confidence, false)
	}
	if u == 0 {
		iv.NeedNHigh = NeedN(p, Confidence, true)
	}
	return iv
}

// ci95 reads the interval of every reported level off the sample, with
// the same exact rank selection the percentiles use.
func (s *samples) ci95() *DistCI {
	c := &DistCI{}
	type want struct{ l, u int }
	ws := make([]want, len(Levels))
	var ks []int
	for i, p := range Levels {
		l, u := QuantileRanks(s.n, p, Confidence)
		ws[i] = want{l, u}
		if l > 0 {
			ks = append(ks, l-1)
		}
		if u > 0 {
			ks = append(ks, u-1)
		}
	}
	at := s.orderStats(ks)
	for i, p := range Levels {
		var lo, hi *float64
		if ws[i].l > 0 {
			v := at[ws[i].l-1]
			lo = &v
		}
		if ws[i].u > 0 {
			v := at[ws[i].u-1]
			hi = &v
		}
		*c.Level(p) = quantileInterval(p, ws[i].l, ws[i].u, lo, hi)
	}
	return c
}

// orderStats maps each 0-based rank in ks to its value.
func (s *samples) orderStats(ks []int) map[int]float64 {
	out := make(map[int]float64, len(ks))
	if len(ks) == 0 {
		return out
	}
	if len(s.runs) == 0 && (s.signed || s.n < smallSample) {
		x := make([]float64, 0, s.n)
		s.each(func(v float64) { x = append(x, v) })
		slices.Sort(x)
		for _, k := range ks {
			out[k] = x[k]
		}
		return out
	}
	for i, v := range s.ranks(ks) {
		out[ks[i]] = v
	}
	return out
}

// WilsonBounds is the 95 % Wilson score interval of q successes in n
// trials; ok is false when n is 0.
func WilsonBounds(q, n float64) (low, high float64, ok bool) {
	if n <= 0 {
		return 0, 0, false
	}
	z := z95
	p := q / n
	d := 1 + z*z/n
	centre := (p + z*z/(2*n)) / d
	half := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / d
	low, high = max(0, centre-half), min(1, centre+half)
	// At 0 (or n) successes the bound is 0 (or 1) exactly, not the
	// rounding error of centre − half (1.4e-17 for 0/25).
	if q <= 0 {
		low = 0
	}
	if q >= n {
		high = 1
	}
	return low, high, true
}

// WilsonCI is the 95 % Wilson interval of num/den, both sides nil when
// den is 0.
func WilsonCI(num, den float64) *Interval {
	iv := &Interval{Confidence: Confidence, Method: Wilson, Tails: "two-sided"}
	if lo, hi, ok := WilsonBounds(num, den); ok {
		iv.Low, iv.High = &lo, &hi
	}
	return iv
}

// NewShare is a ratio of counts (attempts, requests) with its 95 % Wilson
// interval.
func NewShare(num, den float64, unit string) Ratio {
	r := NewRatio(num, den, unit)
	r.CI95 = WilsonCI(num, den)
	return r
}
