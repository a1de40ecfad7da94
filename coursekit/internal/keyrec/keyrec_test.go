package keyrec

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Sort orders like a comparison sort, for hashed keys, for keys that
// share their high bits (the radix passes go deeper), and for repeats.
func TestSortMatchesComparisonSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 31, 33, 1000, 100000} {
		for _, mask := range []uint64{^uint64(0), 0xff, 0x3} {
			r := make([]Rec, n)
			for i := range r {
				r[i] = Rec{K: [2]uint64{rng.Uint64() & mask, rng.Uint64() & mask}, V: rng.Uint64() & 7}
			}
			want := slices.Clone(r)
			slices.SortFunc(want, compare)
			Sort(r)
			if !slices.Equal(r, want) {
				t.Fatalf("n=%d mask=%x: Sort differs from a comparison sort", n, mask)
			}
		}
	}
}

// Merge yields the records of sorted sources in one sorted sequence.
func TestMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var all []Rec
	var srcs []Source
	for range 5 {
		r := make([]Rec, rng.IntN(50))
		for i := range r {
			r[i] = Rec{K: [2]uint64{rng.Uint64() & 15, 0}, V: rng.Uint64() & 3}
		}
		Sort(r)
		all = append(all, r...)
		srcs = append(srcs, &SliceSource{R: r})
	}
	slices.SortFunc(all, compare)
	var got []Rec
	if err := Merge(srcs, func(r *Rec) { got = append(got, *r) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, all) {
		t.Fatal("Merge did not yield the sorted union")
	}
}
