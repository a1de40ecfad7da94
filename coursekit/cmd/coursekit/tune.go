package main

import (
	"os"
	"runtime/debug"
	"runtime/pprof"
)

// tuneForStamping prepares a process that stamps (bench) or sends (sim)
// stream events: an optional CPU profile, and, unless GOGC is set, a
// collector that runs less often. Both processes keep small heaps
// (attempts are written as they end), so the memory cost is small, and the
// collector's CPU and assists stay away from the goroutines whose wake-up
// time is the measurement. stop undoes both.
func tuneForStamping(cpuprofile string) (stop func(), err error) {
	var undo []func()
	if cpuprofile != "" {
		pf, err := os.Create(cpuprofile)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			pf.Close()
			return nil, err
		}
		undo = append(undo, func() { pprof.StopCPUProfile(); pf.Close() })
	}
	if os.Getenv("GOGC") == "" {
		old := debug.SetGCPercent(400)
		undo = append(undo, func() { debug.SetGCPercent(old) })
	}
	return func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}, nil
}
