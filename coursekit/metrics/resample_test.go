package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/llmperf-course/course/coursekit/internal/spill"
	"github.com/llmperf-course/course/coursekit/tracegen"
)

// roughSample is n values with ties (rounded to 0.5 ms), as traces have.
func roughSample(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Round(math.Exp(5+r.NormFloat64())*2) / 2
	}
	return x
}

// Every window holds exactly the order statistics it says it holds, on the
// sorting path (small samples), the radix path (large ones) and the spilled
// path, and it covers the card's own rank of the level.
func TestWindowsHoldTheirRanks(t *testing.T) {
	defer func(c int) { budgetChunkLen = c }(budgetChunkLen)
	levels := []float64{0.5, 0.95, 0.99, 0.999}
	for _, n := range []int{1, 7, 300, 3 * smallSample} {
		x := roughSample(n, uint64(n))
		sorted := slices.Clone(x)
		slices.Sort(sorted)
		for _, m := range []Method{NearestRank, Linear} {
			for _, spilled := range []bool{false, true} {
				s := samplesOf(nil)
				if spilled {
					if n < 300 {
						continue
					}
					budgetChunkLen = 64
					s.budget = spillBudget(t)
				}
				for _, v := range x {
					s.add(v)
				}
				ks := s.wantRanks(m, levels)
				ks = append(ks, s.windowEdges(m, levels)...)
				s.prepare(ks)
				ws := s.windows(m, levels)
				budgetChunkLen = chunkLen
				if spilled && len(s.runs) == 0 {
					t.Fatalf("n=%d: the sample did not spill", n)
				}
				for i, w := range ws {
					if w.N != n || w.P != levels[i] || w.Method != m {
						t.Fatalf("n=%d %s p=%v: window labelled %+v", n, m, levels[i], w)
					}
					if w.First < 0 || w.First+len(w.Values) > n || len(w.Values) == 0 {
						t.Fatalf("n=%d %s p=%v: window [%d, +%d) outside the sample", n, m, levels[i], w.First, len(w.Values))
					}
					if !slices.Equal(w.Values, sorted[w.First:w.First+len(w.Values)]) {
						t.Errorf("n=%d %s spilled=%v p=%v: window from rank %d is not the sorted sample there", n, m, spilled, levels[i], w.First)
					}
					k := NearestRankIndex(n, levels[i])
					if k < w.First || k >= w.First+len(w.Values) {
						t.Errorf("n=%d p=%v: the card's rank %d is outside the window [%d, %d)", n, levels[i], k, w.First, w.First+len(w.Values))
					}
					if n == 3*smallSample && len(w.Values) > n/4 {
						t.Errorf("n=%d p=%v: a window of %d values is not a window", n, levels[i], len(w.Values))
					}
				}
			}
		}
	}
}

// Resample draws from the bootstrap distribution itself: over many draws,
// each value comes up as often as it does when N values are really drawn
// with replacement and the level is read off them with Quantile.
func TestResampleIsTheBootstrap(t *testing.T) {
	x := []float64{3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584}
	slices.Sort(x)
	const draws = 200000
	for _, m := range []Method{NearestRank, Linear} {
		for _, p := range []float64{0.5, 0.9} {
			s := samplesOf(x)
			w := s.windows(m, []float64{p})[0]
			r := rand.New(rand.NewPCG(1, 2))
			fast, slow := map[float64]int{}, map[float64]int{}
			y := make([]float64, len(x))
			for range draws {
				v, ok := w.Resample(r)
				if !ok {
					t.Fatal("no value from a sample of 15")
				}
				fast[v]++
				for i := range y {
					y[i] = x[r.IntN(len(x))]
				}
				slices.Sort(y)
				q, _ := Quantile(y, p, m)
				slow[q]++
			}
			for v, c := range slow {
				if d := math.Abs(float64(c-fast[v])) / draws; d > 0.006 {
					t.Errorf("%s p=%v: value %v drawn %d times in the bootstrap, %d by Resample", m, p, v, c, fast[v])
				}
			}
			for v, c := range fast {
				if slow[v] == 0 && float64(c)/draws > 0.001 {
					t.Errorf("%s p=%v: Resample drew %v %d times, the bootstrap never", m, p, v, c)
				}
			}
		}
	}
	var empty OrderWindow
	if _, ok := empty.Resample(rand.New(rand.NewPCG(1, 1))); ok {
		t.Error("an empty sample has no resampled level")
	}
}

