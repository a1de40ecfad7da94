package metrics

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Resampling is what a bootstrap of one trace's card redraws, kept when
// Options.Resampling is set (coursekit/compare uses it). The unit redrawn
// is always the attempt: for each level of Options.Levels, the order
// statistics of TTFT and E2E (one value per attempt) that a resample's
// percentile can land on, the event gaps grouped by their attempt (a
// cluster bootstrap), and how many attempts added how many output tokens
// to the throughput. It is never part of the JSON card.
type Resampling struct {
	// TTFT and E2E hold one window per level of Options.Levels, in that
	// order (empty windows for an empty sample).
	TTFT, E2E []OrderWindow
	// ITL holds one cluster window per level: the event gaps, drawn by
	// attempt.
	ITL []ClusterWindow
	// Tokens counts the in-window attempts by the output tokens they add to
	// Throughput.OutputTokens: a complete success its OutputTokenCount,
	// every other attempt 0. Ascending by Tokens.
	Tokens []TokenCount
}

// TokenCount is how many attempts added Tokens output tokens each.
type TokenCount struct {
	Tokens   int64
	Attempts int64
}

// OrderWindow is a run of consecutive order statistics of a sample of N
// values: Values[i] is the (First+i)-th smallest, 0-based. It holds every
// rank that the level P of a resample of the N values (drawn with
// replacement, N of them) can land on, except with a probability below
// resampleTail on each side.
type OrderWindow struct {
	P      float64
	Method Method
	N      int
	First  int
	Values []float64
}

// resampleTail bounds the chance that one resample's percentile falls
// outside its window (it is then read at the window's edge): 1e-12 per
// side, so a million resamples miss it with a chance of about 1e-6.
const resampleTail = 1e-12

// Resample draws the level P of one resample of the window's N values,
// under its method, exactly as the bootstrap distribution gives it and
// without drawing the N values: the k-th smallest of N ranks drawn
// uniformly from 1…N is ⌈N·U₍ₖ₎⌉, where U₍ₖ₎ ~ Beta(k, N−k+1) is the k-th
// smallest of N uniforms, and the values are sorted, so the resample's
// k-th smallest value is the original's ⌈N·U₍ₖ₎⌉-th. Linear reads the two
// neighbouring order statistics the same way (the next uniform after U₍ₖ₎
// is U₍ₖ₎ + (1 − U₍ₖ₎)·M, M the smallest of N−k uniforms). The bool is
// false for an empty sample.
func (w *OrderWindow) Resample(r *rand.Rand) (float64, bool) {
	n := w.N
	if n == 0 {
		return 0, false
	}
	if n == 1 {
		return w.at(1), true
	}
	if w.Method == Linear {
		h := float64(n-1) * w.P
		i := min(int(h), n-1) // 0-based rank of the lower neighbour
		u := betaRand(r, i+1, n-i)
		a := w.at(rankOf(n, u))
		if i >= n-1 {
			return a, true
		}
		m := 1 - math.Pow(r.Float64(), 1/float64(n-i-1)) // Beta(1, n−i−1)
		b := w.at(rankOf(n, u+(1-u)*m))
		return lerp(a, b, h-math.Floor(h)), true
	}
	k := NearestRankIndex(n, w.P) + 1
	return w.at(rankOf(n, betaRand(r, k, n-k+1))), true
}

// rankOf is ⌈n·u⌉, the 1-based rank a uniform u picks out of n.
func rankOf(n int, u float64) int {
	return min(max(int(math.Ceil(float64(n)*u)), 1), n)
}

// at is the j-th smallest value (1-based), read at the window's edge when
// j lies outside it (a chance below resampleTail).
func (w *OrderWindow) at(j int) float64 {
	i := min(max(j-1-w.First, 0), len(w.Values)-1)
	return w.Values[i]
}

// betaRand draws Beta(a, b) from r.
func betaRand(r *rand.Rand, a, b int) float64 {
	return distuv.Beta{Alpha: float64(a), Beta: float64(b), Src: r}.Rand()
}

