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
