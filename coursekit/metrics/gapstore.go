package metrics

import (
	"math"

	"github.com/llmperf-course/course/coursekit/internal/spill"
)

// gapStore keeps the event gaps attempt after attempt for the cluster
// bootstrap (Options.Resampling) under the card's memory budget: past it,
// the values in memory are written, in order, as a run (not sorted: the
// order names each value's attempt, through sizes), and read back in
// order. sizes, one int32 an attempt, stay in memory, as the bootstrap
// itself needs them.
type gapStore struct {
	vals   []float64
	runs   []string
	sizes  []int32
	budget *spill.Budget
	held   int64 // bytes of vals charged to budget
}

// gapChunk is how many values a gapStore holds before it asks the budget.
var gapChunk = 1 << 16

func (g *gapStore) addAttempt(gaps func(yield func(float64))) {
	var k int32
	gaps(func(v float64) {
		if len(g.vals) == cap(g.vals) && len(g.vals) >= gapChunk {
			if g.budget.Over(int64(len(g.vals))*8, sampleStores) {
				g.spill()
			}
		}
		if len(g.vals) == cap(g.vals) {
			c := cap(g.vals)
			g.vals = append(g.vals, v)
			g.budget.Charge(int64(cap(g.vals)-c) * 8)
			g.held += int64(cap(g.vals)-c) * 8
		} else {
			g.vals = append(g.vals, v)
		}
		k++
	})
	g.sizes = append(g.sizes, k)
}

// spill writes the values in memory as a run, in order; on an error (kept
// in the budget) they stay in memory.
func (g *gapStore) spill() {
	path, err := g.budget.WriteRun(len(g.vals), func(i int) uint64 { return math.Float64bits(g.vals[i]) })
	if err != nil {
		g.budget.Fail(err)
		return
	}
	g.runs = append(g.runs, path)
	g.vals = nil
	g.budget.Charge(-g.held)
	g.held = 0
}

// gapParts are the stores of a trace's parsing goroutines, read as one:
// the clusters of each part follow those of the parts before it.
type gapParts []*gapStore

func (p gapParts) sizes() []int32 {
	var s []int32
	for _, g := range p {
		s = append(s, g.sizes...)
	}
	return s
}

// each calls f with every value and its cluster, in the stores' order.
func (p gapParts) each(f func(v float64, c int32)) error {
	base := int32(0)
	for _, g := range p {
		c, left := base, int32(0)
		next := func(v float64) {
			for left == 0 {
				left = g.sizes[c-base]
				if left == 0 {
					c++
				}
			}
			f(v, c)
			if left--; left == 0 {
				c++
			}
		}
		for _, path := range g.runs {
			r, err := spill.Open(path)
			if err != nil {
				return err
			}
			for {
				w, ok, err := r.Next()
				if err != nil {
					r.Close()
					return err
				}
				if !ok {
					break
				}
				next(math.Float64frombits(w))
			}
			r.Close()
		}
		for _, v := range g.vals {
			next(v)
		}
		base += int32(len(g.sizes))
	}
	return nil
}
