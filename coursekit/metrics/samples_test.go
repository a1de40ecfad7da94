package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// selectRanks finds the same values as sorting, for every rank asked at
// once: continuous values, heavy ties (a few distinct values), values
// that differ only in their last bits, zeros and huge values.
func TestSelectRanksEqualsSorting(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	gens := map[string]func() float64{
		"continuous": func() float64 { return rng.ExpFloat64() * 300 },
		"ties":       func() float64 { return float64(rng.IntN(7)) * 0.1 },
		"last bits":  func() float64 { return math.Float64frombits(math.Float64bits(21.8) + uint64(rng.IntN(5))) },
		"wide":       func() float64 { return []float64{0, 5e-324, 1e300, 42}[rng.IntN(4)] },
	}
	for name, gen := range gens {
		s := &samples{}
		for range 100000 {
			s.add(gen())
		}
		x := make([]float64, 0, s.n)
		s.each(func(v float64) { x = append(x, v) })
		slices.Sort(x)
		ks := []int{0, 1, 2, 49999, 50000, 90000, 99000, 99998, 99999, 50000, 12345}
		got := s.selectRanks(ks)
		for _, k := range ks {
			if got[k] != x[k] {
				t.Errorf("%s: rank %d is %v, sorting gives %v", name, k, got[k], x[k])
			}
		}
	}
}
