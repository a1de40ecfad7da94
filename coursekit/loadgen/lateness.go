package loadgen

import (
	"strconv"
	"sync"
	"time"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// The client's own lateness. Every stamp of the trace (send, each event,
// the end) is taken when a goroutine of this process runs; on a loaded
// machine it runs late, and the stamp with it. A probe goroutine wakes on
// a monotonic ticker every LatenessTick and records how long after the
// tick was due it ran: the wake-up lag any of the client's goroutines
// could have had then. Each attempt records in meta.client_lag_ms the
// largest lag of the ticks during its life (from its send to its end), the
// run its distribution (Result.ClientLag), and the card notes the attempts
// over metrics.ClientLagBoundMS.

// LatenessTick is how often the lateness probe wakes.
const LatenessTick = metrics.ClientLagTickMS * time.Millisecond

// latenessBucket is the span of trace time whose ticks keep one maximum.
const latenessBucket = 50 * time.Millisecond

type latenessProbe struct {
	start time.Time
	mu    sync.Mutex
	maxUS []uint32 // per latenessBucket of the run clock: the largest lag of its ticks, µs
	lags  []float64
	done  chan struct{}
	wg    sync.WaitGroup
}

// startLateness starts the probe on the run clock that begins at start.
func startLateness(start time.Time) *latenessProbe {
	p := &latenessProbe{start: start, done: make(chan struct{})}
	p.wg.Go(func() {
		t := time.NewTicker(LatenessTick)
		defer t.Stop()
		for {
			select {
			case due := <-t.C: // the time the tick was due (the runtime subtracts its own delay)
				p.record(due, time.Since(due))
			case <-p.done:
				return
			}
		}
	})
	return p
}

func (p *latenessProbe) record(due time.Time, lag time.Duration) {
	i := int(due.Sub(p.start) / latenessBucket)
	if i < 0 {
		return
	}
	// One number per tick, rounded to the µs of the trace clock: the
	// attempts' meta.client_lag_ms (the card's "at most") and the run's
	// distribution (bench's "max") read the same tick as the same figure
	// (walk 35l: 381.334 truncated in the meta, 381.335 rounded in the
	// distribution).
	us := uint32(min(lag.Round(time.Microsecond).Microseconds(), 1<<31))
	p.mu.Lock()
	for len(p.maxUS) <= i {
		p.maxUS = append(p.maxUS, 0)
	}
	p.maxUS[i] = max(p.maxUS[i], us)
	p.lags = append(p.lags, float64(us)/1e3)
	p.mu.Unlock()
}

// maxDuring is the largest lag of the ticks due in [fromMS, toMS] of the
// run clock, in ms (0 when none was recorded yet).
func (p *latenessProbe) maxDuring(fromMS, toMS float64) float64 {
	b := float64(latenessBucket.Milliseconds())
	lo, hi := int(max(fromMS, 0)/b), int(max(toMS, 0)/b)
	p.mu.Lock()
	defer p.mu.Unlock()
	var m uint32
	for i := lo; i <= hi && i < len(p.maxUS); i++ {
		m = max(m, p.maxUS[i])
	}
	return float64(m) / 1e3
}

// appendMeta adds "client_lag_ms" to an attempt's meta object.
func (p *latenessProbe) appendMeta(meta []byte, fromMS, toMS float64) []byte {
	if len(meta) == 0 || meta[len(meta)-1] != '}' {
		return meta
	}
	meta = append(meta[:len(meta)-1], `,"client_lag_ms":`...)
	meta = strconv.AppendFloat(meta, p.maxDuring(fromMS, toMS), 'f', -1, 64)
	return append(meta, '}')
}

// stop ends the probe and returns the run's lag distribution.
func (p *latenessProbe) stop() LagStats {
	close(p.done)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return lagStats(p.lags)
}
