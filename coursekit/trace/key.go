package trace

import "hash/maphash"

// Key is a 128-bit hash of an attempt or request id, for grouping millions
// of attempts without hashing and comparing their strings again. Equal ids
// have equal keys within a process; two different ids share a key with
// probability about 2⁻¹²⁸, far below any hardware error rate.
type Key [2]uint64

var seedA, seedB = maphash.MakeSeed(), maphash.MakeSeed()

// KeyOf hashes an id.
func KeyOf(id string) Key {
	return Key{maphash.String(seedA, id), maphash.String(seedB, id)}
}

// RequestKey is the key of the attempt's request id. The reader fills it in
// on its parsing goroutines, so that aggregation need not hash strings.
func (a *Attempt) RequestKey() Key {
	if a.reqKey == (Key{}) {
		a.reqKey = KeyOf(a.Request)
	}
	return a.reqKey
}