// resampleRanks is the 0-based rank window [lo, hi] of the level p of a
// resample of n values under m: the ranks outside it are drawn with a
// chance below resampleTail on each side.
func resampleRanks(n int, p float64, m Method) (lo, hi int) {
	k1 := NearestRankIndex(n, p) + 1
	k2 := k1
	if m == Linear {
		i := min(int(float64(n-1)*p), n-1)
		k1, k2 = i+1, min(i+2, n)
	}
	// J, the original rank of the resample's k-th smallest value, has
	// P(J ≤ j) = P(Binomial(n, j/n) ≥ k).
	atMost := func(k, j int) float64 {
		return 1 - distuv.Binomial{N: float64(n), P: float64(j) / float64(n)}.CDF(float64(k-1))
	}
	// lo+1 is the smallest j with P(J₁ ≤ j) > tail.
	a, b := 1, n
	for a < b {
		mid := (a + b) / 2
		if atMost(k1, mid) > resampleTail {
			b = mid
		} else {
			a = mid + 1
		}
	}
	lo = a - 1
	// hi+1 is the smallest j with P(J₂ > j) ≤ tail.
	a, b = 1, n
	for a < b {
		mid := (a + b) / 2
		if 1-atMost(k2, mid) <= resampleTail {
			b = mid
		} else {
			a = mid + 1
		}
	}
	return lo, a - 1
}

// windowEdges are the ranks at the edges of every level's window, for
// prepare to select with the card's own ranks.
func (s *samples) windowEdges(m Method, ps []float64) []int {
	if s.n == 0 || (len(s.runs) == 0 && (s.signed || s.n < smallSample)) {
		return nil
	}
	var ks []int
	for _, p := range ps {
		lo, hi := resampleRanks(s.n, p, m)
		ks = append(ks, lo, hi)
	}
	return ks
}

// windows reads the order-statistic window of every level ps of s under m.
func (s *samples) windows(m Method, ps []float64) []OrderWindow {
	out := make([]OrderWindow, len(ps))
	n := s.n
	for i, p := range ps {
		out[i] = OrderWindow{P: p, Method: m, N: n}
	}
	if n == 0 {
		return out
	}
	if len(s.runs) == 0 && (s.signed || n < smallSample) {
		x := make([]float64, 0, n)
		s.each(func(v float64) { x = append(x, v) })
		slices.Sort(x)
		for i := range out {
			out[i].Values = x // small: every level shares the whole sorted sample
		}
		return out
	}
	type span struct{ lo, hi int }
	spans := make([]span, len(ps))
	for i, p := range ps {
		spans[i].lo, spans[i].hi = resampleRanks(n, p, m)
		out[i].First = spans[i].lo
	}
	if len(s.runs) > 0 {
		for i, sp := range spans {
			ks := make([]int, 0, sp.hi-sp.lo+1)
			for k := sp.lo; k <= sp.hi; k++ {
				ks = append(ks, k)
			}
			got := s.selectSpilled(ks)
			out[i].Values = make([]float64, len(ks))
			for j, k := range ks {
				out[i].Values[j] = got[k]
			}
		}
		return out
	}
	// The values at each window's edges, then one pass that gathers what
	// lies between them and counts what lies below.
	var ks []int
	for _, sp := range spans {
		ks = append(ks, sp.lo, sp.hi)
	}
	edge := s.ranks(ks)
	below := make([]int, len(spans))
	held := make([][]float64, len(spans))
	s.each(func(v float64) {
		for i := range spans {
			switch lo, hi := edge[2*i], edge[2*i+1]; {
			case v < lo:
				below[i]++
			case v <= hi:
				held[i] = append(held[i], v)
			}
		}
	})
	for i, sp := range spans {
		slices.Sort(held[i])
		// Ties at the low edge start before rank lo: skip to it.
		from := sp.lo - below[i]
		out[i].Values = held[i][from : from+sp.hi-sp.lo+1]
	}
	return out
}

// Redraw is one level of a card's distribution as a bootstrap redraws it:
// an OrderWindow when each attempt gives one value (TTFT, E2E), a
// ClusterWindow when an attempt gives many (the event gaps).
type Redraw interface {
	// Resample draws the level of one resample; false for an empty sample.
	Resample(r *rand.Rand) (float64, bool)
}

// ClusterWindow is one level P of a sample made of clusters (the event
// gaps, a cluster per attempt) as a cluster bootstrap redraws it: each
// resample draws the clusters with replacement, as many as there are, and
// pools their values. Values of one cluster are not independent (the gaps
// of one attempt share its batch, its length, its server state), so
// drawing them one by one would treat a few attempts' thousands of gaps as
// thousands of independent samples and give an interval far too narrow;
// drawing whole attempts keeps their correlation in the interval.
//
// It keeps the pooled values around the level, each with its cluster, and
// per cluster how many of its values lie below them: a resample's level is
// then found by walking the window with the clusters' weights. The window
// holds every value when the sample is small (at most clusterWhole
// values); otherwise the ranks within clusterSDs standard errors of the
// level (the cluster-robust standard error of the share below it), and a
// resample that lands outside is read at the edge.
type ClusterWindow struct {
	P      float64
	Method Method
	// N counts the values, Clusters the clusters holding them.
	N, Clusters int
	size, below []int32       // per cluster: its values; those below the window
	vals        []float64     // the window's values, ascending
	owner       []int32       // the cluster of each value of vals
	limit       *clusterLimit // with more than clusterExact clusters: how Resample draws
}

