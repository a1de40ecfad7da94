//go:build race

package loadgen_test

// raceEnabled: the race detector slows every goroutine several times, so
// timing bounds are not asserted under it.
const raceEnabled = true
