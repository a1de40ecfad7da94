package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Above clusterExact clusters, Resample draws from the cluster bootstrap's
// normal limit (fast: compare of two 200,000-attempt traces took 20 s
// drawing every cluster). Its draws agree with the cluster-by-cluster
// bootstrap's (itself checked against the brute-force one by
// TestClusterWindowIsTheClusterBootstrap): mean, spread and the 2.5 % and
// 97.5 % points the intervals are read at, for gaps correlated within
// clusters, continuous and heavily tied, under both methods.
func TestClusterLimitIsTheClusterBootstrap(t *testing.T) {
	const clusters, draws = 3000, 4000
	for _, tied := range []bool{false, true} {
		r := rand.New(rand.NewPCG(7, 8))
		var vals []float64
		var sizes []int32
		for range clusters {
			base := 8 + 6*r.Float64()
			size := 1 + r.IntN(40)
			for range size {
				v := base * math.Exp(0.3*r.NormFloat64())
				if tied {
					v = math.Round(v*20) / 20 // steps of 0.05, about the spread of the level
				}
				vals = append(vals, v)
			}
			sizes = append(sizes, int32(size))
		}
		for _, m := range []Method{NearestRank, Linear} {
			for _, w := range ClusterWindows(vals, sizes, m, []float64{0.5, 0.95}) {
				if w.limit == nil {
					t.Fatalf("%d clusters: no normal limit", clusters)
				}
				exact := w
				exact.limit = nil
				draw := func(w *ClusterWindow, seed uint64) []float64 {
					rr := rand.New(rand.NewPCG(seed, 1))
					out := make([]float64, draws)
					for i := range out {
						v, ok := w.Resample(rr)
						if !ok {
							t.Fatal("no value")
						}
						out[i] = v
					}
					slices.Sort(out)
					return out
				}
				fast, slow := draw(&w, 1), draw(&exact, 2)
				mf, sf := meanSD(fast)
				ms, ss := meanSD(slow)
				q := func(x []float64, p float64) float64 { v, _ := Quantile(x, p, NearestRank); return v }
				// Tied values move the points in steps of 0.05: allow one.
				step := 0.0
				if tied {
					step = 0.05
				}
				if math.Abs(mf-ms) > 4*ss/math.Sqrt(draws)*math.Sqrt2+1e-9 || math.Abs(sf-ss) > 0.1*ss+step/4 ||
					math.Abs(q(fast, 0.025)-q(slow, 0.025)) > 0.3*ss+step || math.Abs(q(fast, 0.975)-q(slow, 0.975)) > 0.3*ss+step {
					t.Errorf("tied %v, %s p=%v: limit mean %.4f sd %.4f [%.4f, %.4f]; cluster bootstrap %.4f sd %.4f [%.4f, %.4f]",
						tied, m, w.P, mf, sf, q(fast, 0.025), q(fast, 0.975), ms, ss, q(slow, 0.025), q(slow, 0.975))
				}
			}
		}
	}
}

func meanSD(x []float64) (mu, sd float64) {
	for _, v := range x {
		mu += v
	}
	mu /= float64(len(x))
	for _, v := range x {
		sd += (v - mu) * (v - mu)
	}
	return mu, math.Sqrt(sd / float64(len(x)))
}

// A large sample's ranks are selected by counting, not read off a sorted
// copy (selectedRanks), and its windows are the sorted copy's: the same
// values, clusters and counts below, ties included.
func TestLargeClusterWindowsHoldTheirRanks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	var vals []float64
	var size []int32
	for range 300 {
		n := 1 + r.IntN(60)
		for range n {
			vals = append(vals, math.Round(20*math.Exp(0.4*r.NormFloat64()))/4) // tied
		}
		size = append(size, int32(n))
	}
	if len(vals) <= clusterWhole {
		t.Fatalf("%d values: not a large sample", len(vals))
	}
	each := flatEach(vals, size)
	ps := []float64{0.05, 0.5, 0.99}
	sorted, _ := clusterWindows(len(vals), size, each, sortedRanks(vals), NearestRank, ps)
	selected, _ := clusterWindows(len(vals), size, each, selectedRanks(vals), NearestRank, ps)
	for i := range ps {
		a, b := sorted[i], selected[i]
		if !slices.Equal(a.vals, b.vals) || !slices.Equal(a.owner, b.owner) || !slices.Equal(a.below, b.below) {
			t.Errorf("p=%v: the selected window differs from the sorted one", ps[i])
		}
		if len(a.vals) == 0 || len(a.vals) == len(vals) {
			t.Errorf("p=%v: window of %d values of %d: not a window", ps[i], len(a.vals), len(vals))
		}
		// The window is the pooled sort's run from its first rank, and holds
		// the level's own rank.
		all := slices.Clone(vals)
		slices.Sort(all)
		first := 0
		for _, b := range b.below {
			first += int(b)
		}
		if !slices.Equal(b.vals, all[first:first+len(b.vals)]) {
			t.Errorf("p=%v: the window is not the sorted values from rank %d", ps[i], first)
		}
		if k := NearestRankIndex(len(vals), ps[i]); k < first || k >= first+len(b.vals) {
			t.Errorf("p=%v: rank %d outside the window [%d, %d)", ps[i], k, first, first+len(b.vals))
		}
	}
}
