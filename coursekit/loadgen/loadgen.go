// Package loadgen is the course's measurement client: it drives any
// OpenAI-compatible streaming endpoint and writes every attempt it made,
// failures included, as trace format v1.
//
// Three choices make its numbers honest:
//   - An open loop sends on a schedule fixed in advance, never waiting for
//     answers, so a slow server cannot slow the load down and hide its own
//     slowness (no coordinated omission). Each attempt keeps its scheduled
//     time in meta.scheduled_ms; the lag between plan and send is reported.
//   - Every SSE message is stamped when it arrives, on one monotonic clock
//     started with the run; nothing is averaged per request.
//   - Sent == recorded: every attempt is written (to a file: flushed) as
//     soon as it ends. An interrupted run keeps its denominators honest: its
//     window ends at the interrupt, the attempts still running are
//     in_flight (the user stopped them; the server did not fail), and the
//     header's conditions.run_end says so, with the planned duration.
package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Config is one measurement run. Give exactly one of Rate (open loop),
// Replay (open loop on recorded start times) or Concurrency (closed loop).
type Config struct {
	// URL is the server's base, e.g. http://127.0.0.1:8000 (a trailing /v1
	// is accepted).
	URL string
	// API is "completions" (default) or "chat".
	API string
	// Model is sent in every request; empty asks /v1/models for the first.
	Model string
	// MaxTokens is the requested output length (default 64).
	MaxTokens int
	// PromptTokens is the prompt length in words (default 32, at least 2).
	// Each generated prompt starts with a word made from PromptSalt (see
	// PromptReuse), then the request id and filler words: a prefix cache
	// can reuse only what PromptReuse shares.
	PromptTokens int
	// PromptSalt makes the generated prompts of a run (PromptKey; with
	// PromptReuse shared-prefix or same it is their first word), recorded
	// in the header's meta.prompt_salt; empty: a fresh random salt per run, so
	// that a second run cannot be served from the first one's prompt
	// cache. Give the salt of an earlier run to repeat it exactly. Not
	// used with a Dataset, whose prompts are sent as written.
	PromptSalt string
	// PromptReuse is what the requests of a run share (default none),
	// recorded as conditions.prefix_reuse.
	PromptReuse PromptReuse
	// IgnoreEOS asks vLLM-style servers to generate exactly MaxTokens.
	IgnoreEOS bool
	// ContinuousUsage asks for usage on every chunk (vLLM's
	// stream_options.continuous_usage_stats), so that multi-token events
	// get their real token count instead of 1.
	ContinuousUsage bool

	// Open loop.
	Rate       float64
	Arrival    Arrival // default Poisson
	Burstiness float64 // gamma shape (default 1)
	// MaxConcurrency, when positive, caps the open loop's requests in
	// flight: an arrival that would exceed it waits for a free slot (its
	// send lag, meta.scheduled_ms to start_ms, records the wait). A request
	// holds its slot through its retries. Arrivals still waiting when the
	// window ends are not sent (Result.Unsent).
	MaxConcurrency int
	// Replay holds send offsets from the run start in ms (e.g. a trace's
	// start times minus the first); it replaces Rate and Arrival.
	Replay []float64

	// Closed loop: Concurrency users, each sending its next request when
	// the previous one ends plus ThinkTime.
	Concurrency int
	ThinkTime   time.Duration

	// Warmup is sent and recorded but lies before the window; the window
	// is [Warmup, Warmup+Duration) and no request is scheduled after it.
	Warmup   time.Duration
	Duration time.Duration
	// NumRequests, when positive, stops scheduling once that many business
	// requests planned in the window have been sent (warm-up requests and
	// retries are not counted; the retries of those requests still run). The
	// window then ends when the last attempt ends; Duration still bounds it.
	NumRequests int64
	// Timeout bounds a whole attempt, send to end of stream (0: none).
	Timeout time.Duration
	// Retries is how many more attempts a failed request gets (connect
	// errors, 429, 5xx, timeouts), each a new attempt with the same request
	// id, after RetryBackoff.
	Retries      int
	RetryBackoff time.Duration

	Seed uint64
	// Header is added to every request (e.g. Authorization).
	Header http.Header
	// Client defaults to a transport with no compression and enough idle
	// connections for the rate.
	Client *http.Client
	// Conditions are merged into the header's condition list.
	Conditions map[string]any
	// Dataset, when set, supplies the prompts instead of generated ones:
	// business request n sends item n mod len(Items), in order. Each
	// complete answer to an item with an expectation is judged after its
	// attempt ends (quality pass or fail, meta.judge); the others stay
	// unrated. PromptTokens does not apply.
	Dataset *dataset.Set

	// MetricsURL, when set with MetricsSink, is the server's Prometheus
	// endpoint, scraped every MetricsEvery (default 1 s) from the run start
	// to its end; one Scrape per line goes to MetricsSink (a sidecar file,
	// on the trace's clock), errors included.
	MetricsURL   string
	MetricsEvery time.Duration
	MetricsSink  io.Writer

	// Progress, if set, is called every ProgressEvery (default 1 s) and once
	// at the end, from its own goroutine.
	Progress      func(Progress)
	ProgressEvery time.Duration
}

