package metrics

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/llmperf-course/course/coursekit/internal/keyrec"
)

// The event gaps that compare's cluster bootstrap redraws are held under
// the card's memory budget (--memory) like every other store: with a budget
// so small that they spill, the windows (values, owners, counts below) are
// the in-memory ones, value for value, for samples small enough to be
// kept whole and for large ones read around each level, with ties at the
// window's edges; and the spill is more than without them.
func TestGapsSpillUnderTheBudget(t *testing.T) {
	defer func(c, m, g int) { budgetChunkLen, keyrec.MinStoreCap, gapChunk = c, m, g }(budgetChunkLen, keyrec.MinStoreCap, gapChunk)
	budgetChunkLen, keyrec.MinStoreCap, gapChunk = 16, 16, 64
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		name     string
		attempts int
	}{{"whole (under 4096 gaps)", 40}, {"windowed (over 4096 gaps)", 300}} {
		t.Run(c.name, func(t *testing.T) {
			tr := spillTrace(c.attempts, func(i int) string {
				// 10 to 60 events a stream, gaps on a coarse grid: ties everywhere.
				gap := float64(5 + r.IntN(4)*5)
				return okLine(fmt.Sprint("A", i), "", 2000+float64(i), 2100+float64(i), gap, 10+r.IntN(50), `"pass"`, 9000)
			})
			opts := Options{Resampling: true, Levels: []float64{0.5, 0.95, 0.99}}
			mem, err := SummarizeReader(bytes.NewReader(tr), "t", opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.MemoryBytes = 1
			spilled, err := SummarizeReader(bytes.NewReader(tr), "t", opts)
			if err != nil {
				t.Fatal(err)
			}
			if spilled.Spill == nil {
				t.Fatal("nothing spilled under a 1-byte budget")
			}
			if !reflect.DeepEqual(mem.Resampling.ITL, spilled.Resampling.ITL) {
				t.Errorf("the spilled windows differ from the in-memory ones")
			}
			if w := spilled.Resampling.ITL[1]; c.attempts > 100 && len(w.vals) >= w.N {
				t.Errorf("a large sample's window holds all %d values", w.N)
			}
			opts.Resampling = false
			plain, err := SummarizeReader(bytes.NewReader(tr), "t", opts)
			if err != nil {
				t.Fatal(err)
			}
			if plain.Spill == nil || spilled.Spill.Bytes <= plain.Spill.Bytes {
				t.Errorf("spilled %+v with the gaps, %+v without: the gaps were not spilled", spilled.Spill, plain.Spill)
			}
		})
	}
}

// The windows read from the sample as a stream equal those of the sorted
// pool: every value below the window counted in its cluster, the window's
// values ascending with ties in cluster order, for a level whose value is
// tied across the window's edges.
func TestClusterWindowsTiesSplitByCluster(t *testing.T) {
	// Three clusters of [1 1 2 2 2 3]: 18 values, the median rank 8 (0-based) inside the 2s.
	vals := []float64{1, 1, 2, 2, 2, 3, 1, 1, 2, 2, 2, 3, 1, 1, 2, 2, 2, 3}
	w := ClusterWindows(vals, []int32{6, 6, 6}, NearestRank, []float64{0.5})[0]
	if len(w.vals) != 18 || w.vals[0] != 1 || w.vals[17] != 3 || w.owner[0] != 0 || w.owner[1] != 0 || w.owner[2] != 1 {
		t.Errorf("whole window %v owners %v", w.vals, w.owner)
	}
	for i := 1; i < len(w.vals); i++ {
		if w.vals[i] < w.vals[i-1] || (w.vals[i] == w.vals[i-1] && w.owner[i] < w.owner[i-1]) {
			t.Fatalf("not ordered by value, then cluster: %v %v", w.vals, w.owner)
		}
	}
}
