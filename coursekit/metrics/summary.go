package metrics

import (
	"cmp"
	"io"
	"slices"
	"strconv"
	"sync"

	"github.com/llmperf-course/course/coursekit/internal/keyrec"
	"github.com/llmperf-course/course/coursekit/internal/spill"

	"github.com/llmperf-course/course/coursekit/trace"
)

// DefaultSLOMS is the TTFT SLO of the unit's first condition (1 s).
const DefaultSLOMS = 1000

// Options choose the definitions a Summary is computed under. A Summary
// uses exactly these: reading a trace's recorded conditions (conditions.slo,
// conditions.percentiles, a judge asked for) into them is the job of
// coursekit/cardopts, the one place where flags meet the trace's header.
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
	// Resampling keeps, in Summary.Resampling, what a bootstrap of the card
	// redraws: the order statistics around each level of Levels in TTFT,
	// E2E and the event gaps, and the attempts by their output tokens.
	Resampling bool
	// Judged says that a judge was asked for (the header names a
	// dataset), so that with latency SLOs an unrated success does not
	// qualify even when no attempt was rated. A rated attempt in the trace
	// says so too.
	Judged bool
	// SweepSLOsMS are more TTFT SLOs judged under the same rule as the
	// conditions, for a chart of goodput against the SLO (Summary.Sweep);
	// they are not conditions of the card (default: none).
	SweepSLOsMS []float64
	// OtherMethod, when set, also reads the TTFT distribution under this
	// method (Summary.TTFTOther), for a chart that sets two methods side
	// by side (default: none).
	OtherMethod Method
	// MemoryBytes bounds what SummarizeReader keeps in memory for the
	// samples, attempt ids and requests; past it they are spilled to a
	// temporary directory as sorted runs (0: no limit). The card is the
	// same either way.
	MemoryBytes int64
}

// Accumulator builds a Summary from attempts fed one at a time, keeping
// only the numbers it needs, so a trace of millions of attempts streams.
type Accumulator struct {
	h    trace.Header
	opts Options

	attempts, complete, inFlight, outside int64
	passes, fails, unrated, ttftMissing   int64
	outcomes                              [trace.MaxOutcome + 1]int64
	httpStatus                            map[int]int64 // http_error attempts by recorded status
	answered                              float64       // the run's last response byte (trace.Attempt.LastResponseMS)
	connStarts                            []float64     // connect errors' starts, those at or after answered (Summary.Unanswered)
	events, tokens, multiEvents           int64
	tpotFinish                            int64
	usageTokens, usageEventTokens         int64 // over successes with output_tokens
	maxTokens                             int
	outputTokens                          int64           // OutputTokenCount of complete successes
	tokenAttempts                         map[int64]int64 // with Options.Resampling: in-window attempts by the output tokens they add
	gaps                                  gapParts        // with Options.Resampling: the event gaps, attempt after attempt, under the budget

	ttft, e2e, itl, tpot samples
	passQ                []int64   // per condition SLO, then per sweep SLO: complete quality-pass attempts with TTFT ≤ it
	passQLate            []int64   // the same, of those that ended after the window closed
	lateAttempts         int64     // in-window attempts that ended after the window closed (Throughput.EndedAfterWindow)
	lateComplete         int64     // the complete successes among them
	all                  []float64 // opts.SLOsMS, then opts.SweepSLOsMS
	slos                 []float64 // all sorted, distinct: the levels of reqs
	server               serverAcc // meta.server_timings of complete successes
	lag                  lagAcc    // meta.client_lag_ms of in-window attempts

	// reqs has one record per attempt in the window: its request's key and,
	// packed in V, the level (index into slos of the smallest SLO met, or
	// len(slos) for none) of its TTFT as a qualified attempt (high 32
	// bits), and as a candidate meeting the latency SLOs (low 32 bits).
	// Sorted by key at the end, they give each request's best attempt
	// without a map of millions of requests.
	reqs      *keyrec.Store
	reqsParts []*keyrec.Store // reqs of merged accumulators
	budget    *spill.Budget

	// With latency SLOs beyond TTFT (opts.Latency.Set()):
	cand []candidate // complete successes not failing quality
}

