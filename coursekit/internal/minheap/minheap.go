// Package minheap keeps a binary min-heap in the caller's own slice. The
// k-way merges of sorted runs (metrics' spilled samples, keyrec's spilled
// keys) use it with their own order and replace the top in place, which
// container/heap's Push/Pop interface does not fit.
package minheap

// Init orders h into a min-heap under less.
func Init[T any](h []T, less func(a, b *T) bool) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		Down(h, i, less)
	}
}

// Down moves h[i] down until neither child is smaller: after the top was
// replaced, Down(h, 0, less) restores the heap.
func Down[T any](h []T, i int, less func(a, b *T) bool) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && less(&h[r], &h[l]) {
			m = r
		}
		if !less(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
