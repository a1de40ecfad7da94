package metrics

import (
	"math"
	"slices"
	"unsafe"

	"github.com/llmperf-course/course/coursekit/internal/minheap"

	"github.com/llmperf-course/course/coursekit/internal/spill"
)

// chunkLen is the size of one block of samples: large enough to amortise,
// small enough that growing never copies or strands big arrays.
const chunkLen = 1 << 16

// samples holds millions of non-negative latencies in fixed-size chunks.
// Appending never copies, so the peak memory of a card stays close to the
// data it needs, and ranks are read by radix selection without sorting.
type samples struct {
	chunks [][]float64
	n      int             // values added, in memory and spilled
	signed bool            // a negative value was added: fall back to sorting
	memo   map[int]float64 // ranks selected by prepare

	budget *spill.Budget // nil: no limit
	runs   []string      // sorted runs of order keys spilled to disk
	held   int64         // bytes of full chunks charged to budget
}

// budgetChunkLen ends a chunk of a store under a budget early; tests
// lower it so that tiny traces spill.
var budgetChunkLen = chunkLen

// sampleStores is about how many sample stores share a budget.
const sampleStores = 16

func (s *samples) add(v float64) {
	switch {
	case len(s.chunks) == 0:
		// Small traces stay small: the first chunk grows by appending.
		s.chunks = append(s.chunks, make([]float64, 0, 16))
	case len(s.chunks[len(s.chunks)-1]) == chunkLen || (s.budget != nil && len(s.chunks[len(s.chunks)-1]) == budgetChunkLen):
		if s.budget.Over(s.held, sampleStores) && s.spill() {
			s.chunks = append(s.chunks, make([]float64, 0, 16))
			break
		}
		s.chunks = append(s.chunks, make([]float64, 0, chunkLen))
		s.budget.Charge(chunkLen * 8)
		s.held += chunkLen * 8
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, v+0) // +0 turns -0 into 0, so bit order is value order
	s.n++
	if v < 0 || v != v {
		s.signed = true
	}
}

// merge takes o's chunks and runs; o must not be used afterwards.
func (s *samples) merge(o *samples) {
	s.chunks = append(s.chunks, o.chunks...)
	s.runs = append(s.runs, o.runs...)
	s.n += o.n
	s.held += o.held
	s.signed = s.signed || o.signed
	if s.budget == nil {
		s.budget = o.budget
	}
}

// orderKey maps a float's bits to a word whose unsigned order is the
// float's order, negative values included.
func orderKey(v float64) uint64 {
	b := math.Float64bits(v)
	return b ^ (uint64(int64(b)>>63) | 1<<63)
}

func fromOrderKey(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k ^ 1<<63)
	}
	return math.Float64frombits(^k)
}

// spill writes the values in memory as one sorted run and frees them;
// false if writing failed (the error is kept in the budget, the values
// stay in memory). Each chunk is turned into order keys and sorted in
// place, and the chunks are merged into the file: no copy of the values.
func (s *samples) spill() bool {
	chunks := make([][]uint64, len(s.chunks))
	total := 0
	for i, c := range s.chunks {
		k := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(c))), len(c))
		for j, v := range c {
			k[j] = orderKey(v)
		}
		slices.Sort(k)
		chunks[i] = k
		total += len(k)
	}
	// A min-heap of the chunks' heads: a run holds hundreds of chunks.
	type head struct {
		c []uint64
		i int
	}
	heads := make([]head, 0, len(chunks))
	for _, c := range chunks {
		if len(c) > 0 {
			heads = append(heads, head{c, 0})
		}
	}
	less := func(a, b *head) bool { return a.c[a.i] < b.c[b.i] }
	minheap.Init(heads, less)
	path, err := s.budget.WriteRun(total, func(int) uint64 {
		h := &heads[0]
		v := h.c[h.i]
		h.i++
		if h.i == len(h.c) {
			heads[0] = heads[len(heads)-1]
			heads = heads[:len(heads)-1]
		}
		if len(heads) > 0 {
			minheap.Down(heads, 0, less)
		}
		return v
	})
	if err != nil {
		// Back to values, in the sorted order: the sample is a multiset.
		for i, c := range s.chunks {
			for j := range c {
				c[j] = fromOrderKey(chunks[i][j])
			}
		}
		s.budget.Fail(err)
		return false
	}
	s.runs = append(s.runs, path)
	clear(s.chunks) // let the collector have them
	s.chunks = s.chunks[:0]
	s.budget.Charge(-s.held)
	s.held = 0
	return true
}

func (s *samples) inMemory() int {
	n := 0
	for _, c := range s.chunks {
		n += len(c)
	}
	return n
}

