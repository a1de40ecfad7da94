package minheap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Draining the heap by replacing its top gives the values in order, for
// sizes around the tree's level boundaries and with ties.
func TestDrainIsSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	less := func(a, b *int) bool { return *a < *b }
	for n := 0; n <= 33; n++ {
		h := make([]int, n)
		for i := range h {
			h[i] = r.IntN(8)
		}
		want := slices.Clone(h)
		slices.Sort(want)
		Init(h, less)
		var got []int
		for len(h) > 0 {
			got = append(got, h[0])
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
			Down(h, 0, less)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: drained %v, want %v", n, got, want)
		}
	}
}
