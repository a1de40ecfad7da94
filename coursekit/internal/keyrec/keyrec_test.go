package keyrec

import (
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/llmperf-course/course/coursekit/internal/spill"
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

// A store under a tiny budget spills sorted runs, and its sources merge
// back to exactly the records added; the budget's directory is removed.
func TestStoreSpillsAndMerges(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	defer func(m int) { MinStoreCap = m }(MinStoreCap)
	MinStoreCap = 8
	b := spill.New(1)
	s := NewStore(8, b)
	rng := rand.New(rand.NewPCG(7, 8))
	var want []Rec
	for range 1000 {
		r := Rec{K: [2]uint64{rng.Uint64() & 63, rng.Uint64()}, V: rng.Uint64()}
		s.Add(r)
		want = append(want, r)
	}
	if !s.Spilled() || s.Len() >= 1000 {
		t.Fatalf("no spill: %d records in memory", s.Len())
	}
	srcs, done, err := s.Sources()
	if err != nil {
		t.Fatal(err)
	}
	var got []Rec
	if err := Merge(srcs, func(r *Rec) { got = append(got, *r) }); err != nil {
		t.Fatal(err)
	}
	done()
	slices.SortFunc(want, compare)
	if !slices.Equal(got, want) {
		t.Fatal("the merged runs differ from the records added")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(os.Getenv("TMPDIR")); len(left) != 0 {
		t.Fatalf("%d files left behind", len(left))
	}
}

// AnyRepeated finds a word added twice, across stores and spilled runs,
// and only then.
func TestAnyRepeated(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	defer func(m int) { MinStoreCap = m }(MinStoreCap)
	MinStoreCap = 8
	for _, dup := range []bool{false, true} {
		b := spill.New(1)
		a, c := NewWords(8, b), NewWords(8, b)
		for i := range uint64(500) {
			a.Add(i * 2)
			c.Add(i*2 + 1)
		}
		if dup {
			c.Add(177 * 2) // also in a, which spilled it long ago
		}
		got, err := AnyRepeated([]*Words{a, c, nil})
		if err != nil || got != dup {
			t.Fatalf("dup %v: AnyRepeated = %v, %v", dup, got, err)
		}
		if len(a.runs) == 0 {
			t.Fatal("no run was spilled")
		}
		b.Close()
	}
}