// NewAccumulator starts a summary of a trace with header h.
func NewAccumulator(h *trace.Header, opts Options) *Accumulator {
	if len(opts.SLOsMS) == 0 {
		opts.SLOsMS = []float64{DefaultSLOMS}
	}
	if opts.Method == "" {
		opts.Method = NearestRank
	}
	all := append(slices.Clone(opts.SLOsMS), opts.SweepSLOsMS...)
	acc := &Accumulator{h: *h, opts: opts, all: all, passQ: make([]int64, len(all)), passQLate: make([]int64, len(all))}
	if opts.Resampling {
		acc.tokenAttempts = map[int64]int64{}
		acc.gaps = gapParts{{}}
	}
	acc.slos = slices.Clone(all)
	slices.Sort(acc.slos)
	acc.slos = slices.Compact(acc.slos)
	return acc
}

// level is the index in acc.slos of the smallest SLO that ttft meets.
func (acc *Accumulator) level(ttft float64) uint64 {
	j := 0
	for j < len(acc.slos) && ttft > acc.slos[j] {
		j++
	}
	return uint64(j)
}

// addAnswered follows the tail in which nothing answered (Summary.Unanswered).
func (acc *Accumulator) addAnswered(a *trace.Attempt) {
	if a.Outcome == trace.ConnectError {
		acc.connStarts = append(acc.connStarts, a.StartMS)
		return
	}
	if t, ok := a.LastResponseMS(); ok && t > acc.answered {
		acc.answered = t
		if len(acc.connStarts) > 0 && acc.connStarts[0] < t { // keep only the tail
			acc.connStarts = slices.DeleteFunc(acc.connStarts, func(st float64) bool { return st < t })
		}
	}
}

