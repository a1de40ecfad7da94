// Package keyrec groups millions of records by a 128-bit key without a
// hash map: records are appended to flat slices, each slice is sorted in
// place by radix partition, and the sorted slices are merged. A map of
// millions of keys is mostly cache misses and costs about twice the
// memory; sorting touches memory in order, and sorted runs can also be
// written to disk and merged from there.
package keyrec

import (
	"cmp"
	"slices"

	"github.com/llmperf-course/course/coursekit/internal/spill"
)

// Rec is a key with one 64-bit value.
type Rec struct {
	K [2]uint64
	V uint64
}

// Less orders records by key, then value.
func Less(a, b *Rec) bool {
	if a.K[0] != b.K[0] {
		return a.K[0] < b.K[0]
	}
	if a.K[1] != b.K[1] {
		return a.K[1] < b.K[1]
	}
	return a.V < b.V
}

func compare(a, b Rec) int {
	if c := cmp.Compare(a.K[0], b.K[0]); c != 0 {
		return c
	}
	if c := cmp.Compare(a.K[1], b.K[1]); c != 0 {
		return c
	}
	return cmp.Compare(a.V, b.V)
}

// Sort orders r by key, then value, in place. The keys are hashes, so
// their bytes spread them evenly: an in-place radix partition on the top
// byte of the key (American flag sort), again within each of the 256
// parts, which then fit in cache, down to small parts sorted by insertion.
func Sort(r []Rec) { flagSort(r, 56) }

func flagSort(r []Rec, shift uint) {
	if len(r) <= 32 || shift > 56 {
		insertion(r)
		return
	}
	var count, next [256]int
	for i := range r {
		count[byte(r[i].K[0]>>shift)]++
	}
	s := 0
	for b, c := range count {
		next[b] = s
		s += c
	}
	end := next
	for b := range end {
		end[b] += count[b]
	}
	for b := range 256 {
		for i := next[b]; i < end[b]; i = next[b] {
			x := r[i]
			d := byte(x.K[0] >> shift)
			for int(d) != b {
				j := next[d]
				next[d]++
				x, r[j] = r[j], x
				d = byte(x.K[0] >> shift)
			}
			r[i] = x
			next[b]++
		}
	}
	lo := 0
	for _, c := range count {
		if c > 1 {
			if shift >= 8 {
				flagSort(r[lo:lo+c], shift-8)
			} else {
				slices.SortFunc(r[lo:lo+c], compare)
			}
		}
		lo += c
	}
}

func insertion(r []Rec) {
	for i := 1; i < len(r); i++ {
		x := r[i]
		j := i
		for j > 0 && Less(&x, &r[j-1]) {
			r[j] = r[j-1]
			j--
		}
		r[j] = x
	}
}

// Source yields records in sorted order; Next returns false at the end.
type Source interface {
	Next() (Rec, bool, error)
}

// SliceSource reads a sorted slice.
type SliceSource struct {
	R []Rec
	i int
}

// Next implements Source.
func (s *SliceSource) Next() (Rec, bool, error) {
	if s.i >= len(s.R) {
		return Rec{}, false, nil
	}
	s.i++
	return s.R[s.i-1], true, nil
}

// Merge calls each with every record of the sorted sources in key order
// (a k-way merge; the sources are few, so a linear scan for the smallest
// head beats a heap).
func Merge(srcs []Source, each func(*Rec)) error {
	type head struct {
		r   Rec
		src Source
	}
	heads := make([]head, 0, len(srcs))
	for _, s := range srcs {
		r, ok, err := s.Next()
		if err != nil {
			return err
		}
		if ok {
			heads = append(heads, head{r, s})
		}
	}
	for len(heads) > 0 {
		m := 0
		for i := 1; i < len(heads); i++ {
			if Less(&heads[i].r, &heads[m].r) {
				m = i
			}
		}
		each(&heads[m].r)
		r, ok, err := heads[m].src.Next()
		if err != nil {
			return err
		}
		if ok {
			heads[m].r = r
		} else {
			heads = slices.Delete(heads, m, m+1)
		}
	}
	return nil
}

// Store collects records under a memory budget: when it is full and the
// budget is passed, it sorts what it holds, writes it as a run and starts
// again in the same memory.
type Store struct {
	recs   []Rec
	runs   []string
	budget *spill.Budget
}

// recBytes is the size of one Rec.
const recBytes = 24

// MinStoreCap is the smallest store; tests lower it to spill tiny traces.
var MinStoreCap = 1024

// stores is about how many stores share one budget (see spill.Budget.Grow).
const stores = 16

// NewStore makes a store for about capHint records (capped by the
// budget's share of a store).
func NewStore(capHint int, b *spill.Budget) *Store {
	if lim := b.Limit(); lim > 0 {
		capHint = min(capHint, int(lim/stores/recBytes))
	}
	capHint = max(capHint, MinStoreCap)
	b.Charge(int64(capHint) * recBytes)
	return &Store{recs: make([]Rec, 0, capHint), budget: b}
}

// Add appends r.
func (s *Store) Add(r Rec) {
	if len(s.recs) == cap(s.recs) {
		c := cap(s.recs)
		if !s.budget.Over(int64(c)*recBytes, stores) || !s.spill() {
			s.recs = slices.Grow(s.recs, max(c/4, 4096))
			s.budget.Charge(int64(cap(s.recs)-c) * recBytes)
		}
	}
	s.recs = append(s.recs, r)
}

// spill writes the records as a sorted run; false if writing failed (the
// error is kept in the budget and the records stay in memory).
func (s *Store) spill() bool {
	Sort(s.recs)
	path, err := s.budget.WriteRun(3*len(s.recs), func(i int) uint64 {
		r := &s.recs[i/3]
		switch i % 3 {
		case 0:
			return r.K[0]
		case 1:
			return r.K[1]
		}
		return r.V
	})
	if err != nil {
		s.budget.Fail(err)
		return false
	}
	s.runs = append(s.runs, path)
	s.recs = s.recs[:0]
	return true
}

// Len is the number of records in memory.
func (s *Store) Len() int { return len(s.recs) }

// Spilled reports whether the store wrote runs.
func (s *Store) Spilled() bool { return len(s.runs) > 0 }

// Sources sorts the records in memory and returns them and every run as
// sorted sources for Merge; close closes the runs.
func (s *Store) Sources() (srcs []Source, close func(), err error) {
	Sort(s.recs)
	srcs = append(srcs, &SliceSource{R: s.recs})
	var open []*spill.Reader
	close = func() {
		for _, r := range open {
			r.Close()
		}
	}
	for _, p := range s.runs {
		r, err := spill.Open(p)
		if err != nil {
			close()
			return nil, nil, err
		}
		open = append(open, r)
		srcs = append(srcs, &fileSource{r})
	}
	return srcs, close, nil
}

type fileSource struct{ r *spill.Reader }

func (f *fileSource) Next() (Rec, bool, error) {
	var w [3]uint64
	for i := range w {
		v, ok, err := f.r.Next()
		if err != nil || !ok {
			return Rec{}, false, err
		}
		w[i] = v
	}
	return Rec{K: [2]uint64{w[0], w[1]}, V: w[2]}, true, nil
}
