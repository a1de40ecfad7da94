package metrics

import (
	"io"
	"math"
	"os"
	"sync"

	"github.com/llmperf-course/course/coursekit/trace"
)

// DefaultSLOMS is the TTFT SLO of the unit's first condition (1 s).
const DefaultSLOMS = 1000

// Options choose the definitions a Summary is computed under.
type Options struct {
	// SLOsMS are the TTFT SLO conditions, side by side (default: 1000 ms).
	SLOsMS []float64
	// Method is the percentile method (default: nearest-rank).
	Method Method
	// WindowCost overrides the header's window_cost when set.
	WindowCost *float64
	// Levels are extra percentile levels (fractions) every distribution
	// reports in Dist.Chosen, with their intervals (default: none).
	Levels []float64
	// Latency adds per-attempt SLOs beyond TTFT to every condition. When
	// any is set and no judge was asked for, quality is not required.
	Latency LatencySLO
}

// withHeaderSLO fills opts from the header's conditions.slo when the
// caller gave no SLO at all: a bench run's card uses the run's SLO set.
func withHeaderSLO(h *trace.Header, opts Options, name string) (Options, error) {
	if len(opts.Levels) == 0 {
		ps, err := headerLevels(h)
		if err != nil {
			if e, ok := err.(*trace.Error); ok {
				e.File, e.Line = name, 1
			}
			return opts, err
		}
		opts.Levels = ps
	}
	if len(opts.SLOsMS) > 0 || opts.Latency.Set() {
		return opts, nil
	}
	s, err := HeaderSLO(h)
	if err != nil {
		if e, ok := err.(*trace.Error); ok {
			e.File, e.Line = name, 1
		}
		return opts, err
	}
	if s != nil {
		opts.SLOsMS, opts.Latency = s.TTFTMS, s.LatencySLO
	}
	return opts, nil
}

// Accumulator builds a Summary from attempts fed one at a time, keeping
// only the numbers it needs, so a trace of millions of attempts streams.
type Accumulator struct {
	h    trace.Header
	opts Options

	attempts, complete, inFlight, outside int64
	passes, fails, unrated, ttftMissing   int64
	outcomes                              [trace.InFlight + 1]int64
	events, tokens, multiEvents           int64
	usageTokens, usageEventTokens         int64 // over successes with output_tokens
	maxTokens                             int
	outputTokens                          int64 // OutputTokenCount of complete successes

	ttft, e2e, itl, tpot samples
	passTTFT             samples               // TTFT of complete, quality-pass attempts
	reqBest              map[trace.Key]float64 // per request: best passTTFT, +Inf if none
	server               serverAcc             // meta.server_timings of complete successes

	// With latency SLOs beyond TTFT (opts.Latency.Set()):
	cand       []candidate           // complete successes not failing quality
	reqBestLat map[trace.Key]float64 // per request: best TTFT of a candidate meeting the latency SLOs
	judged     bool                  // the header says a judge was asked for
}

// NewAccumulator starts a summary of a trace with header h.
func NewAccumulator(h *trace.Header, opts Options) *Accumulator {
	if len(opts.SLOsMS) == 0 {
		opts.SLOsMS = []float64{DefaultSLOMS}
	}
	if opts.Method == "" {
		opts.Method = NearestRank
	}
	acc := &Accumulator{h: *h, opts: opts, reqBest: map[trace.Key]float64{}}
	if opts.Latency.Set() {
		acc.reqBestLat = map[trace.Key]float64{}
		acc.judged = headerJudged(h)
	}
	return acc
}