// Add counts one attempt. It keeps no reference to a or its events.
func (acc *Accumulator) Add(a *trace.Attempt) {
	acc.addAnswered(a)
	if !acc.h.Window.Contains(a.StartMS) {
		acc.outside++
		return
	}
	acc.attempts++
	acc.outcomes[a.Outcome]++
	if a.Outcome == trace.HTTPError && a.HTTPStatus != 0 {
		if acc.httpStatus == nil {
			acc.httpStatus = map[int]int64{}
		}
		acc.httpStatus[a.HTTPStatus]++
	}
	acc.lag.add(a)
	// Drained: sent in the window, ended after it. An attempt ending exactly
	// at the window's end ended within it (an imported trace's window ends
	// at its last attempt's end).
	late := a.HasEnd && a.EndMS > acc.h.Window.EndMS
	if late {
		acc.lateAttempts++
	}
	rk := a.RequestKey()
	none := uint64(len(acc.slos))
	best, bestLat := none, none
	if len(a.Events) == 0 {
		acc.ttftMissing++
	}
	if acc.tokenAttempts != nil {
		t := int64(0)
		if a.Outcome == trace.OK {
			t = int64(a.OutputTokenCount())
		}
		acc.tokenAttempts[t]++
	}
	switch a.Outcome {
	case trace.InFlight:
		acc.inFlight++
	case trace.OK:
		acc.complete++
		if late {
			acc.lateComplete++
		}
		ttft, _ := a.TTFT()
		e2e, _ := a.E2E()
		acc.ttft.add(ttft)
		acc.e2e.add(e2e)
		acc.server.add(a, ttft)
		for i := 1; i < len(a.Events); i++ {
			acc.itl.add(a.Events[i].TMS - a.Events[i-1].TMS)
		}
		if acc.gaps != nil && len(a.Events) > 1 { // Resampling: the gaps by attempt
			acc.gaps[0].addAttempt(func(yield func(float64)) {
				for i := 1; i < len(a.Events); i++ {
					yield(a.Events[i].TMS - a.Events[i-1].TMS)
				}
			})
		}
		if t, ok := a.TPOT(); ok {
			acc.tpot.add(t)
			if a.FinishesPastEvents() {
				acc.tpotFinish++
			}
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
		if acc.opts.Latency.Set() && a.Quality != trace.Fail {
			r := acc.opts.Latency.check(a)
			acc.cand = append(acc.cand, candidate{ttft: ttft, reason: r, rated: a.Quality == trace.Pass, late: late})
			if r == Qualified {
				bestLat = acc.level(ttft)
				if a.Quality == trace.Pass {
					best = bestLat
				}
			}
		}
		switch a.Quality {
		case trace.Pass:
			acc.passes++
			for i, slo := range acc.all {
				if ttft <= slo {
					acc.passQ[i]++
					if late {
						acc.passQLate[i]++
					}
				}
			}
			if !acc.opts.Latency.Set() {
				best = acc.level(ttft)
			}
		case trace.Fail:
			acc.fails++
		default:
			acc.unrated++
		}
	}
	if acc.reqs == nil {
		acc.reqs = keyrec.NewStore(1024, acc.budget)
	}
	acc.reqs.Add(keyrec.Rec{K: rk, V: best<<32 | bestLat})
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
		TraceMeta:        h.Meta,
		WindowCost:       h.WindowCost,
	}
	var rs *Resampling
	if acc.opts.Resampling {
		rs = &Resampling{}
		for t, n := range acc.tokenAttempts {
			rs.Tokens = append(rs.Tokens, TokenCount{Tokens: t, Attempts: n})
		}
		slices.SortFunc(rs.Tokens, func(a, b TokenCount) int { return int(a.Tokens - b.Tokens) })
		s.Resampling = rs
	}
	if acc.opts.WindowCost != nil {
		s.WindowCost = acc.opts.WindowCost
	}
	s.RunEnd, _ = h.RunEnd() // the reader has validated it
	s.Server = acc.server.split(m, acc.opts.Levels)
	s.PromptCache = acc.server.promptCache()
	s.ClientLag = acc.lag.summary()
	// The four distributions are independent: select their ranks in parallel.
	var wg sync.WaitGroup
	var win struct{ ttft, e2e *[]OrderWindow }
	if rs != nil {
		win.ttft, win.e2e = &rs.TTFT, &rs.E2E
	}
	for _, d := range []struct {
		dst  *Dist
		x    *samples
		unit string
		win  *[]OrderWindow
	}{{&s.TTFT, &acc.ttft, UnitMS, win.ttft}, {&s.E2E, &acc.e2e, UnitMS, win.e2e}, {&s.ITL, &acc.itl, UnitEvent, nil}, {&s.TPOT, &acc.tpot, UnitMSPerToken, nil}} {
		wg.Go(func() {
			ks := d.x.wantRanks(m, acc.opts.Levels)
			if d.win != nil {
				ks = append(ks, d.x.windowEdges(m, acc.opts.Levels)...)
			}
			d.x.prepare(ks)
			*d.dst = d.x.dist(m, d.unit)
			d.dst.CI95 = d.x.ci95()
			d.dst.Chosen = d.x.levels(m, acc.opts.Levels)
			if d.win != nil {
				*d.win = d.x.windows(m, acc.opts.Levels)
			}
		})
	}
	wg.Wait()
	markSampling(&s.ITL, SamplingIndependentGaps)
	if rs != nil { // after the distributions: it reads the event gaps' ranks
		var err error
		if rs.ITL, err = clusterWindows(int(acc.itl.n), acc.gaps.sizes(), acc.gaps.each, acc.itl.ranks, m, acc.opts.Levels); err != nil {
			acc.budget.Fail(err)
		}
	}
	if om := acc.opts.OtherMethod; om != "" {
		d := acc.ttft.dist(om, UnitMS) // reads the ranks it lacks
		d.CI95 = s.TTFT.CI95           // an interval of order statistics, the same under either method
		s.TTFTOther = &d
	}
	for _, o := range trace.Outcomes {
		s.Outcomes[o.String()] = int(acc.outcomes[o])
	}
	if n := countFrom(acc.connStarts, acc.answered); n > 0 {
		s.Unanswered = &Unanswered{FromMS: acc.answered, ConnectErrors: n}
	}
	for st, n := range acc.httpStatus {
		if s.HTTPStatusCounts == nil {
			s.HTTPStatusCounts = map[string]int{}
		}
		s.HTTPStatusCounts[strconv.Itoa(st)] = int(n)
	}
	s.FailureRate = NewShare(float64(s.Failures), float64(s.Attempts), UnitFailureRate)
	s.Throughput = newThroughput(s, acc.outputTokens, EndedCounts{Attempts: acc.lateAttempts, CompleteSuccesses: acc.lateComplete})
	s.QualityPassRate = NewShare(float64(acc.passes), float64(acc.passes+acc.fails), UnitQualityPassRate)
	s.Event.Events, s.Event.Tokens = acc.events, acc.tokens
	s.Event.MultiTokenEvents, s.Event.MaxTokensPerEvt = acc.multiEvents, acc.maxTokens
	s.Event.TPOTAtFinish = acc.tpotFinish
	if acc.tpotFinish > 0 {
		s.Event.TPOTAtLastEvent = int64(s.TPOT.N) - acc.tpotFinish
	}
	s.Event.UsageTokens, s.Event.UsageEventTokens = acc.usageTokens, acc.usageEventTokens
	requests, passLv, latLv, err := acc.requests()
	if err != nil {
		acc.budget.Fail(err)
	}
	s.Requests = requests
	if s.Requests > 0 {
		v := float64(s.Attempts) / float64(s.Requests)
		s.RetryAmplification = &v
	}

	// reqQ counts the requests whose best level meets slo.
	lv := passLv
	reqQ := func(slo float64) int64 {
		j, _ := slices.BinarySearch(acc.slos, slo)
		n := int64(0)
		for _, c := range lv[:j+1] {
			n += c
		}
		return n
	}
	var all []Condition
	if acc.opts.Latency.Set() {
		judged := acc.opts.Judged || acc.passes+acc.fails > 0
		if !judged { // a request qualifies on latency alone
			lv = latLv
		}
		all = s.latencyConditions(acc.all, acc.opts.Latency, judged, acc.cand, reqQ)
	} else {
		for i, slo := range acc.all {
			c := s.condition(slo, acc.passQ[i], reqQ(slo))
			c.QualifiedEndedAfterWindow, c.QualifiedEndedWithinWindow = acc.passQLate[i], acc.passQ[i]-acc.passQLate[i]
			all = append(all, c)
		}
	}
	if acc.passes+acc.fails == 0 {
		for i := range all {
			all[i].markUnrated()
		}
	}
	n := len(acc.opts.SLOsMS)
	s.Conditions = all[:n:n]
	if len(all) > n {
		s.Sweep = all[n:]
	}
	s.CapacityStop = capacityStop(s)
	return s
}