// selectSpilled finds the value at every 0-based rank in ks by merging
// the sorted runs (what was still in memory is spilled first), counting
// values in order: one sequential read of the runs, exact.
func (s *samples) selectSpilled(ks []int) map[int]float64 {
	out := make(map[int]float64, len(ks))
	if s.inMemory() > 0 && !s.spill() {
		return out
	}
	want := slices.Clone(ks)
	slices.Sort(want)
	want = slices.Compact(want)
	type head struct {
		k uint64
		r *spill.Reader
	}
	var heads []head
	var all []*spill.Reader
	defer func() {
		for _, r := range all {
			r.Close()
		}
	}()
	for _, p := range s.runs {
		r, err := spill.Open(p)
		if err != nil {
			s.budget.Fail(err)
			return out
		}
		all = append(all, r)
		if k, ok, err := r.Next(); err != nil {
			s.budget.Fail(err)
			return out
		} else if ok {
			heads = append(heads, head{k, r})
		}
	}
	heads = heads[:len(heads):len(heads)]
	// A binary min-heap on the head keys.
	less := func(a, b *head) bool { return a.k < b.k }
	minheap.Init(heads, less)
	rank, w := 0, 0
	for len(heads) > 0 && w < len(want) {
		k := heads[0].k
		for w < len(want) && want[w] == rank {
			out[rank] = fromOrderKey(k)
			w++
		}
		rank++
		nk, ok, err := heads[0].r.Next()
		if err != nil {
			s.budget.Fail(err)
			return out
		}
		if ok {
			heads[0].k = nk
		} else {
			heads[0] = heads[len(heads)-1]
			heads = heads[:len(heads)-1]
		}
		if len(heads) > 0 {
			minheap.Down(heads, 0, less)
		}
	}
	return out
}

func samplesOf(x []float64) *samples {
	s := &samples{}
	for _, v := range x {
		s.add(v)
	}
	return s
}

func (s *samples) each(f func(v float64)) {
	for _, c := range s.chunks {
		for _, v := range c {
			f(v)
		}
	}
}

// ranks returns the k-th smallest value (0-based) for every k in ks.
// Values found before (prepare) are read from the memo.
func (s *samples) ranks(ks []int) []float64 {
	out := make([]float64, len(ks))
	var miss []int
	for i, k := range ks {
		if v, ok := s.memo[k]; ok {
			out[i] = v
		} else {
			miss = append(miss, k)
		}
	}
	if len(miss) == 0 {
		return out
	}
	var got map[int]float64
	if len(s.runs) > 0 {
		got = s.selectSpilled(miss)
	} else {
		got = s.selectRanks(miss)
	}
	for i, k := range ks {
		if v, ok := s.memo[k]; ok {
			out[i] = v
		} else {
			out[i] = got[k]
		}
	}
	return out
}

// prepare selects every rank in ks in one go and keeps them for ranks.
func (s *samples) prepare(ks []int) {
	if len(ks) == 0 {
		return
	}
	if len(s.runs) > 0 {
		s.memo = s.selectSpilled(ks)
		return
	}
	if s.signed || s.n < smallSample {
		return
	}
	s.memo = s.selectRanks(ks)
}

// selectRanks finds the value at every 0-based rank in ks.
//
// For non-negative floats the IEEE bit pattern orders like the value, so
// ranks are found by counting instead of sorting: one pass counts the top
// 16 bits of every value, which names the bucket holding each rank; a
// second pass counts the next 16 bits of the values in those buckets
// only; a third gathers the few values that share the 32-bit prefix of a
// rank, which are sorted to read it off. Exact, three passes for any
// number of ranks, no copy of the sample.
func (s *samples) selectRanks(ks []int) map[int]float64 {
	var hist [1 << 16]uint32
	for _, c := range s.chunks {
		for _, v := range c {
			hist[math.Float64bits(v)>>48]++
		}
	}
	// Each wanted rank: its top-16 bucket and its rank within.
	type want struct {
		k, top, rank int
		next, rank2  int // after the second pass
		list         int // index of its gathered values
	}
	ws := make([]want, len(ks))
	var mark [1 << 16]int32 // top bucket → 1 + index into buckets
	var buckets []int
	for i, k := range ks {
		r := k
		b := 0
		for ; b < len(hist); b++ {
			if r < int(hist[b]) {
				break
			}
			r -= int(hist[b])
		}
		ws[i] = want{k: k, top: b, rank: r}
		if mark[b] == 0 {
			buckets = append(buckets, b)
			mark[b] = int32(len(buckets))
		}
	}
	hist2 := make([][]int32, len(buckets))
	for i := range hist2 {
		hist2[i] = make([]int32, 1<<16)
	}
	for _, c := range s.chunks {
		for _, v := range c {
			bits := math.Float64bits(v)
			if m := mark[bits>>48]; m != 0 {
				hist2[m-1][(bits>>32)&0xffff]++
			}
		}
	}
	type list struct {
		top, next int
		vals      []uint64
	}
	var lists []list
	for i := range ws {
		w := &ws[i]
		h := hist2[mark[w.top]-1]
		r := w.rank
		b := 0
		for ; b < len(h); b++ {
			if r < int(h[b]) {
				break
			}
			r -= int(h[b])
		}
		w.next, w.rank2 = b, r
		w.list = -1
		for j, l := range lists {
			if l.top == w.top && l.next == b {
				w.list = j
			}
		}
		if w.list < 0 {
			lists = append(lists, list{top: w.top, next: b})
			w.list = len(lists) - 1
		}
	}
	// hist2 becomes the map from the next 16 bits to 1 + the list index.
	for _, h := range hist2 {
		clear(h)
	}
	for j, l := range lists {
		hist2[mark[l.top]-1][l.next] = int32(j + 1)
	}
	for _, c := range s.chunks {
		for _, v := range c {
			bits := math.Float64bits(v)
			if m := mark[bits>>48]; m != 0 {
				if j := hist2[m-1][(bits>>32)&0xffff]; j != 0 {
					lists[j-1].vals = append(lists[j-1].vals, bits)
				}
			}
		}
	}
	for _, l := range lists {
		slices.Sort(l.vals)
	}
	out := make(map[int]float64, len(ws))
	for _, w := range ws {
		out[w.k] = math.Float64frombits(lists[w.list].vals[w.rank2])
	}
	return out
}

