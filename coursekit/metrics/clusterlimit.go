package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
)

// clusterExact is the most clusters whose resamples ClusterWindow.Resample
// draws one cluster at a time. Drawing k clusters costs k random numbers a
// resample: with 200,000 attempts, 2,000 resamples and two levels a side,
// 1.6 billion, 20 s of compare (the fifth engineer walk). Above it, a
// resample is drawn from the cluster bootstrap's normal limit instead
// (resampleLimit), at a cost that does not grow with k.
const clusterExact = 2048

// clusterLimit is what resampleLimit reads: for each value of the window,
// the standardised distance of its pooled share from the level.
type clusterLimit struct {
	t []float64 // ascending (made so), one per value of the window
}

// setLimit prepares the window's normal limit. A cluster resample's
// share of values at or below x, F*(x) = Σcᵢkᵢ(x) / Σcᵢsᵢ (cᵢ how often
// cluster i is drawn, kᵢ(x) its values at or below x, sᵢ its size), is a
// ratio of sums over k clusters drawn with replacement; as k grows it is
// normal around F(x) with variance Σᵢ(kᵢ − F·sᵢ)² / n² (the delta method,
// which for multinomial cᵢ is exact to first order). The resample's
// nearest-rank level is at or below x exactly when F*(x) ≥ P, so
// P(level ≤ x) = Φ(tₓ), tₓ = (F(x) − P)/SE(x): the Woodruff (1952)
// interval's reading of a quantile under cluster sampling, drawn. t is
// computed at every value of the window in one pass, each cluster's kᵢ
// moving up by one as its values are passed, so SE follows x (ties
// included) rather than being one number read at the level.
func (w *ClusterWindow) setLimit(first int) {
	k := slices.Clone(w.below)
	var s1, s2, s3 float64 // Σkᵢ², Σkᵢsᵢ, Σsᵢ²
	for i, s := range w.size {
		ki, si := float64(k[i]), float64(s)
		s1 += ki * ki
		s2 += ki * si
		s3 += si * si
	}
	n := float64(w.N)
	t := make([]float64, len(w.vals))
	prev := math.Inf(-1)
	for j, c := range w.owner {
		kc := float64(k[c])
		s1 += 2*kc + 1
		s2 += float64(w.size[c])
		k[c]++
		f := float64(first+j+1) / n
		v := s1 - 2*f*s2 + f*f*s3
		tj := 0.0
		switch {
		case v > 0:
			tj = (f - w.P) * n / math.Sqrt(v)
		case f > w.P:
			tj = math.Inf(1)
		case f < w.P:
			tj = math.Inf(-1)
		}
		prev = max(prev, tj) // Φ(t) is a distribution function: never down
		t[j] = prev
	}
	w.limit = &clusterLimit{t: t}
}

// resampleLimit draws the level of one cluster resample from the normal
// limit (setLimit): a standard normal Z picks the first value of the
// window whose tₓ reaches it. Linear reads it and the next value, as the
// resample's two neighbouring order statistics, at the level's fraction.
func (w *ClusterWindow) resampleLimit(r *rand.Rand) (float64, bool) {
	t := w.limit.t
	j, _ := slices.BinarySearch(t, r.NormFloat64())
	j = min(j, len(t)-1) // beyond the window (a chance of about 1e-23): its edge
	if w.Method == Linear {
		h := float64(w.N-1) * w.P
		return lerp(w.vals[j], w.vals[min(j+1, len(w.vals)-1)], h-math.Floor(h)), true
	}
	return w.vals[j], true
}