// Add counts one attempt. It keeps no reference to a or its events.
func (acc *Accumulator) Add(a *trace.Attempt) {
	if !acc.h.Window.Contains(a.StartMS) {
		acc.outside++
		return
	}
	acc.attempts++
	acc.outcomes[a.Outcome]++
	rk := a.RequestKey()
	best, seen := acc.reqBest[rk]
	if !seen {
		best = math.Inf(1)
	}
	if len(a.Events) == 0 {
		acc.ttftMissing++
	}
	switch a.Outcome {
	case trace.InFlight:
		acc.inFlight++
	case trace.OK:
		acc.complete++
		ttft, _ := a.TTFT()
		e2e, _ := a.E2E()
		acc.ttft.add(ttft)
		acc.e2e.add(e2e)
		acc.server.add(a, ttft)
		for i := 1; i < len(a.Events); i++ {
			acc.itl.add(a.Events[i].TMS - a.Events[i-1].TMS)
		}
		if t, ok := a.TPOT(); ok {
			acc.tpot.add(t)
		}
		for _, e := range a.Events {
			acc.tokens += int64(e.Tokens)
			if e.Tokens > 1 {
				acc.multiEvents++
			}
			acc.maxTokens = max(acc.maxTokens, e.Tokens)
		}
		acc.events += int64(len(a.Events))
		acc.outputTokens += int64(a.OutputTokenCount())
		if a.OutputTokens > 0 {
			acc.usageTokens += int64(a.OutputTokens)
			acc.usageEventTokens += int64(a.StreamedTokens())
		}
		if acc.reqBestLat != nil && a.Quality != trace.Fail {
			r := acc.opts.Latency.check(a)
			acc.cand = append(acc.cand, candidate{ttft: ttft, reason: r, rated: a.Quality == trace.Pass})
			if r == Qualified {
				if b, ok := acc.reqBestLat[rk]; !ok || ttft < b {
					acc.reqBestLat[rk] = ttft
				}
				if a.Quality == trace.Pass {
					best = min(best, ttft)
				}
			}
		}
		switch a.Quality {
		case trace.Pass:
			acc.passes++
			acc.passTTFT.add(ttft)
			if acc.reqBestLat == nil {
				best = min(best, ttft)
			}
		case trace.Fail:
			acc.fails++
		default:
			acc.unrated++
		}
	}
	acc.reqBest[rk] = best
}

// Summary computes the card. It sorts the samples it holds, so call it once
// all attempts are in.
func (acc *Accumulator) Summary() *Summary {
	h, m := &acc.h, acc.opts.Method
	s := &Summary{
		Trace:            h.Trace,
		Clock:            h.Clock,
		Window:           WindowInfo{h.Window.StartMS, h.Window.EndMS},
		WindowS:          h.Window.Seconds(),
		PercentileMethod: m,
		Attempts:         acc.attempts,
		Requests:         int64(len(acc.reqBest)),
		CompleteSuccess:  acc.complete,
		InFlight:         acc.inFlight,
		Failures:         acc.attempts - acc.complete - acc.inFlight,
		OutsideWindow:    acc.outside,
		Outcomes:         map[string]int{},
		QualityPasses:    acc.passes,
		QualityFails:     acc.fails,
		UnratedSuccesses: acc.unrated,
		TTFTMissing:      acc.ttftMissing,
		Currency:         h.Currency,
		TraceConditions:  h.Conditions,
		WindowCost:       h.WindowCost,
	}
	if acc.opts.WindowCost != nil {
		s.WindowCost = acc.opts.WindowCost
	}
	s.RunEnd, _ = h.RunEnd() // the reader has validated it
	s.Server = acc.server.split(m)
	s.PromptCache = acc.server.promptCache()
	// The four distributions are independent: select their ranks in parallel.
	var wg sync.WaitGroup
	for _, d := range []struct {
		dst  *Dist
		x    *samples
		unit string
	}{{&s.TTFT, &acc.ttft, "ms"}, {&s.E2E, &acc.e2e, "ms"}, {&s.ITL, &acc.itl, "event"}, {&s.TPOT, &acc.tpot, "ms/token"}} {
		wg.Go(func() {
			*d.dst = d.x.dist(m, d.unit)
			d.dst.CI95 = d.x.ci95()
			d.dst.Chosen = d.x.levels(m, acc.opts.Levels)
		})
	}
	wg.Wait()
	for _, o := range trace.Outcomes {
		s.Outcomes[o.String()] = int(acc.outcomes[o])
	}
	s.FailureRate = NewShare(float64(s.Failures), float64(s.Attempts), "failed attempts / attempts")
	s.Throughput = newThroughput(s, acc.outputTokens)
	s.QualityPassRate = NewShare(float64(acc.passes), float64(acc.passes+acc.fails), "quality passes / rated complete successes")
	s.Event.Events, s.Event.Tokens = acc.events, acc.tokens
	s.Event.MultiTokenEvents, s.Event.MaxTokensPerEvt = acc.multiEvents, acc.maxTokens
	s.Event.UsageTokens, s.Event.UsageEventTokens = acc.usageTokens, acc.usageEventTokens
	if s.Requests > 0 {
		v := float64(s.Attempts) / float64(s.Requests)
		s.RetryAmplification = &v
	}

	reqBest := make([]float64, 0, len(acc.reqBest))
	for _, v := range acc.reqBest {
		reqBest = append(reqBest, v)
	}
	if acc.reqBestLat != nil {
		judged := acc.judged || acc.passes+acc.fails > 0
		if !judged { // a request qualifies on latency alone
			reqBest = reqBest[:0]
			for k := range acc.reqBest {
				v, ok := acc.reqBestLat[k]
				if !ok {
					v = math.Inf(1)
				}
				reqBest = append(reqBest, v)
			}
		}
		for _, slo := range acc.opts.SLOsMS {
			s.Conditions = append(s.Conditions, s.latencyCondition(slo, acc.opts.Latency, judged, acc.cand, reqBest))
		}
		return s
	}
	for _, slo := range acc.opts.SLOsMS {
		s.Conditions = append(s.Conditions, s.condition(slo, &acc.passTTFT, reqBest))
	}
	return s
}

