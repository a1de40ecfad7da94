package keyrec

import (
	"slices"

	"github.com/llmperf-course/course/coursekit/internal/minheap"

	"github.com/llmperf-course/course/coursekit/internal/spill"
)

// Words collects 64-bit words (hashes) under a memory budget, spilling
// sorted runs like Store; AnyRepeated then tells whether a word was added
// twice.
type Words struct {
	w      []uint64
	runs   []string
	budget *spill.Budget
}

// NewWords makes a word store for about capHint words.
func NewWords(capHint int, b *spill.Budget) *Words {
	if lim := b.Limit(); lim > 0 {
		capHint = min(capHint, int(lim/stores/8))
	}
	capHint = max(capHint, MinStoreCap)
	b.Charge(int64(capHint) * 8)
	return &Words{w: make([]uint64, 0, capHint), budget: b}
}

// Add appends x.
func (s *Words) Add(x uint64) {
	if len(s.w) == cap(s.w) {
		c := cap(s.w)
		if !s.budget.Over(int64(c)*8, stores) || !s.spill() {
			s.w = slices.Grow(s.w, max(c/4, 4096))
			s.budget.Charge(int64(cap(s.w)-c) * 8)
		}
	}
	s.w = append(s.w, x)
}

func (s *Words) spill() bool {
	slices.Sort(s.w)
	path, err := s.budget.WriteRun(len(s.w), func(i int) uint64 { return s.w[i] })
	if err != nil {
		s.budget.Fail(err)
		return false
	}
	s.runs = append(s.runs, path)
	s.w = s.w[:0]
	return true
}

// AnyRepeated reports whether any word was added twice to the stores
// together: their words in memory are sorted in place and merged with
// their runs.
func AnyRepeated(stores []*Words) (bool, error) {
	type head struct {
		v    uint64
		next func() (uint64, bool, error)
	}
	var heads []head
	var open []*spill.Reader
	defer func() {
		for _, r := range open {
			r.Close()
		}
	}()
	for _, s := range stores {
		if s == nil {
			continue
		}
		slices.Sort(s.w)
		w := s.w
		i := 0
		srcs := []func() (uint64, bool, error){func() (uint64, bool, error) {
			if i == len(w) {
				return 0, false, nil
			}
			i++
			return w[i-1], true, nil
		}}
		for _, p := range s.runs {
			r, err := spill.Open(p)
			if err != nil {
				return false, err
			}
			open = append(open, r)
			srcs = append(srcs, r.Next)
		}
		for _, next := range srcs {
			v, ok, err := next()
			if err != nil {
				return false, err
			}
			if ok {
				heads = append(heads, head{v, next})
			}
		}
	}
	less := func(a, b *head) bool { return a.v < b.v }
	minheap.Init(heads, less)
	have, prev := false, uint64(0)
	for len(heads) > 0 {
		v := heads[0].v
		if have && v == prev {
			return true, nil
		}
		have, prev = true, v
		nv, ok, err := heads[0].next()
		if err != nil {
			return false, err
		}
		if ok {
			heads[0].v = nv
		} else {
			heads[0] = heads[len(heads)-1]
			heads = heads[:len(heads)-1]
		}
		if len(heads) > 0 {
			minheap.Down(heads, 0, less)
		}
	}
	return false, nil
}