// requests sorts the request records and returns the number of requests
// and how many requests have each best level, as a qualified attempt and
// as a candidate meeting the latency SLOs.
func (acc *Accumulator) requests() (n int64, pass, lat []int64, err error) {
	pass = make([]int64, len(acc.slos)+1)
	lat = make([]int64, len(acc.slos)+1)
	parts := append([]*keyrec.Store{acc.reqs}, acc.reqsParts...)
	var srcs []keyrec.Source
	var closers []func()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, p := range parts {
		if p == nil {
			continue
		}
		wg.Go(func() {
			s, c, e := p.Sources()
			mu.Lock()
			defer mu.Unlock()
			if e != nil {
				err = e
				return
			}
			srcs = append(srcs, s...)
			closers = append(closers, c)
		})
	}
	wg.Wait()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	if err != nil {
		return 0, pass, lat, err
	}
	var cur keyrec.Rec
	have := false
	flush := func() {
		if have {
			n++
			pass[cur.V>>32]++
			lat[cur.V&0xffffffff]++
		}
	}
	err = keyrec.Merge(srcs, func(r *keyrec.Rec) {
		if have && r.K == cur.K {
			cur.V = min(cur.V>>32, r.V>>32)<<32 | min(cur.V&0xffffffff, r.V&0xffffffff)
			return
		}
		flush()
		cur, have = *r, true
	})
	flush()
	return n, pass, lat, err
}