// Progress is the live view of a run. Its TTFT percentiles come from an
// HDR histogram of complete successes so far (3 significant digits): good
// for watching, not for reporting; the card recomputes them exactly.
type Progress struct {
	Elapsed  time.Duration
	Phase    string // "warmup", "window", "drain" or "done"
	Sent     int64
	Done     int64
	InFlight int64
	Errors   int64   // attempts that ended in anything but ok or in_flight
	Rate     float64 // sends per second since the previous report
	TTFTP50  float64 // ms; 0 before the first success (TTFTN 0)
	TTFTP95  float64
	TTFTN    int64   // complete successes the TTFT percentiles are over
	LagP99   float64 // ms between schedule and send, open loop

	// Rated and Passes count the answers judged so far (with a Dataset).
	Rated, Passes int64
}

func (p Progress) String() string {
	ttft := "TTFT — (no answer yet)" // not 0 ms: there is no TTFT to show
	if p.TTFTN > 0 {
		ttft = fmt.Sprintf("TTFT p50 %.1f ms p95 %.1f ms", p.TTFTP50, p.TTFTP95)
	}
	s := fmt.Sprintf("%6.1fs %-6s sent %d (%.1f/s) in flight %d errors %d %s lag p99 %.2f ms",
		p.Elapsed.Seconds(), p.Phase, p.Sent, p.Rate, p.InFlight, p.Errors, ttft, p.LagP99)
	if p.Rated > 0 {
		s += fmt.Sprintf(" quality pass %d/%d", p.Passes, p.Rated)
	}
	return s
}

// Result summarises a run. The card is computed from the trace; this is
// what only the client knows: how late the sends were and whether every
// send was recorded.
type Result struct {
	Sent, Recorded int64
	Outcomes       map[string]int64
	Window         trace.Window
	// Lag is actual send time − scheduled send time, ms, over every attempt
	// (exact order statistics, nearest rank).
	Lag     LagStats
	Elapsed time.Duration
	// Start is the origin of the trace clock (time.Now when the run began).
	Start time.Time
	// Interrupted is true when ctx ended the run before its schedule did;
	// RunEnd is the header's conditions.run_end.
	Interrupted bool
	RunEnd      trace.RunEnd
	Model       string
	// PromptSalt is the salt the generated prompts started with (empty
	// with a dataset).
	PromptSalt string
	// Rated and Passes count the answers judged (with a Dataset).
	Rated, Passes int64
	// Unsent counts arrivals of the schedule still waiting for a slot
	// (MaxConcurrency) when the window ended: never sent, not in the trace.
	Unsent int64
}

// Interrupted is a cancellation cause that carries when the interrupt
// happened. Cancel the run's context with it (context.WithCancelCause)
// when that moment is known, e.g. in a signal handler: the window then
// ends exactly there. A plain cancellation ends the window when the run
// notices it, a few microseconds later on an idle machine.
type Interrupted struct {
	At time.Time
}

func (i Interrupted) Error() string {
	return "interrupted at " + i.At.Format(time.RFC3339Nano)
}

// LagStats are nearest-rank order statistics of send lag in ms.
type LagStats struct {
	N             int
	P50, P99, Max float64
}

