package sim

import (
	"sync"
	"sync/atomic"
	"time"
)

// seq is one generation in the engine: waiting in the queue, then in the
// running batch until it has produced its target number of tokens.
type seq struct {
	input     int
	target    int
	produced  int
	prefilled bool
	// out receives one value per step that produced a token, and is closed
	// after the last one. Its capacity is target, so the executor never
	// blocks on a slow reader.
	out  chan struct{}
	gone atomic.Bool // the client left; drop it at the next step
}

// executor is the continuous-batching loop: before every step it fills the
// batch from the queue, and every sequence in the batch produces one token
// per step. New sequences pay their prefill inside the step that admits
// them, which is what makes a long prompt slow everyone's next token.
type executor struct {
	s     *Server
	mu    sync.Mutex
	queue []*seq
	gone  atomic.Int64 // hint: some queued sequence was abandoned
	wake  chan struct{}
	batch []*seq // only touched by run

	queueLen, batchLen atomic.Int64

	busyMu  sync.Mutex
	busy    []span       // finished steps, merged when back to back
	running atomic.Int64 // start (ns since server start) of the busy span under way, or -1
	// busyNS is the total of all finished busy spans (ns), for the busy-seconds
	// counter: unlike the windowed gauge, its rate over any interval is
	// exact, whatever happened before it.
	busyNS int64
}

type span struct{ from, to int64 } // ns since server start

func newExecutor(s *Server) *executor {
	e := &executor{s: s, wake: make(chan struct{}, 1)}
	e.running.Store(-1)
	return e
}

func (e *executor) submit(q *seq) {
	e.mu.Lock()
	e.queue = append(e.queue, q)
	e.queueLen.Store(int64(len(e.queue)))
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// abandon marks q as gone; the executor drops it before its next step.
func (e *executor) abandon(q *seq) {
	if !q.gone.Swap(true) {
		e.gone.Add(1)
		select { // wake an idle executor so the queue gauge drops it now
		case e.wake <- struct{}{}:
		default:
		}
	}
}

func (e *executor) run() {
	cfg := e.s.cfg
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	// lastEnd is when the previous step ended if the batch has not been empty
	// since, else -1. The host work between two steps (handing out tokens,
	// refilling the batch) counts as busy: a CPU-starved executor would
	// otherwise read idle with a queue waiting, which no engine's device is.
	lastEnd := int64(-1)
	for {
		// Drop sequences whose client left, then refill the batch from the queue.
		kept := e.batch[:0]
		for _, q := range e.batch {
			if !q.gone.Load() {
				kept = append(kept, q)
			}
		}
		clear(e.batch[len(kept):])
		e.batch = kept
		e.mu.Lock()
		if e.gone.Swap(0) > 0 {
			kept := e.queue[:0]
			for _, q := range e.queue {
				if !q.gone.Load() {
					kept = append(kept, q)
				}
			}
			clear(e.queue[len(kept):])
			e.queue = kept
		}
		for len(e.batch) < cfg.MaxBatch && len(e.queue) > 0 {
			q := e.queue[0]
			e.queue[0] = nil
			e.queue = e.queue[1:]
			if !q.gone.Load() {
				e.batch = append(e.batch, q)
			}
		}
		e.queueLen.Store(int64(len(e.queue)))
		e.mu.Unlock()

		e.batchLen.Store(int64(len(e.batch)))
		if len(e.batch) == 0 {
			if lastEnd >= 0 {
				e.endSpan(lastEnd, false)
				lastEnd = -1
			}
			select {
			case <-e.wake:
				continue
			case <-e.s.quit:
				return
			}
		}

		prefill := 0
		for _, q := range e.batch {
			if !q.prefilled {
				prefill += q.input
			}
		}
		d := time.Duration(prefill)*cfg.PrefillPerToken + cfg.DecodeStep + time.Duration(len(e.batch)-1)*cfg.DecodePerSeq
		d = time.Duration(float64(d) * e.s.slowdown())

		from := int64(time.Since(e.s.start))
		if lastEnd >= 0 {
			from = lastEnd
		}
		e.running.Store(from)
		timer.Reset(d)
		select {
		case <-timer.C:
		case <-e.s.quit:
			return
		}
		lastEnd = e.endSpan(from, true)

		made := len(e.batch)
		kept = e.batch[:0]
		for _, q := range e.batch {
			q.prefilled = true
			q.produced++
			q.out <- struct{}{}
			if q.produced >= q.target {
				close(q.out)
				continue
			}
			kept = append(kept, q)
		}
		clear(e.batch[len(kept):])
		e.batch = kept
		e.s.tokens.Add(float64(made))
	}
}

// endSpan records the busy span from from to now and returns its end; with
// more, the engine still holds a batch and the counter keeps running from
// there. The end is read under busyMu, so busySeconds never goes backwards.
func (e *executor) endSpan(from int64, more bool) int64 {
	e.busyMu.Lock()
	defer e.busyMu.Unlock()
	to := int64(time.Since(e.s.start))
	e.busyNS += to - from
	if more {
		e.running.Store(to)
	} else {
		e.running.Store(-1)
	}
	e.addBusy(from, to)
	return to
}

// addBusy adds a finished step to the gauge's spans; busyMu is held.
func (e *executor) addBusy(from, to int64) {
	const merge = int64(100 * time.Microsecond) // scheduling gaps between back-to-back steps
	if n := len(e.busy); n > 0 && from-e.busy[n-1].to < merge {
		e.busy[n-1].to = to
	} else {
		e.busy = append(e.busy, span{from, to})
	}
	// Prune what no window can see any more.
	horizon := to - int64(e.s.cfg.BusyWindow)
	i := 0
	for i < len(e.busy) && e.busy[i].to < horizon {
		i++
	}
	if i > 0 {
		e.busy = append(e.busy[:0], e.busy[i:]...)
	}
}

// busyFraction is the fraction of the last BusyWindow (or of the server's
// life, if shorter) during which the engine held a batch. It is what a GPU
// utilization gauge shows: it says the device was working, not that anyone
// was served quickly.
func (e *executor) busyFraction() float64 {
	now := int64(time.Since(e.s.start))
	from := max(now-int64(e.s.cfg.BusyWindow), 0)
	if now <= from {
		return 0
	}
	var sum int64
	e.busyMu.Lock()
	for _, b := range e.busy {
		lo, hi := max(b.from, from), min(b.to, now)
		if hi > lo {
			sum += hi - lo
		}
	}
	e.busyMu.Unlock()
	if r := e.running.Load(); r >= 0 {
		sum += now - max(r, from)
	}
	return min(float64(sum)/float64(now-from), 1)
}

// busySeconds is the total time the engine has held a batch since the
// server started (steps and the host work between them), the step under way included: a counter whose rate over an
// interval is the busy fraction of exactly that interval.
func (e *executor) busySeconds() float64 {
	e.busyMu.Lock()
	defer e.busyMu.Unlock()
	sum := e.busyNS
	if r := e.running.Load(); r >= 0 {
		sum += max(int64(time.Since(e.s.start))-r, 0)
	}
	return float64(sum) / 1e9
}
