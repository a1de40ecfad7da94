package metrics

import (
	"math"
	"slices"
)

// chunkLen is the size of one block of samples: large enough to amortise,
// small enough that growing never copies or strands big arrays.
const chunkLen = 1 << 16

// samples holds millions of non-negative latencies in fixed-size chunks.
// Appending never copies, so the peak memory of a card stays close to the
// data it needs, and ranks are read by radix selection without sorting.
type samples struct {
	chunks [][]float64
	n      int
	signed bool // a negative value was added: fall back to sorting
}

func (s *samples) add(v float64) {
	switch {
	case len(s.chunks) == 0:
		// Small traces stay small: the first chunk grows by appending.
		s.chunks = append(s.chunks, make([]float64, 0, 16))
	case len(s.chunks[len(s.chunks)-1]) == chunkLen:
		s.chunks = append(s.chunks, make([]float64, 0, chunkLen))
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, v+0) // +0 turns -0 into 0, so bit order is value order
	s.n++
	if v < 0 || v != v {
		s.signed = true
	}
}

// merge takes o's chunks; o must not be used afterwards.
func (s *samples) merge(o *samples) {
	s.chunks = append(s.chunks, o.chunks...)
	s.n += o.n
	s.signed = s.signed || o.signed
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
//
// For non-negative floats the IEEE bit pattern orders like the value, so
// the k-th value is found 16 bits at a time: count the top 16 bits, pick
// the bucket that holds rank k, then count the next 16 bits among values
// in that bucket, and so on. Four counting passes, exact, no extra copy.
func (s *samples) ranks(ks []int) []float64 {
	type target struct {
		k      int    // rank still to find within values matching prefix
		prefix uint64 // the high bits found so far
		hist   []uint32
	}
	ts := make([]target, len(ks))
	for i, k := range ks {
		ts[i] = target{k: k, hist: make([]uint32, 1<<16)}
	}
	for pass := range 4 {
		shift := uint(48 - 16*pass)
		if pass == 0 {
			h := ts[0].hist
			for _, c := range s.chunks {
				for _, v := range c {
					h[math.Float64bits(v)>>48]++
				}
			}
			for i := 1; i < len(ts); i++ {
				copy(ts[i].hist, h)
			}
		} else {
			for i := range ts {
				clear(ts[i].hist)
			}
			for _, c := range s.chunks {
				for _, v := range c {
					b := math.Float64bits(v)
					hi := b >> (shift + 16)
					for i := range ts {
						if hi == ts[i].prefix {
							ts[i].hist[(b>>shift)&0xffff]++
						}
					}
				}
			}
		}
		for i := range ts {
			t := &ts[i]
			for bucket, c := range t.hist {
				if t.k < int(c) {
					t.prefix = t.prefix<<16 | uint64(bucket)
					break
				}
				t.k -= int(c)
			}
		}
	}
	out := make([]float64, len(ts))
	for i, t := range ts {
		out[i] = math.Float64frombits(t.prefix)
	}
	return out
}

// dist reads the report's levels, min and max.
func (s *samples) dist(m Method, unit string) Dist {
	d := Dist{Unit: unit, Method: m, N: s.n}
	if s.n == 0 {
		return d
	}
	n := s.n
	if s.signed || n < smallSample {
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