// condition qualifies at one SLO: q complete quality-pass attempts had a
// TTFT ≤ slo (inclusive), rq requests had one.
func (s *Summary) condition(slo float64, q, rq int64) Condition {
	return s.newCondition(slo, q, rq, Drops{
		NotComplete:    s.Attempts - s.CompleteSuccess,
		QualityFail:    s.QualityFails,
		QualityUnrated: s.UnratedSuccesses,
		TTFTOverSLO:    s.QualityPasses - q,
	})
}

// latencyConditions qualify at each TTFT SLO of slos with the latency SLOs
// beyond it: a candidate qualifies when its TTFT ≤ slo and it met them
// all, and, when judged, it passed quality. The candidates are sorted by
// TTFT once, so that a sweep of many SLOs costs a binary search each.
func (s *Summary) latencyConditions(slos []float64, lat LatencySLO, judged bool, cand []candidate, reqQ func(float64) int64) []Condition {
	var unrated int64
	in := make([]candidate, 0, len(cand))
	for _, c := range cand {
		if judged && !c.rated {
			unrated++
			continue
		}
		in = append(in, c)
	}
	slices.SortFunc(in, func(a, b candidate) int { return cmp.Compare(a.ttft, b.ttft) })
	// pre[k] counts the reasons among the k fastest candidates.
	type counts struct{ q, qLate, e2e, itl, tpot int64 }
	pre := make([]counts, len(in)+1)
	for k, c := range in {
		p := pre[k]
		switch c.reason {
		case E2EOverSLO:
			p.e2e++
		case ITLOverSLO:
			p.itl++
		case TPOTOverSLO:
			p.tpot++
		default:
			p.q++
			if c.late {
				p.qLate++
			}
		}
		pre[k+1] = p
	}
	rule := QualityNotJudged
	if judged {
		rule = QualityJudged
	}
	out := make([]Condition, 0, len(slos))
	for _, slo := range slos {
		k, _ := slices.BinarySearchFunc(in, slo, func(c candidate, t float64) int {
			if c.ttft <= t {
				return -1
			}
			return 1
		})
		p := pre[k]
		d := Drops{NotComplete: s.Attempts - s.CompleteSuccess, QualityFail: s.QualityFails, QualityUnrated: unrated,
			TTFTOverSLO: int64(len(in) - k), E2EOverSLO: p.e2e, ITLOverSLO: p.itl, TPOTOverSLO: p.tpot, judges: lat}
		c := s.newCondition(slo, p.q, reqQ(slo), d)
		c.LatencySLO, c.QualityRule = lat, rule
		c.QualifiedEndedAfterWindow, c.QualifiedEndedWithinWindow = p.qLate, p.q-p.qLate
		out = append(out, c)
	}
	return out
}

// newCondition builds the rates of q qualified attempts (rq qualified
// requests) at a TTFT SLO.
func (s *Summary) newCondition(slo float64, q, rq int64, d Drops) Condition {
	c := Condition{
		SLOTTFTMS:           slo,
		Qualified:           q,
		QualifiedRate:       NewShare(float64(q), float64(s.Attempts), UnitQualifiedRate),
		Goodput:             NewRatio(float64(q), s.WindowS, UnitGoodput),
		Currency:            s.Currency,
		RequestsQualified:   rq,
		RequestQualifiedRat: NewShare(float64(rq), float64(s.Requests), UnitRequestQualified),
		NotQualified:        d,
	}
	c.GoodputPerS = float64(q) / s.WindowS
	if s.WindowCost != nil && q > 0 {
		v := *s.WindowCost * 1000 / float64(q)
		c.CostPer1000 = &v
	}
	return c
}

// Summarize computes the card of an in-memory trace under opts.
func Summarize(t *trace.Trace, opts Options) *Summary {
	acc := NewAccumulator(&t.Header, opts)
	for i := range t.Attempts {
		acc.Add(&t.Attempts[i])
	}
	return acc.Summary()
}

// SummarizeReader streams a trace and computes its card under opts; name
// locates errors.
func SummarizeReader(r io.Reader, name string, opts Options) (*Summary, error) {
	return SummarizeStream(r, name, opts.MemoryBytes, func(*trace.Header) (Options, error) { return opts, nil })
}