// condition qualifies at one SLO by counting TTFTs ≤ slo (inclusive).
func (s *Summary) condition(slo float64, passTTFT *samples, reqBest []float64) Condition {
	q := int64(0)
	passTTFT.each(func(v float64) {
		if v <= slo {
			q++
		}
	})
	return s.newCondition(slo, q, reqBest, Drops{
		NotComplete:    s.Attempts - s.CompleteSuccess,
		QualityFail:    s.QualityFails,
		QualityUnrated: s.UnratedSuccesses,
		TTFTOverSLO:    s.QualityPasses - q,
	})
}

// latencyCondition qualifies at one TTFT SLO with the latency SLOs beyond
// it: a candidate qualifies when its TTFT ≤ slo and it met them all, and,
// when judged, it passed quality.
func (s *Summary) latencyCondition(slo float64, lat LatencySLO, judged bool, cand []candidate, reqBest []float64) Condition {
	d := Drops{NotComplete: s.Attempts - s.CompleteSuccess, QualityFail: s.QualityFails}
	q := int64(0)
	for _, c := range cand {
		switch {
		case judged && !c.rated:
			d.QualityUnrated++
		case c.ttft > slo:
			d.TTFTOverSLO++
		case c.reason == E2EOverSLO:
			d.E2EOverSLO++
		case c.reason == ITLOverSLO:
			d.ITLOverSLO++
		case c.reason == TPOTOverSLO:
			d.TPOTOverSLO++
		default:
			q++
		}
	}
	c := s.newCondition(slo, q, reqBest, d)
	c.LatencySLO = lat
	c.QualityRule = QualityNotJudged
	if judged {
		c.QualityRule = QualityJudged
	}
	return c
}

// newCondition builds the rates of q qualified attempts at a TTFT SLO.
func (s *Summary) newCondition(slo float64, q int64, reqBest []float64, d Drops) Condition {
	rq := int64(countAtMost(reqBest, slo))
	c := Condition{
		SLOTTFTMS:           slo,
		Qualified:           q,
		QualifiedRate:       NewShare(float64(q), float64(s.Attempts), "qualified attempts / attempts"),
		Goodput:             NewRatio(float64(q), s.WindowS, "qualified attempts / window second"),
		Currency:            s.Currency,
		RequestsQualified:   rq,
		RequestQualifiedRat: NewShare(float64(rq), float64(s.Requests), "qualified requests / requests"),
		NotQualified:        d,
	}
	c.GoodputPerS = float64(q) / s.WindowS
	if s.WindowCost != nil && q > 0 {
		v := *s.WindowCost * 1000 / float64(q)
		c.CostPer1000 = &v
	}
	return c
}