// clusterWhole is the most values a ClusterWindow keeps whole.
const clusterWhole = 1 << 12

// clusterSDs is the half-width of a larger sample's window, in standard
// errors of the share of values below the level: a resample lands outside
// it with a chance of about 1e-23.
const clusterSDs = 10

// ClusterWindows builds the windows of the levels ps under m from a pooled
// sample: values, flat, cluster after cluster, sizes[i] of cluster i
// (clusters of no value are left out).
func ClusterWindows(values []float64, sizes []int32, m Method, ps []float64) []ClusterWindow {
	var size []int32
	for _, s := range sizes {
		if s > 0 {
			size = append(size, s)
		}
	}
	ranks := sortedRanks(values)
	if len(values) > clusterWhole && !slices.ContainsFunc(values, math.Signbit) {
		// Selected by counting, not by a sort of every value: a sort of
		// every gap was a third of compare's time on two 1M-request traces.
		ranks = selectedRanks(values)
	}
	ws, _ := clusterWindows(len(values), size, flatEach(values, size), ranks, m, ps)
	return ws
}

// flatEach reads values held flat, cluster after cluster (size[i] of
// cluster i), with their clusters, as clusterWindows reads them.
func flatEach(values []float64, size []int32) func(func(v float64, c int32)) error {
	return func(f func(v float64, c int32)) error {
		i := 0
		for c, s := range size {
			for range s {
				f(values[i], int32(c))
				i++
			}
		}
		return nil
	}
}

// sortedRanks reads 0-based ranks of values off a sorted copy.
func sortedRanks(values []float64) func([]int) []float64 {
	var sorted []float64
	return func(ks []int) []float64 {
		if sorted == nil {
			sorted = slices.Clone(values)
			slices.Sort(sorted)
		}
		out := make([]float64, len(ks))
		for i, k := range ks {
			out[i] = sorted[k]
		}
		return out
	}
}

// selectedRanks reads 0-based ranks of non-negative values by counting
// (samples.selectRanks), without a copy of them.
func selectedRanks(values []float64) func([]int) []float64 {
	s := &samples{chunks: [][]float64{values}, n: len(values)}
	return func(ks []int) []float64 {
		sel := s.selectRanks(ks)
		out := make([]float64, len(ks))
		for i, k := range ks {
			out[i] = sel[k]
		}
		return out
	}
}