// SummarizeStream streams a trace and computes its card under the options
// that choose returns for the trace's header, before any attempt is read
// (an error from it stops the read, located at the header's line); name
// locates errors, and memoryBytes bounds what is kept in memory (as
// Options.MemoryBytes, which choose's options do not change). Every parsing goroutine aggregates into its own
// Accumulator, and the parts are merged at the end: the order of attempts
// does not matter to a card.
func SummarizeStream(r io.Reader, name string, memoryBytes int64, choose func(*trace.Header) (Options, error)) (*Summary, error) {
	var opts Options
	var (
		h     *trace.Header
		mu    sync.Mutex
		parts []*Accumulator
	)
	budget := spill.New(memoryBytes)
	defer budget.Close()
	err := trace.ScanUnordered(r, name, budget, func(hd *trace.Header) error {
		h = hd
		var err error
		if opts, err = choose(hd); err != nil {
			if e, ok := err.(*trace.Error); ok && e.Line == 0 {
				e.File, e.Line = name, 1
			}
		}
		return err
	}, func(estimate int) func(*trace.Attempt) error {
		acc := NewAccumulator(h, opts)
		acc.setBudget(budget)
		acc.reqs = keyrec.NewStore(estimate, budget)
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
	s := parts[0].Summary()
	if err := budget.Err(); err != nil {
		return nil, err
	}
	if runs, bytes := budget.Stats(); runs > 0 {
		s.Spill = &Spill{BudgetBytes: budget.Limit(), Runs: runs, Bytes: bytes}
	}
	return s, nil
}

// setBudget puts every store that grows with the trace under b.
func (acc *Accumulator) setBudget(b *spill.Budget) {
	acc.budget = b
	for _, s := range []*samples{&acc.ttft, &acc.e2e, &acc.itl, &acc.tpot, &acc.server.prompt, &acc.server.over, &acc.server.decode} {
		s.budget = b
	}
	for _, g := range acc.gaps {
		g.budget = b
	}
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
	acc.answered = max(acc.answered, o.answered)
	acc.connStarts = append(acc.connStarts, o.connStarts...)
	for st, n := range o.httpStatus {
		if acc.httpStatus == nil {
			acc.httpStatus = map[int]int64{}
		}
		acc.httpStatus[st] += n
	}
	acc.events += o.events
	acc.tokens += o.tokens
	acc.multiEvents += o.multiEvents
	acc.tpotFinish += o.tpotFinish
	acc.outputTokens += o.outputTokens
	for t, n := range o.tokenAttempts {
		acc.tokenAttempts[t] += n
	}
	acc.gaps = append(acc.gaps, o.gaps...)
	acc.usageTokens += o.usageTokens
	acc.usageEventTokens += o.usageEventTokens
	acc.maxTokens = max(acc.maxTokens, o.maxTokens)
	acc.ttft.merge(&o.ttft)
	acc.e2e.merge(&o.e2e)
	acc.itl.merge(&o.itl)
	acc.tpot.merge(&o.tpot)
	for i := range acc.passQ {
		acc.passQ[i] += o.passQ[i]
		acc.passQLate[i] += o.passQLate[i]
	}
	acc.lateAttempts += o.lateAttempts
	acc.lateComplete += o.lateComplete
	acc.server.merge(&o.server)
	acc.lag.merge(&o.lag)
	acc.reqsParts = append(append(acc.reqsParts, o.reqs), o.reqsParts...)
	if acc.budget == nil {
		acc.budget = o.budget
	}
	o.reqs, o.reqsParts = nil, nil
	acc.cand = append(acc.cand, o.cand...)
}

// SummarizeFile streams a trace file and computes its card.
func SummarizeFile(path string, opts Options) (*Summary, error) {
	f, err := trace.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return SummarizeReader(f, path, opts)
}

// countFrom is how many of starts are at or after from.
func countFrom(starts []float64, from float64) int64 {
	n := int64(0)
	for _, st := range starts {
		if st >= from {
			n++
		}
	}
	return n
}