// countAtMost counts values ≤ x: a linear pass beats sorting for the
// handful of SLOs a card compares.
func countAtMost(values []float64, x float64) int {
	n := 0
	for _, v := range values {
		if v <= x {
			n++
		}
	}
	return n
}

// Summarize computes the card of an in-memory trace.
func Summarize(t *trace.Trace, opts Options) *Summary {
	if o, err := withHeaderSLO(&t.Header, opts, "trace"); err == nil {
		opts = o // a bad conditions.slo is reported by SummarizeReader; here the caller's options stand
	}
	acc := NewAccumulator(&t.Header, opts)
	for i := range t.Attempts {
		acc.Add(&t.Attempts[i])
	}
	return acc.Summary()
}

// SummarizeReader streams a trace and computes its card; name locates
// errors. Every parsing goroutine aggregates into its own Accumulator, and
// the parts are merged at the end: the order of attempts does not matter to
// a card.
func SummarizeReader(r io.Reader, name string, opts Options) (*Summary, error) {
	var (
		h     *trace.Header
		mu    sync.Mutex
		parts []*Accumulator
	)
	err := trace.ScanUnordered(r, name, func(hd *trace.Header) error {
		h = hd
		var err error
		opts, err = withHeaderSLO(hd, opts, name)
		return err
	}, func() func(*trace.Attempt) error {
		acc := NewAccumulator(h, opts)
		mu.Lock()
		parts = append(parts, acc)
		mu.Unlock()
		return func(a *trace.Attempt) error {
			acc.Add(a)
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return NewAccumulator(h, opts).Summary(), nil
	}
	for _, p := range parts[1:] {
		parts[0].merge(p)
	}
	return parts[0].Summary(), nil
}

// merge adds the attempts counted by o.
func (acc *Accumulator) merge(o *Accumulator) {
	acc.attempts += o.attempts
	acc.complete += o.complete
	acc.inFlight += o.inFlight
	acc.outside += o.outside
	acc.passes += o.passes
	acc.fails += o.fails
	acc.unrated += o.unrated
	acc.ttftMissing += o.ttftMissing
	for i := range acc.outcomes {
		acc.outcomes[i] += o.outcomes[i]
	}
	acc.events += o.events
	acc.tokens += o.tokens
	acc.multiEvents += o.multiEvents
	acc.outputTokens += o.outputTokens
	acc.maxTokens = max(acc.maxTokens, o.maxTokens)
	acc.ttft.merge(&o.ttft)
	acc.e2e.merge(&o.e2e)
	acc.itl.merge(&o.itl)
	acc.tpot.merge(&o.tpot)
	acc.passTTFT.merge(&o.passTTFT)
	acc.server.merge(&o.server)
	big, small := acc.reqBest, o.reqBest
	if len(small) > len(big) {
		big, small = small, big
	}
	for k, v := range small {
		if b, ok := big[k]; !ok || v < b {
			big[k] = v
		}
	}
	acc.reqBest = big
	acc.cand = append(acc.cand, o.cand...)
	acc.judged = acc.judged || o.judged
	if acc.reqBestLat != nil {
		big, small := acc.reqBestLat, o.reqBestLat
		if len(small) > len(big) {
			big, small = small, big
		}
		for k, v := range small {
			if b, ok := big[k]; !ok || v < b {
				big[k] = v
			}
		}
		acc.reqBestLat = big
	}
}

// SummarizeFile streams a trace file and computes its card.
func SummarizeFile(path string, opts Options) (*Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return SummarizeReader(f, path, opts)
}
