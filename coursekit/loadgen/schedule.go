package loadgen

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/llmperf-course/course/coursekit/trace"
)

// sleepUntil waits until the run clock reaches at; false if ctx ended.
func (r *runner) sleepUntil(at time.Duration) bool {
	d := time.Until(r.start.Add(at))
	if d <= 0 {
		return r.ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.ctx.Done():
		return false
	}
}

// nextJob numbers the next business request; with a dataset, request n
// sends item n mod len(Items).
func (r *runner) nextJob(scheduled float64) job {
	n := r.ids.Add(1) - 1
	j := job{id: "q" + strconv.FormatInt(n, 10), scheduled: scheduled}
	if r.cfg.Dataset != nil {
		j.item = int(n % int64(len(r.cfg.Dataset.Items)))
	}
	return j
}

// openLoop sends on the schedule, whatever the server does: each request
// runs on its own goroutine, so a slow answer never delays the next send.
func (r *runner) openLoop() {
	var gap func() time.Duration
	if len(r.cfg.Replay) == 0 {
		gap, _ = Gaps(r.cfg.Arrival, r.cfg.Rate, r.cfg.Burstiness, r.cfg.Seed)
	}
	var at time.Duration
	for i := 0; ; i++ {
		if gap == nil {
			if i >= len(r.cfg.Replay) {
				return
			}
			at = time.Duration(r.cfg.Replay[i] * 1e6)
		} else if i > 0 {
			at += gap()
		}
		if at >= r.end || !r.sleepUntil(at) {
			return
		}
		if !r.acquire() {
			if r.ctx.Err() == nil {
				r.countUnsent(i, at, gap)
			}
			return
		}
		send, more := r.take(at)
		if !send {
			r.release()
			return
		}
		r.dispatch(r.nextJob(math.Round(ms(at)*1e3) / 1e3))
		if !more {
			return
		}
	}
}

// acquire waits for a free slot under MaxConcurrency; false when the
// window ended (or ctx) before one came free.
func (r *runner) acquire() bool {
	if r.slots == nil {
		return true
	}
	select {
	case r.slots <- struct{}{}:
		return true
	default:
	}
	left := time.Until(r.start.Add(r.end))
	if left <= 0 {
		return false
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case r.slots <- struct{}{}:
		if time.Since(r.start) < r.end {
			return true
		}
		<-r.slots
	case <-t.C:
	case <-r.ctx.Done():
	}
	return false
}

func (r *runner) release() {
	if r.slots != nil {
		<-r.slots
	}
}

// countUnsent counts arrival i (at at) and the later ones of the schedule
// in the window: never sent, so never in the trace.
func (r *runner) countUnsent(i int, at time.Duration, gap func() time.Duration) {
	for ; at < r.end; i++ {
		r.unsent.Add(1)
		if gap == nil {
			if i+1 >= len(r.cfg.Replay) {
				return
			}
			at = time.Duration(r.cfg.Replay[i+1] * 1e6)
		} else {
			at += gap()
		}
	}
}

// take counts a business request about to be sent at at: send is false
// once NumRequests requests of the window have been sent, more is false
// for the last of them.
func (r *runner) take(at time.Duration) (send, more bool) {
	if r.cfg.NumRequests <= 0 || at < r.cfg.Warmup {
		return true, true
	}
	switch n := r.windowReqs.Add(1); {
	case n > r.cfg.NumRequests:
		return false, false
	case n == r.cfg.NumRequests:
		r.capped.Store(true)
		return true, false
	}
	return true, true
}

// job is one business request.
type job struct {
	id        string
	scheduled float64
	item      int // the dataset item it sends
}

// dispatch hands j to an idle worker goroutine, or starts a new one if
// none is idle: a send never waits for an answer. Workers are kept for
// the next jobs instead of a goroutine per request, because a fresh
// goroutine grows its stack again through the HTTP client for every
// request (copying it each time), and waking a parked worker is as cheap
// as starting one.
func (r *runner) dispatch(j job) {
	select {
	case r.jobs <- j:
		return
	default:
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		idle := time.NewTimer(workerIdle)
		defer idle.Stop()
		for {
			r.request(j)
			r.release()
			idle.Reset(workerIdle)
			select {
			case j = <-r.jobs:
			case <-idle.C:
				return
			case <-r.stop:
				return
			}
		}
	}()
}

// workerIdle is how long an open-loop worker waits for its next job
// before it exits.
const workerIdle = 2 * time.Second

// A closed-loop user whose request ended in connect_error (nothing took
// the connection: the server is down or the URL wrong) waits before its
// next one, ConnectBackoffMin at first, doubled on each further
// connect_error up to ConnectBackoffMax, and not at all after any other
// outcome. Without it a crashed server's trace measured how fast the
// client resends (~21,000 connect errors a second), not the server.
const (
	ConnectBackoffMin = 10 * time.Millisecond
	ConnectBackoffMax = time.Second
)

// closedLoop runs Concurrency users; each waits for its previous request
// (and backs off after a connect_error).
func (r *runner) closedLoop() {
	for range r.cfg.Concurrency {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			var backoff time.Duration // after a connect_error (ConnectBackoffMin)
			for r.ctx.Err() == nil && time.Since(r.start) < r.end {
				now := r.now() // the planned send time counts, as in the open loop
				send, more := r.take(time.Duration(now * 1e6))
				if !send {
					return
				}
				if r.request(r.nextJob(now)) == trace.ConnectError {
					backoff = min(max(2*backoff, ConnectBackoffMin), ConnectBackoffMax)
				} else {
					backoff = 0
				}
				if !more {
					return
				}
				if backoff > 0 && !r.sleepUntil(time.Since(r.start)+backoff) {
					return
				}
				if r.cfg.ThinkTime > 0 && !r.sleepUntil(time.Since(r.start)+r.cfg.ThinkTime) {
					return
				}
			}
		}()
	}
}

// request makes the attempts of one business request: the first, then
// retries while the outcome is retryable. It returns the last attempt's
// outcome (0 when none was made).
func (r *runner) request(j job) trace.Outcome {
	id, scheduled := j.id, j.scheduled
	aid := id
	for try := 0; ; try++ {
		var text *answer
		if r.judging {
			text = texts.Get().(*answer)
		}
		a := r.attempt(aid, id, scheduled, j.item, text)
		if a == nil {
			if text != nil {
				texts.Put(text)
			}
			return 0
		}
		again := try < r.cfg.Retries && retryable(a) && r.ctx.Err() == nil
		out := a.Outcome
		r.emit(a, text, j.item) // the judges may now write a
		if !again {
			return out
		}
		wait := time.Since(r.start) + r.cfg.RetryBackoff
		if !r.sleepUntil(wait) {
			return out
		}
		scheduled = math.Round(ms(wait)*1e3) / 1e3
		aid = id + ".r" + strconv.Itoa(try+1)
	}
}

func retryable(a *trace.Attempt) bool {
	switch a.Outcome {
	case trace.ConnectError, trace.NoResponse, trace.Timeout:
		return true
	case trace.HTTPError:
		return a.HTTPStatus == http.StatusTooManyRequests || a.HTTPStatus >= 500
	}
	return false
}