type runner struct {
	cfg      Config
	ctx      context.Context
	start    time.Time
	client   *http.Client
	fresh    *http.Client // no connection reuse: for a retry after a dead pooled connection
	endpoint string
	chat     bool
	end      time.Duration // no request is scheduled at or after start+end

	bodyHead, bodyTail []byte   // the request JSON around the request id
	noID               bool     // prompt reuse same: the body has no request id
	keyed              bool     // prompt reuse none: the prompt starts with the request's key
	bodies             [][]byte // with a dataset: one request JSON per item
	live               bool     // keep the live view's histograms (Progress is set)
	judging            bool     // some dataset item has an expectation
	toJudge            chan finished
	passes, rated      atomic.Int64

	sent, done, inflight, errs atomic.Int64
	ids                        atomic.Int64
	wg                         sync.WaitGroup
	out                        chan *trace.Attempt
	jobs                       chan job      // open loop: idle workers take the next send here
	stop                       chan struct{} // closed when the schedule is done: idle workers exit
	windowReqs                 atomic.Int64  // business requests sent in the window, for NumRequests
	slots                      chan struct{} // MaxConcurrency: one token per request in flight
	unsent                     atomic.Int64  // arrivals dropped at the window's end while waiting for a slot
	capped                     atomic.Bool   // NumRequests was reached

	mu   sync.Mutex
	ttft *hdrhistogram.Histogram // µs
	lag  *hdrhistogram.Histogram // µs, live view
	lags []float64
}

// now is the run clock: ms since the start, on the monotonic clock,
// rounded to the microsecond.
func (r *runner) now() float64 {
	return math.Round(float64(time.Since(r.start).Nanoseconds())/1e3) / 1e3
}

// Validate checks the config and fills in the arrival defaults (Poisson,
// burstiness 1). Run calls it; tools call it first to tell bad flags from
// a failed run.
func (c *Config) Validate() error {
	loops := 0
	if c.Rate != 0 {
		loops++
	}
	if c.Concurrency != 0 {
		loops++
	}
	if len(c.Replay) > 0 {
		loops++
	}
	switch {
	case loops != 1:
		return errors.New("give exactly one of a rate (open loop), a replay schedule or a concurrency (closed loop)")
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("rate must be a positive number, got %g", c.Rate)
	case c.Concurrency < 0:
		return fmt.Errorf("concurrency must be positive, got %d", c.Concurrency)
	case c.MaxConcurrency < 0:
		return fmt.Errorf("max concurrency must be positive, got %d", c.MaxConcurrency)
	case c.MaxConcurrency > 0 && c.Concurrency > 0:
		return errors.New("max concurrency caps an open loop (a rate or a replay); a closed loop's concurrency is already its cap")
	case c.NumRequests < 0:
		return fmt.Errorf("the number of requests must be positive, got %d", c.NumRequests)
	case c.Duration <= 0 && len(c.Replay) == 0:
		return errors.New("duration must be positive")
	case c.Warmup < 0 || c.Timeout < 0 || c.ThinkTime < 0 || c.Retries < 0 || c.RetryBackoff < 0:
		return errors.New("warmup, timeout, think time, retries and backoff must not be negative")
	case c.MaxTokens < 0 || c.PromptTokens < 0:
		return errors.New("max tokens and prompt tokens must not be negative")
	case c.URL == "":
		return errors.New("no URL")
	case c.Dataset != nil && len(c.Dataset.Items) == 0:
		return errors.New("the dataset has no prompts")
	}
	if err := c.validatePrompts(); err != nil {
		return err
	}
	for i, t := range c.Replay {
		if t < 0 || math.IsNaN(t) || math.IsInf(t, 0) || (i > 0 && t < c.Replay[i-1]) {
			return fmt.Errorf("replay offset %d (%g ms) is negative or out of order", i, t)
		}
	}
	switch c.API {
	case "", "completions", "chat":
	default:
		return fmt.Errorf("unknown API %q (want completions or chat)", c.API)
	}
	if c.Rate > 0 {
		if c.Arrival == "" {
			c.Arrival = Poisson
		}
		if c.Burstiness == 0 {
			c.Burstiness = 1
		}
		if _, err := Gaps(c.Arrival, c.Rate, c.Burstiness, c.Seed); err != nil {
			return err
		}
	}
	return nil
}

// NewClient is the default HTTP client: no compression (it would buffer
// the stream), no overall timeout (the run's per-attempt timeout applies),
// and enough idle connections that an open loop never waits for one.
func NewClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 4096,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}}
}

// ResolveModel asks the server's /v1/models for the first model id.
func ResolveModel(ctx context.Context, client *http.Client, baseURL string, h http.Header) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base(baseURL)+"/v1/models", nil)
	if err != nil {
		return "", err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /v1/models: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Data) == 0 {
		return "", fmt.Errorf("GET /v1/models: no model listed (%v)", err)
	}
	return list.Data[0].ID, nil
}