// The resampling data leave the JSON card as it was, and the attempts by
// output tokens add up to the card's attempts and its token throughput.
func TestResamplingKeepsTheCard(t *testing.T) {
	var gen bytes.Buffer
	if _, err := tracegen.Generate(&gen, tracegen.Config{Seed: 5, Requests: 3000, RatePerS: 100, TimeoutMS: 3000}); err != nil {
		t.Fatal(err)
	}
	opts := Options{SLOsMS: []float64{1000}, Levels: []float64{0.5, 0.95}}
	plain, err := SummarizeReader(bytes.NewReader(gen.Bytes()), "g.jsonl", opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Resampling = true
	rs, err := SummarizeReader(bytes.NewReader(gen.Bytes()), "g.jsonl", opts)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(rs)
	if !bytes.Equal(a, b) || plain.Resampling != nil || rs.Resampling == nil {
		t.Fatalf("Resampling changed the card or was not kept (%v)", rs.Resampling == nil)
	}
	var attempts, tokens int64
	for i, c := range rs.Resampling.Tokens {
		if i > 0 && c.Tokens <= rs.Resampling.Tokens[i-1].Tokens {
			t.Errorf("token counts not ascending at %d", i)
		}
		attempts += c.Attempts
		tokens += c.Tokens * c.Attempts
	}
	if attempts != rs.Attempts || float64(tokens) != rs.Throughput.OutputTokens.Num {
		t.Errorf("attempts by tokens: %d attempts, %d tokens; the card: %d, %v", attempts, tokens, rs.Attempts, rs.Throughput.OutputTokens.Num)
	}
	if len(rs.Resampling.TTFT) != 2 || rs.Resampling.TTFT[1].N != rs.TTFT.N || len(rs.Resampling.ITL) != 2 || rs.Resampling.ITL[0].N != rs.ITL.N {
		t.Errorf("windows: %d TTFT, %d ITL", len(rs.Resampling.TTFT), len(rs.Resampling.ITL))
	}
}

// spillBudget is a budget of one byte in a temporary directory: every
// full chunk spills.
func spillBudget(t *testing.T) *spill.Budget {
	t.Setenv("TMPDIR", t.TempDir())
	b := spill.New(1)
	t.Cleanup(func() { b.Close() })
	return b
}

// A ClusterWindow draws the level of a resample of whole clusters as the
// slow way does (draw the clusters, pool their values, sort, read the
// level): the same distribution of values, with the whole sample kept
// (small) and with a window of ranks around the level (large).
func TestClusterWindowIsTheClusterBootstrap(t *testing.T) {
	for _, clusters := range []int{30, 110} { // 1,200 values: kept whole; 4,400: a window
		r := rand.New(rand.NewPCG(uint64(clusters), 3))
		var vals []float64
		var sizes []int32
		var groups [][]float64
		for range clusters {
			base := 8 + 6*r.Float64()
			var g []float64
			for range 40 {
				g = append(g, math.Round(base*math.Exp(0.05*r.NormFloat64())*10)/10)
			}
			groups = append(groups, g)
			vals = append(vals, g...)
			sizes = append(sizes, int32(len(g)))
		}
		sizes = append(sizes, 0) // an attempt without gaps is no cluster
		for _, m := range []Method{NearestRank, Linear} {
			ws := ClusterWindows(vals, sizes, m, []float64{0.5, 0.95})
			for _, w := range ws {
				if w.N != len(vals) || w.Clusters != clusters {
					t.Fatalf("window of %d values in %d clusters, want %d in %d", w.N, w.Clusters, len(vals), clusters)
				}
				const draws = 2000
				fast, slow := map[float64]int{}, map[float64]int{}
				rf, rs := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(3, 4))
				for range draws {
					v, ok := w.Resample(rf)
					if !ok {
						t.Fatal("no value")
					}
					fast[v]++
					var y []float64
					for range clusters {
						y = append(y, groups[rs.IntN(clusters)]...)
					}
					slices.Sort(y)
					q, _ := Quantile(y, w.P, m)
					slow[q]++
				}
				// Both sides' means and spreads agree within sampling error.
				mean := func(h map[float64]int) (mu, sd float64) {
					for v, c := range h {
						mu += v * float64(c) / draws
					}
					for v, c := range h {
						sd += (v - mu) * (v - mu) * float64(c) / draws
					}
					return mu, math.Sqrt(sd)
				}
				mf, sf := mean(fast)
				ms, ss := mean(slow)
				if math.Abs(mf-ms) > 4*ss/math.Sqrt(draws)*math.Sqrt2+1e-9 || math.Abs(sf-ss) > 0.1*ss+1e-9 {
					t.Errorf("%d clusters, %s p=%v: Resample mean %.4f sd %.4f, the cluster bootstrap %.4f sd %.4f", clusters, m, w.P, mf, sf, ms, ss)
				}
			}
		}
	}
	if _, ok := (&ClusterWindow{}).Resample(rand.New(rand.NewPCG(1, 1))); ok {
		t.Error("an empty sample has no resampled level")
	}
}
