package trace

import (
	"sync"
	"sync/atomic"
)

// idSet finds duplicate attempt ids on the parsing goroutines. Looking up
// millions of ids is mostly cache misses, so the set is sharded by key and
// filled in parallel instead of on the goroutine that keeps file order.
type idSet struct {
	shards [64]struct {
		mu sync.Mutex
		m  map[Key]int // key → smallest line seen so far
	}
	mu   sync.Mutex
	dups map[int]int // a duplicate's line → the first line of its id
	n    atomic.Int64
}

func newIDSet() *idSet {
	s := &idSet{dups: map[int]int{}}
	for i := range s.shards {
		s.shards[i].m = map[Key]int{}
	}
	return s
}

// add records an id seen on line. Whatever order blocks are parsed in, the
// duplicate with the smallest line ends up recorded with the first line of
// its id, which is the error a sequential reader would give.
func (s *idSet) add(k Key, line int) {
	sh := &s.shards[k[0]&63]
	sh.mu.Lock()
	first, ok := sh.m[k]
	if !ok || line < first {
		sh.m[k] = line
	}
	sh.mu.Unlock()
	if !ok {
		return
	}
	second := max(line, first)
	first = min(line, first)
	s.mu.Lock()
	if f, seen := s.dups[second]; !seen || first < f {
		s.dups[second] = first
	}
	s.mu.Unlock()
	s.n.Add(1)
}

// firstIn returns the smallest duplicate line in [lo, hi] and its first line.
func (s *idSet) firstIn(lo, hi int) (line, first int, ok bool) {
	if s.n.Load() == 0 {
		return 0, 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for l, f := range s.dups {
		if l >= lo && l <= hi && (!ok || l < line) {
			line, first, ok = l, f, true
		}
	}
	return line, first, ok
}