func base(u string) string {
	u = strings.TrimRight(u, "/")
	return strings.TrimSuffix(u, "/v1")
}

// Run measures, writing the trace to w as it goes. It returns when the
// schedule is done and every attempt has ended, or soon after ctx is
// cancelled; either way every attempt sent is in the trace. The error is
// non-nil only if the trace could not be written or the config is bad.
func Run(ctx context.Context, cfg Config, w io.Writer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = 64
	}
	if cfg.PromptTokens == 0 {
		cfg.PromptTokens = 32
	}
	if cfg.PromptSalt == "" && cfg.Dataset == nil {
		cfg.PromptSalt = NewPromptSalt()
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = time.Second
	}
	client := cfg.Client
	if client == nil {
		client = NewClient()
		defer client.CloseIdleConnections()
	}
	if cfg.Model == "" {
		m, err := ResolveModel(ctx, client, cfg.URL, cfg.Header)
		if err != nil {
			return nil, fmt.Errorf("no --model given and %v", err)
		}
		cfg.Model = m
	}
	dur := cfg.Duration
	if len(cfg.Replay) > 0 && dur <= 0 {
		dur = time.Duration((cfg.Replay[len(cfg.Replay)-1]+1)*1e6) - cfg.Warmup
		if dur <= 0 {
			dur = time.Millisecond
		}
	}
	fresh := client
	if t, ok := client.Transport.(*http.Transport); ok {
		t = t.Clone()
		t.DisableKeepAlives = true
		fresh = &http.Client{Transport: t, CheckRedirect: client.CheckRedirect, Jar: client.Jar}
		defer t.CloseIdleConnections()
	}
	r := &runner{
		cfg:      cfg,
		ctx:      ctx,
		client:   client,
		fresh:    fresh,
		chat:     cfg.API == "chat",
		end:      cfg.Warmup + dur,
		out:      make(chan *trace.Attempt, 1024),
		jobs:     make(chan job),
		stop:     make(chan struct{}),
		ttft:     hdrhistogram.New(1, 3_600_000_000, 3),
		lag:      hdrhistogram.New(1, 3_600_000_000, 3),
		endpoint: base(cfg.URL) + "/v1/completions",
	}
	if r.chat {
		r.endpoint = base(cfg.URL) + "/v1/chat/completions"
	}
	if cfg.MaxConcurrency > 0 {
		r.slots = make(chan struct{}, cfg.MaxConcurrency)
	}
	r.bodyHead, r.bodyTail = r.bodyTemplate()
	if cfg.Dataset != nil {
		r.datasetBodies()
	}
	r.live = cfg.Progress != nil
	planned := trace.Window{StartMS: ms(cfg.Warmup), EndMS: ms(cfg.Warmup + dur)}
	h := trace.Header{
		Trace:      trace.Version,
		Clock:      "client",
		Window:     planned,
		Conditions: r.conditions(dur),
		Meta:       headerMeta(cfg, time.Now()), // provisional: the final header has the clock's origin
	}
	end := trace.RunEnd{Reason: trace.RunNotFinished, PlannedDurationMS: ms(dur), PlannedWindow: planned, NumRequests: cfg.NumRequests}
	first, err := h.WithRunEnd(end)
	if err != nil {
		return nil, err
	}
	snk, aw, err := newSink(w, first)
	if err != nil {
		return nil, err
	}
	defer snk.close()
	tw := trace.NewAttemptWriter(aw)
	res := &Result{Outcomes: map[string]int64{}, Window: planned, Model: cfg.Model, PromptSalt: cfg.PromptSalt}

	// The writer: one attempt per line, flushed as soon as it ends (when
	// several end together, once after the last of them: one write call
	// for the batch instead of one per attempt).
	var werr error
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		for a := range r.out {
			if werr == nil {
				if werr = tw.Write(a); werr == nil && len(r.out) == 0 {
					werr = tw.Flush()
				}
			}
			res.Recorded++
			res.Outcomes[a.Outcome.String()]++
		}
		if werr == nil {
			werr = tw.Flush()
		}
	}()

	r.start = time.Now()
	var stopAt float64
	stamped := make(chan struct{})
	unwatch := context.AfterFunc(ctx, func() {
		defer close(stamped)
		stopAt = r.now()
		var in Interrupted
		if errors.As(context.Cause(ctx), &in) {
			stopAt = max(0, math.Round(ms(in.At.Sub(r.start))*1e3)/1e3)
		}
	})
	stopProgress := r.progress()
	stopScrapes := r.startScrapes()
	stopJudges := r.startJudges()
	switch {
	case cfg.Concurrency > 0:
		r.closedLoop()
	default:
		r.openLoop()
	}
	close(r.stop)
	r.wg.Wait()
	drained := r.now()
	serr := stopScrapes()
	stopJudges()
	close(r.out)
	<-wdone
	stopProgress()

	res.Sent = r.sent.Load()
	res.Rated, res.Passes = r.rated.Load(), r.passes.Load()
	res.Unsent = r.unsent.Load()
	res.Start = r.start
	end.Reason = trace.RunCompleted
	if !unwatch() { // ctx ended the run
		<-stamped // the interrupt's stamp runs on its own goroutine: wait for it
		res.Interrupted = true
		end.Reason, end.AtMS = trace.RunInterrupted, &stopAt
	} else if r.capped.Load() {
		end.Reason, end.AtMS = trace.RunNumRequests, &drained
	}
	res.Elapsed = time.Since(r.start) // after the stamp, so an interrupt never lies past the run's end
	res.RunEnd = end
	h.Meta = headerMeta(cfg, r.start)
	final, err := h.WithRunEnd(end)
	if err == nil {
		res.Window = final.Window
		if werr == nil {
			werr = snk.finish(final)
		}
	} else if werr == nil {
		werr = err
	}
	slices.Sort(r.lags)
	if n := len(r.lags); n > 0 {
		res.Lag = LagStats{N: n, P50: r.lags[metrics.NearestRankIndex(n, 0.50)], P99: r.lags[metrics.NearestRankIndex(n, 0.99)], Max: r.lags[n-1]}
	}
	if werr != nil {
		return res, fmt.Errorf("writing the trace: %w", werr)
	}
	if serr != nil {
		return res, fmt.Errorf("writing the metrics sidecar: %w", serr)
	}
	if res.Sent != res.Recorded {
		return res, fmt.Errorf("sent %d attempts but recorded %d", res.Sent, res.Recorded)
	}
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// StartedAtLayout is the header's meta.started_at: RFC 3339, UTC, to the
// microsecond (the trace clock's resolution), fixed width.
const StartedAtLayout = "2006-01-02T15:04:05.000000Z07:00"

