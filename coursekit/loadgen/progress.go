package loadgen

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// Progress is the live view of a run. Its TTFT percentiles and send lag
// P99 come from HDR histograms of the run so far (3 significant digits):
// good for watching, not for reporting. The line marks each of them "≈"
// (the final "done" line too); the card's are the exact nearest-rank values
// of the trace.
type Progress struct {
	Elapsed  time.Duration
	Phase    string // "warmup", "window", "drain" or "done"
	Sent     int64
	Done     int64
	InFlight int64
	Errors   int64 // attempts that ended in anything but ok or in_flight
	// Rate is sends per second over the trailing RateSpan (the reports of
	// the last 5 s, at least the previous interval): below 1/s a single
	// interval's count alternates 0.0/s and 1.0/s. On the final
	// report (Phase "done") it is the run's mean over RateOver, the time
	// sends could be made (the planned warm-up and window, cut by an
	// interrupt or by NumRequests), not the last interval's, in which
	// nothing is left to send.
	Rate     float64
	RateOver time.Duration // the final report's span of Rate; 0 on the others
	// RateSpan is a live report's span of Rate: the time since the oldest
	// report it counts from (at most RateSpan, or the previous interval
	// when that is longer); 0 on the first report and the final one.
	RateSpan time.Duration
	TTFTP50  float64 // ms; 0 before the first success (TTFTN 0)
	TTFTP95  float64
	TTFTN    int64 // complete successes the TTFT percentiles are over
	// LagP99 is the send lag's P99 so far (ms from scheduled to actual
	// send), shown as "send lag p99" when Scheduled: an open loop's sends
	// follow a schedule; a closed loop sends when an answer ends, so it
	// has no send lag to show.
	LagP99    float64
	Scheduled bool

	// Rated and Passes count the answers judged so far (with a Dataset).
	Rated, Passes int64
}

func (p Progress) String() string {
	ttft := "TTFT — (no answer yet)" // not 0 ms: there is no TTFT to show
	if p.TTFTN > 0 {
		ttft = fmt.Sprintf("TTFT p50 ≈%.1f ms p95 ≈%.1f ms", p.TTFTP50, p.TTFTP95)
	}
	rate := fmt.Sprintf("%.1f/s", p.Rate)
	switch {
	case p.RateOver > 0:
		rate += fmt.Sprintf(" over %.1f s", p.RateOver.Seconds())
	case p.RateSpan > 0:
		rate += fmt.Sprintf(" over the last %.1f s", p.RateSpan.Seconds())
	}
	s := fmt.Sprintf("%6.1fs %-6s sent %d (%s) in flight %d errors %d %s",
		p.Elapsed.Seconds(), p.Phase, p.Sent, rate, p.InFlight, p.Errors, ttft)
	if p.Scheduled {
		s += fmt.Sprintf(" send lag p99 ≈%.2f ms", p.LagP99)
	}
	if p.Rated > 0 {
		s += fmt.Sprintf(" quality pass %d/%d", p.Passes, p.Rated)
	}
	return s
}

func (r *runner) phase(el time.Duration) string {
	switch {
	case el < r.cfg.Warmup:
		return "warmup"
	case el < r.end:
		return "window"
	}
	return "drain"
}

// progress starts the live view; the returned func stops it after a last
// report.
func (r *runner) progress() func() {
	if r.cfg.Progress == nil {
		return func() {}
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	tr := trailingRate{span: RateSpan}
	tr.add(time.Now().Sub(r.start), r.sent.Load())
	report := func(final bool) {
		now := time.Now()
		sent := r.sent.Load()
		p := Progress{Elapsed: now.Sub(r.start), Sent: sent, Done: r.done.Load(), InFlight: r.inflight.Load(), Errors: r.errs.Load(),
			Rated: r.rated.Load(), Passes: r.passes.Load(), Scheduled: r.cfg.Concurrency == 0}
		p.Rate, p.RateSpan = tr.add(p.Elapsed, sent)
		p.Phase = r.phase(p.Elapsed)
		if final {
			p.Phase = "done"
			p.Rate, p.RateSpan, p.RateOver = 0, 0, min(p.Elapsed, time.Duration(r.sendSpan.Load()))
			if p.RateOver > 0 {
				p.Rate = float64(sent) / p.RateOver.Seconds()
			}
		}
		r.mu.Lock()
		if p.TTFTN = r.ttft.TotalCount(); p.TTFTN > 0 {
			p.TTFTP50 = nearestRank(r.ttft, 0.50)
			p.TTFTP95 = nearestRank(r.ttft, 0.95)
		}
		if r.lag.TotalCount() > 0 {
			p.LagP99 = nearestRank(r.lag, 0.99)
		}
		r.mu.Unlock()
		r.cfg.Progress(p)
	}
	go func() {
		defer close(stopped)
		t := time.NewTicker(r.cfg.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				report(false)
			case <-stop:
				report(true)
				return
			}
		}
	}()
	return func() { close(stop); <-stopped }
}

// RateSpan is the trailing span of a progress line's send rate.
const RateSpan = 5 * time.Second

// trailingRate is the send rate over the trailing span: the count since
// the oldest report within span of the newest, or since the previous one
// when the reports are further apart.
type trailingRate struct {
	span time.Duration
	at   []time.Duration
	sent []int64
}

// add records a report at elapsed time t with sent sends so far and
// returns the rate over the trailing span and that span (0 and 0 on the
// first report, or when no time has passed).
func (tr *trailingRate) add(t time.Duration, sent int64) (float64, time.Duration) {
	tr.at, tr.sent = append(tr.at, t), append(tr.sent, sent)
	n := len(tr.at)
	i := n - 1
	for i > 0 && (i == n-1 || t-tr.at[i-1] <= tr.span) {
		i--
	}
	tr.at, tr.sent = tr.at[i:], tr.sent[i:] // drop what no later report needs
	if dt := t - tr.at[0]; dt > 0 {
		return float64(sent-tr.sent[0]) / dt.Seconds(), dt
	}
	return 0, 0
}

// nearestRank is the card's percentile (metrics.NearestRankIndex, the
// ⌈p·n⌉-th smallest) of h's µs values, in ms, to h's precision.
// HdrHistogram's own ValueAtQuantile rounds the rank to the nearest
// instead: of 12 TTFTs it gave the 11th for P95 where the card gives the
// 12th (391 ms beside the card's 709 on the real engine).
func nearestRank(h *hdrhistogram.Histogram, p float64) float64 {
	n := h.TotalCount()
	rank := float64(metrics.NearestRankIndex(int(n), p) + 1)
	// ValueAtQuantile(q) takes the int(q/100·n + 0.5)-th value: a q of
	// (rank − 0.25)/n lands on rank whatever the float rounding.
	return float64(h.ValueAtQuantile(100*(rank-0.25)/float64(n))) / 1e3
}