// clusterWindows builds the windows of the levels ps from n values in the
// clusters of size (none empty), read through each (every value with its
// cluster, as often as needed, never held whole) and ranks (the values at
// 0-based ranks of the sorted sample): for every level at once, two
// passages over the values (three for a large sample) and two calls of
// ranks, and memory for the windows and a few counts a cluster. Pooled
// values are ordered by value, then cluster.
func clusterWindows(n int, size []int32, each func(func(v float64, c int32)) error, ranks func([]int) []float64, m Method, ps []float64) ([]ClusterWindow, error) {
	out := make([]ClusterWindow, len(ps))
	for i, p := range ps {
		out[i] = ClusterWindow{P: p, Method: m, N: n, Clusters: len(size), size: size, below: make([]int32, len(size))}
	}
	if n == 0 {
		return out, nil
	}
	lo, hi := make([]int, len(ps)), make([]int, len(ps))
	for i := range ps {
		lo[i], hi[i] = 0, n-1
	}
	if n > clusterWhole {
		ks := make([]int, len(ps))
		for i, p := range ps {
			ks[i] = NearestRankIndex(n, p)
		}
		q := ranks(ks)
		k := make([][]int32, len(ps))
		for i := range k {
			k[i] = make([]int32, len(size))
		}
		if err := each(func(v float64, c int32) {
			for i := range ps {
				if v <= q[i] {
					k[i][c]++
				}
			}
		}); err != nil {
			return nil, err
		}
		for i, p := range ps {
			lo[i], hi[i] = clusterSpan(p, k[i], size, n)
		}
	}
	edges := make([]int, 0, 2*len(ps))
	for i := range ps {
		edges = append(edges, lo[i], hi[i])
	}
	b := ranks(edges)
	type tagged struct {
		v float64
		c int32
	}
	// Per level: values below each edge value, each cluster's copies of
	// them, and the values strictly between.
	type tally struct {
		vlo, vhi       float64
		lessLo, lessHi int
		eqLo, eqHi     []int32
		mid            []tagged
	}
	ts := make([]tally, len(ps))
	for i := range ps {
		ts[i] = tally{vlo: b[2*i], vhi: b[2*i+1], eqLo: make([]int32, len(size)), eqHi: make([]int32, len(size))}
	}
	if err := each(func(v float64, c int32) {
		for i := range ts {
			t := &ts[i]
			switch {
			case v < t.vlo:
				t.lessLo++
				out[i].below[c]++
			case v == t.vlo:
				t.eqLo[c]++
			}
			switch {
			case v < t.vhi:
				t.lessHi++
			case v == t.vhi:
				t.eqHi[c]++
			}
			if v > t.vlo && v < t.vhi {
				t.mid = append(t.mid, tagged{v, c})
			}
		}
	}); err != nil {
		return nil, err
	}
	for i := range ps {
		t := &ts[i]
		vlo, vhi := t.vlo, t.vhi
		slices.SortFunc(t.mid, func(a, b tagged) int {
			if c := cmpFloat(a.v, b.v); c != 0 {
				return c
			}
			return int(a.c - b.c)
		})
		win := &out[i]
		push := func(v float64, c int32, k int32) {
			for range k {
				win.vals = append(win.vals, v)
				win.owner = append(win.owner, c)
			}
		}
		// Ties at the window's edges are split by cluster, first clusters
		// first.
		skip := int32(lo[i] - t.lessLo) // copies of vlo below the window
		if vlo == vhi {
			take := int32(hi[i] - lo[i] + 1)
			for c, e := range t.eqLo {
				s := min(e, skip)
				win.below[c] += s
				skip -= s
				k := min(e-s, take)
				push(vlo, int32(c), k)
				take -= k
			}
		} else {
			for c, e := range t.eqLo {
				s := min(e, skip)
				win.below[c] += s
				skip -= s
				push(vlo, int32(c), e-s)
			}
			for _, m := range t.mid {
				push(m.v, m.c, 1)
			}
			take := int32(hi[i] - t.lessHi + 1) // copies of vhi in the window
			for c, e := range t.eqHi {
				k := min(e, take)
				push(vhi, int32(c), k)
				take -= k
			}
		}
		t.mid = nil
		if len(size) > clusterExact {
			win.setLimit(lo[i])
		}
	}
	return out, nil
}

// clusterSpan is the rank window [lo, hi] of a large pooled sample around
// the value q of its level p: p ± clusterSDs cluster-robust standard errors
// of the share of values at or below q (k of each cluster), widened by the
// largest cluster.
func clusterSpan(p float64, k, size []int32, n int) (lo, hi int) {
	var ss float64
	var big int32
	for c, s := range size {
		a := float64(k[c]) - p*float64(s)
		ss += a * a
		big = max(big, s)
	}
	half := clusterSDs*math.Sqrt(ss) + float64(big) + 2
	lo = max(0, int(math.Floor(p*float64(n)-half)))
	hi = min(n-1, int(math.Ceil(p*float64(n)+half)))
	return lo, hi
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Resample draws the level P of one cluster resample: the clusters drawn
// with replacement, their values pooled, the level read under Method.
func (w *ClusterWindow) Resample(r *rand.Rand) (float64, bool) {
	k := len(w.size)
	if w.N == 0 || k == 0 {
		return 0, false
	}
	if w.limit != nil {
		return w.resampleLimit(r)
	}
	weight := make([]int64, k)
	for range k {
		weight[r.IntN(k)]++
	}
	var total, below int64
	for i, c := range weight {
		total += c * int64(w.size[i])
		below += c * int64(w.below[i])
	}
	if total == 0 {
		return 0, false
	}
	n := int(total)
	if w.Method == Linear {
		h := float64(n-1) * w.P
		i := min(int(h), n-1)
		a := w.rank(weight, below, int64(i))
		if i >= n-1 {
			return a, true
		}
		return lerp(a, w.rank(weight, below, int64(i+1)), h-math.Floor(h)), true
	}
	return w.rank(weight, below, int64(NearestRankIndex(n, w.P))), true
}

// rank is the resample's value of 0-based rank k: the first value of the
// window whose cumulative weight passes k, read at the window's edge when
// it lies outside.
func (w *ClusterWindow) rank(weight []int64, below, k int64) float64 {
	cum := below
	if k < cum {
		return w.vals[0]
	}
	for j, c := range w.owner {
		cum += weight[c]
		if cum > k {
			return w.vals[j]
		}
	}
	return w.vals[len(w.vals)-1]
}