// headerMeta is the header's meta: which tool made the trace, the wall
// clock at the origin of the trace clock (started_at), the server URL as
// given and the client build, so a trace says when, against what and with
// what it was measured.
func headerMeta(c Config, start time.Time) json.RawMessage {
	m := map[string]any{
		"tool":       "coursekit bench",
		"started_at": start.UTC().Format(StartedAtLayout),
		"url":        c.URL,
		"client":     coursekit.ClientVersion(),
	}
	if c.PromptSalt != "" {
		m["prompt_salt"] = c.PromptSalt
	}
	b, _ := json.Marshal(m)
	return b
}

// conditions is the condition list the unit asks every measurement to fix,
// written into the trace header.
func (r *runner) conditions(dur time.Duration) json.RawMessage {
	c := r.cfg
	m := map[string]any{
		"tool":          "coursekit bench",
		"model":         c.Model,
		"api":           map[bool]string{false: "completions", true: "chat"}[r.chat],
		"max_tokens":    c.MaxTokens,
		"ignore_eos":    c.IgnoreEOS,
		"prompt_tokens": c.promptWords(),
		"prompt":        c.promptText(),
		"prefix_reuse":  c.prefixReuse(),
		"warmup_ms":     ms(c.Warmup),
		"duration_ms":   ms(dur),
		"window":        "attempts sent in [warmup, warmup+duration); warm-up attempts are recorded outside the window; no request is scheduled after the window",
		"timeout_ms":    ms(c.Timeout),
		"interrupt":     "on an interrupt (Ctrl-C, SIGTERM) the window ends at that moment (run_end.at_ms) and attempts still running are in_flight, not failures; run_end.planned_duration_ms keeps the plan",
		"timeout_policy": "per attempt, from send to end of stream; an attempt cut by it is timeout, " +
			"with the events that arrived before (none if no first token)",
		"retries":          c.Retries,
		"retry_backoff_ms": ms(c.RetryBackoff),
		"retry_on":         "connect_error, timeout, http 429 and 5xx; a retry is a new attempt with the same request id",
		"seed":             c.Seed,
		"clock":            "client monotonic clock, ms since the run start, stamped when each SSE message is complete",
		"ttft_rule":        "first SSE data message that carries output text (a non-empty text, delta.content or reasoning); role-only, empty and finish-only chunks are not events (counted in meta.stream)",
		"interval_unit":    "event",
		"event_tokens":     "from per-chunk usage.completion_tokens when the server sends usage on every chunk, else 1 per event; a stream's final cumulative usage is its output_tokens, not one event's",
		"continuous_usage": c.ContinuousUsage,
		"ok_rule":          "HTTP 2xx and a stream ending in [DONE] (or a clean end after a finish_reason) with at least one event",
	}
	switch {
	case c.Concurrency > 0:
		m["loop"] = "closed"
		m["concurrency"] = c.Concurrency
		m["think_time_ms"] = ms(c.ThinkTime)
		m["arrival"] = "closed loop: each user sends when its previous request ends (+ think time); the rate falls as the server slows"
	case len(c.Replay) > 0:
		m["loop"] = "open"
		m["arrival"] = "replay"
		m["replay_requests"] = len(c.Replay)
	default:
		m["loop"] = "open"
		m["arrival"] = string(c.Arrival)
		m["rate_per_s"] = c.Rate
		if c.Arrival == Gamma {
			m["burstiness"] = c.Burstiness
		}
		m["schedule"] = "fixed in advance from the seed, free-running (not rescaled); each attempt's meta.scheduled_ms is its planned send time"
	}
	if c.MaxConcurrency > 0 {
		m["max_concurrency"] = c.MaxConcurrency
		m["max_concurrency_rule"] = "open-loop arrivals, at most max_concurrency requests in flight (a request keeps its slot through its retries); an arrival that would exceed it waits, and the wait is in its send lag (start_ms − meta.scheduled_ms); arrivals still waiting when the window ends are not sent"
	}
	datasetConditions(m, c.Dataset)
	for k, v := range c.Conditions {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

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

// closedLoop runs Concurrency users; each waits for its previous request.
func (r *runner) closedLoop() {
	for range r.cfg.Concurrency {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for r.ctx.Err() == nil && time.Since(r.start) < r.end {
				now := r.now() // the planned send time counts, as in the open loop
				send, more := r.take(time.Duration(now * 1e6))
				if !send {
					return
				}
				r.request(r.nextJob(now))
				if !more {
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
// retries while the outcome is retryable.
func (r *runner) request(j job) {
	id, scheduled := j.id, j.scheduled
	aid := id
	for try := 0; ; try++ {
		var text *[]byte
		if r.judging {
			text = texts.Get().(*[]byte)
		}
		a := r.attempt(aid, id, scheduled, j.item, text)
		if a == nil {
			if text != nil {
				texts.Put(text)
			}
			return
		}
		again := try < r.cfg.Retries && retryable(a) && r.ctx.Err() == nil
		r.emit(a, text, j.item) // the judges may now write a
		if !again {
			return
		}
		wait := time.Since(r.start) + r.cfg.RetryBackoff
		if !r.sleepUntil(wait) {
			return
		}
		scheduled = math.Round(ms(wait)*1e3) / 1e3
		aid = id + ".r" + strconv.Itoa(try+1)
	}
}

func retryable(a *trace.Attempt) bool {
	switch a.Outcome {
	case trace.ConnectError, trace.Timeout:
		return true
	case trace.HTTPError:
		return a.HTTPStatus == http.StatusTooManyRequests || a.HTTPStatus >= 500
	}
	return false
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
	var lastSent int64
	last := time.Now()
	report := func(final bool) {
		now := time.Now()
		sent := r.sent.Load()
		p := Progress{Elapsed: now.Sub(r.start), Sent: sent, Done: r.done.Load(), InFlight: r.inflight.Load(), Errors: r.errs.Load(),
			Rated: r.rated.Load(), Passes: r.passes.Load()}
		if dt := now.Sub(last).Seconds(); dt > 0 {
			p.Rate = float64(sent-lastSent) / dt
		}
		lastSent, last = sent, now
		p.Phase = r.phase(p.Elapsed)
		if final {
			p.Phase = "done"
		}
		r.mu.Lock()
		if p.TTFTN = r.ttft.TotalCount(); p.TTFTN > 0 {
			p.TTFTP50 = float64(r.ttft.ValueAtQuantile(50)) / 1e3
			p.TTFTP95 = float64(r.ttft.ValueAtQuantile(95)) / 1e3
		}
		if r.lag.TotalCount() > 0 {
			p.LagP99 = float64(r.lag.ValueAtQuantile(99)) / 1e3
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