// wantRanks lists every rank dist, ci95 and levels read under method m,
// so that prepare selects them all in one go.
func (s *samples) wantRanks(m Method, levels []float64) []int {
	n := s.n
	if n == 0 {
		return nil
	}
	var ks []int
	add := func(p float64) {
		if m == Linear {
			i := min(int(float64(n-1)*p), n-1)
			ks = append(ks, i, min(i+1, n-1))
		} else {
			ks = append(ks, NearestRankIndex(n, p))
		}
		l, u := QuantileRanks(n, p, Confidence)
		if l > 0 {
			ks = append(ks, l-1)
		}
		if u > 0 {
			ks = append(ks, u-1)
		}
	}
	for _, p := range Levels {
		add(p)
	}
	for _, p := range levels {
		add(p)
	}
	ks = append(ks, 0, n-1)
	slices.Sort(ks)
	return slices.Compact(ks)
}

// distAt is dist with the chosen levels (Dist.Chosen) as well, for a
// distribution summarised on its own.
func (s *samples) distAt(m Method, unit string, levels []float64) Dist {
	s.prepare(s.wantRanks(m, levels))
	d := s.dist(m, unit)
	d.Chosen = s.levels(m, levels)
	return d
}

// dist reads the report's levels, min and max.
func (s *samples) dist(m Method, unit string) Dist {
	d := Dist{Unit: unit, Method: m, N: s.n}
	if s.n == 0 {
		return d
	}
	n := s.n
	if len(s.runs) == 0 && (s.signed || n < smallSample) {
		return sortedDist(s, m, unit)
	}
	var ks []int
	for _, p := range Levels {
		if m == Linear {
			i := min(int(float64(n-1)*p), n-1)
			ks = append(ks, i, min(i+1, n-1))
		} else {
			ks = append(ks, NearestRankIndex(n, p))
		}
	}
	ks = append(ks, 0, n-1)
	v := s.ranks(ks)
	vals := make([]*float64, len(Levels))
	for i, p := range Levels {
		var x float64
		if m == Linear {
			h := float64(n-1) * p
			x = lerp(v[2*i], v[2*i+1], h-math.Floor(h))
			if int(h) >= n-1 {
				x = v[2*i]
			}
		} else {
			x = v[i]
		}
		vals[i] = &x
	}
	d.P50, d.P90, d.P95, d.P99 = vals[0], vals[1], vals[2], vals[3]
	lo, hi := v[len(v)-2], v[len(v)-1]
	d.Min, d.Max = &lo, &hi
	return d
}

// smallSample is where sorting a copy beats four 64K-bucket counting passes.
const smallSample = 1 << 15

// sortedDist is the general path: for small samples, and for samples the
// radix selection cannot order (negative values, which traces never produce).
func sortedDist(s *samples, m Method, unit string) Dist {
	x := make([]float64, 0, s.n)
	s.each(func(v float64) { x = append(x, v) })
	slices.Sort(x)
	d := Dist{Unit: unit, Method: m, N: s.n}
	at := func(p float64) *float64 {
		v, _ := Quantile(x, p, m)
		return &v
	}
	d.P50, d.P90, d.P95, d.P99 = at(0.50), at(0.90), at(0.95), at(0.99)
	d.Min, d.Max = &x[0], &x[len(x)-1]
	return d
}
