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
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

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
	// ClientLag is how late the client itself woke, ms: the lag of a probe
	// on a monotonic ticker every LatenessTick, over the run (see
	// meta.client_lag_ms for each attempt's share of it).
	ClientLag LagStats
	// Unanswered is the run's tail in which nothing took a connection.
	Unanswered Unanswered
	// FirstFailure is the first recorded failure, "outcome: error" cut to
	// 200 bytes (empty when none failed): what a run with no success shows
	// its user.
	FirstFailure string
}

// Unanswered says from when nothing answered: FromMS is the last response
// byte of the run (trace.Attempt.LastResponseMS; 0 if none), and
// ConnectErrors counts the connect_error attempts that started at or
// after it (0: none). A no_response's end is no answer: it dates when the
// connection closed, not when the server last spoke.
type Unanswered struct {
	FromMS        float64
	ConnectErrors int64
}

// Interrupted is a cancellation cause that carries when the interrupt
// happened. Cancel the run's context with it (context.WithCancelCause)
// when that moment is known, e.g. in a signal handler: the window then
// ends exactly there. A plain cancellation ends the window when the run
// notices it, a few microseconds later on an idle machine.
type Interrupted struct {
	At time.Time
	// Reason is run_end.reason for the trace: "" is trace.RunInterrupted
	// (Ctrl-C, a cancelled search); trace.RunOverload is a capacity step
	// stopped because the server fell behind.
	Reason string
}

func (i Interrupted) Error() string {
	return "interrupted at " + i.At.Format(time.RFC3339Nano)
}

// LagStats are nearest-rank order statistics of send lag in ms.
type LagStats struct {
	N             int
	P50, P99, Max float64
}

// lagStats sorts lags (ms) and reads their nearest-rank P50, P99 and
// maximum, rounded to the microsecond of the trace clock.
func lagStats(lags []float64) LagStats {
	slices.Sort(lags)
	n := len(lags)
	if n == 0 {
		return LagStats{}
	}
	us := func(v float64) float64 { return math.Round(v*1e3) / 1e3 }
	return LagStats{N: n, P50: us(lags[metrics.NearestRankIndex(n, 0.50)]), P99: us(lags[metrics.NearestRankIndex(n, 0.99)]), Max: us(lags[n-1])}
}

type runner struct {
	cfg      Config
	ctx      context.Context
	start    time.Time
	client   *http.Client
	fresh    *http.Client // no connection reuse: for a retry after a dead pooled connection
	endpoint string
	chat     bool
	hide     *Hide         // the bearer token, should the server echo it (Hider)
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
	arrivals                   atomic.Int64  // business requests sent (first attempts)
	capped                     atomic.Bool   // NumRequests was reached

	late *latenessProbe // the client's own wake-up lag

	// sendSpan is how long sends could be made (ns): the planned warm-up
	// and window, or until the NumRequests cap's last answer; the final
	// progress report's mean rate is over it (cut by an interrupt).
	sendSpan atomic.Int64

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

// NewClient is the default HTTP client: no compression (it would buffer
// the stream), no overall timeout (the run's per-attempt timeout applies),
// enough idle connections that an open loop never waits for one, response
// headers capped at MaxResponseHeaderBytes, and no redirect followed (Run
// and ResolveModel refuse redirects whatever client they are given).
func NewClient() *http.Client {
	return oneOrigin(&http.Client{Transport: &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost:    4096,
		IdleConnTimeout:        90 * time.Second,
		DisableCompression:     true,
		MaxResponseHeaderBytes: MaxResponseHeaderBytes,
	}})
}

// ResolveModel asks the server's /v1/models for the first model id. A
// redirect is an error, not followed, and the body is read up to
// MaxModelsBytes. An id longer than MaxModelIDBytes is an error: the id
// goes into every request and the trace header.
func ResolveModel(ctx context.Context, client *http.Client, baseURL string, h http.Header) (string, error) {
	ids, err := listModels(ctx, client, baseURL, h)
	if err != nil {
		return "", err
	}
	if id := ids[0]; len(id) > MaxModelIDBytes {
		return "", fmt.Errorf("%s: the first model id is %d bytes, longer than a model id (at most %d): give --model", modelsGet(baseURL), len(id), MaxModelIDBytes)
	}
	return ids[0], nil
}

// modelsGet names the pre-flight's request, the whole URL it asks
// (redacted: RedactURL), so that a wrong path in --url shows (walk 35l:
// "GET /v1/models: 404" hid that it asked …/v2/v1/models).
func modelsGet(baseURL string) string {
	return "GET " + RedactURL(Endpoint(baseURL, "/v1/models"))
}

// listModels are the model ids /v1/models lists, as they are (at least one).
func listModels(ctx context.Context, client *http.Client, baseURL string, h http.Header) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	if client == nil {
		client = NewClient()
	}
	client = oneOrigin(client)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, Endpoint(baseURL, "/v1/models"), nil)
	if err != nil {
		return nil, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	var connected atomic.Bool
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { connected.Store(true) }}
	probeCtx, stopProbe := context.WithCancel(ctx)
	tw := watchTLS(probeCtx, client, baseURL, trace, cancel)
	defer tw.wait()
	defer stopProbe()
	req = req.WithContext(httptrace.WithClientTrace(ctx, trace))
	resp, err := client.Do(req)
	if err != nil {
		if msg, ok := serverFault(err); ok {
			return nil, fmt.Errorf("%s: %s", modelsGet(baseURL), msg)
		}
		if terr := tw.err(baseURL, err); terr != nil {
			return nil, terr
		}
		if (connected.Load() || tw.handshakeHung()) && ctx.Err() == context.DeadlineExceeded {
			return nil, silent{err: err, tls: !connected.Load()}
		}
		var ue *url.Error
		if errors.As(err, &ue) { // it quotes the URL: its user and query's secrets stay here
			red := *ue
			red.URL = RedactURL(ue.URL)
			return nil, &red
		}
		return nil, err
	}
	defer resp.Body.Close()
	if isRedirect(resp.StatusCode) {
		return nil, fmt.Errorf("%s: %s", modelsGet(baseURL), redirectError(resp))
	}
	if resp.StatusCode == http.StatusServiceUnavailable {
		return nil, notReady{get: modelsGet(baseURL), status: safetext.Name(resp.Status)}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", modelsGet(baseURL), safetext.Name(resp.Status))
	}
	body, err := io.ReadAll(&capReader{r: resp.Body, maxBytes: MaxModelsBytes})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", modelsGet(baseURL), err)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil || len(list.Data) == 0 {
		return nil, fmt.Errorf("%s: no model listed (%v)", modelsGet(baseURL), err)
	}
	ids := make([]string, len(list.Data))
	for i, d := range list.Data {
		ids[i] = d.ID
	}
	return ids, nil
}

// notReady is a 503 to GET /v1/models: what llama.cpp's server (and
// others) answer while the model is still loading, not a sign that the
// URL is not an OpenAI-compatible server (walk 35j).
type notReady struct{ get, status string }

func (e notReady) Error() string { return e.get + ": " + e.status }

// Preflight checks, before any load is sent, that baseURL answers as an
// OpenAI-compatible server: GET /v1/models (what a client asks first,
// and no inference: a cold server stays cold for the run) must answer 200
// with a JSON list of models. The error says which of the two it is not:
// nothing answers at the URL (refused, unreachable), or something answers
// that is not such a server (404, HTML, a redirect, an empty list).
func Preflight(ctx context.Context, client *http.Client, baseURL string, h http.Header) error {
	return PreflightModel(ctx, client, baseURL, h, "")
}

// PreflightModel is Preflight that also checks model (when not empty)
// against the list: a model the server does not list would turn the
// whole run into errors, so the error names the models it offers.
func PreflightModel(ctx context.Context, client *http.Client, baseURL string, h http.Header, model string) error {
	ids, err := listModels(ctx, client, baseURL, h)
	if err == nil {
		if model == "" || slices.Contains(ids, model) {
			return nil
		}
		return fmt.Errorf("%s answers, but --model %q is not among the models it lists: %s", RedactURL(baseURL), model, modelList(ids, Hider(h)))
	}
	var ue *url.Error
	var sl silent
	switch {
	case errors.As(err, &plainHTTP{}), errors.As(err, &notTLS{}):
		return err
	case errors.As(err, &notReady{}):
		return fmt.Errorf("%s answers but is not ready yet (%v): a server still loading its model says 503; wait until it is ready and run again", RedactURL(baseURL), err)
	case errors.As(err, &sl) && sl.tls:
		return fmt.Errorf("%s accepted the connection but did not answer the TLS handshake within %s s (a server still loading, hung, or not speaking TLS there: if it serves plain HTTP, use %s)", RedactURL(baseURL), numfmt.Num(preflightTimeout.Seconds()), RedactURL(plainURL(baseURL)))
	case errors.As(err, &sl):
		return fmt.Errorf("%s accepted the connection but did not answer %s within %s s (a server still loading, hung, or not speaking HTTP there)%s", RedactURL(baseURL), modelsGet(baseURL), numfmt.Num(preflightTimeout.Seconds()), baseHint(baseURL))
	case errors.As(err, &ue):
		return fmt.Errorf("nothing answers at %s (%v)", RedactURL(baseURL), ue.Err)
	}
	return fmt.Errorf("%s does not answer as an OpenAI-compatible server (%v)%s", RedactURL(baseURL), err, baseHint(baseURL))
}

// endpointPaths are the paths a learner may paste as --url: an endpoint,
// to which the pre-flight and the load would add their own path again.
var endpointPaths = []string{"/v1/chat/completions", "/v1/completions", "/chat/completions", "/completions"}

// baseHint is, when baseURL's path ends in an endpoint (endpointPaths),
// what to give instead: the URL without it, as "; ..." to append to the
// pre-flight's error; otherwise "".
func baseHint(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	p := strings.TrimRight(u.Path, "/")
	for _, e := range endpointPaths {
		if strings.HasSuffix(p, e) {
			u.Path, u.RawPath = strings.TrimSuffix(p, e), ""
			u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
			return "; --url is the server's base URL, not an endpoint (" + e + "): give " + RedactURL(u.String())
		}
	}
	return ""
}

// preflightTimeout bounds the pre-flight request (and ResolveModel's).
var preflightTimeout = 10 * time.Second

// silent is listModels' error when a connection was made and the request
// written (or, tls, the TLS handshake started), but no response came
// before the timeout: not "nothing answers", which is a refused or
// unreachable address.
type silent struct {
	err error
	tls bool
}

func (s silent) Error() string { return s.err.Error() }
func (s silent) Unwrap() error { return s.err }

// modelList quotes the first ids (printable, with the API key hidden).
func modelList(ids []string, hide *Hide) string {
	const most = 10
	var q []string
	for i, id := range ids {
		if i == most {
			q = append(q, fmt.Sprintf("… (%d more)", len(ids)-most))
			break
		}
		q = append(q, strconv.Quote(safetext.Name(hide.Replace(id))))
	}
	return strings.Join(q, ", ")
}

// transportOf is the *http.Transport under c (through noRedirect).
func transportOf(c *http.Client) (*http.Transport, bool) {
	rt := c.Transport
	if nr, ok := rt.(noRedirect); ok {
		rt = nr.base
	}
	t, ok := rt.(*http.Transport)
	return t, ok
}

// Endpoint is the URL of path (/v1/models, ...) on the server at base, a
// URL as --url takes it: with or without a trailing / or /v1, and with
// any query it has kept after the path (built with net/url: appended to
// the string, the path went after the query).
func Endpoint(base, path string) string {
	u, err := url.Parse(base)
	if err != nil {
		return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1") + path
	}
	trim := func(p string) string { return strings.TrimSuffix(strings.TrimRight(p, "/"), "/v1") }
	u.Path = trim(u.Path) + path
	if u.RawPath != "" {
		u.RawPath = trim(u.RawPath) + path
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// Run measures, writing the trace to w as it goes. It returns when the
// schedule is done and every attempt has ended, or soon after ctx is
// cancelled; either way every attempt sent is in the trace. The error is
// non-nil only if the trace could not be written or the config is bad.
//
// Its steps: the config with its defaults (withDefaults), the run's HTTP
// clients (runClients), the model when none is given, the runner built
// from them (newRunner), and the run itself (runner.run).
func Run(ctx context.Context, cfg Config, w io.Writer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	client, fresh, closeClients := runClients(cfg.Client)
	defer closeClients()
	if cfg.Model == "" {
		m, err := ResolveModel(ctx, client, cfg.URL, cfg.Header) // refuses redirects itself
		if err != nil {
			return nil, fmt.Errorf("no --model given and %v", err)
		}
		if h := Hider(cfg.Header); h != nil && h.Replace(m) != m {
			return nil, errors.New("no --model given and the first model /v1/models lists holds the --api-key-env token: give --model")
		}
		cfg.Model = m
	}
	return newRunner(ctx, cfg, client, fresh).run(w)
}

// DefaultMaxTokens is the max_tokens a run sends when its config gives none.
const DefaultMaxTokens = 64

// withDefaults fills what a config leaves zero: DefaultMaxTokens tokens,
// 32-word prompts, a fresh prompt salt (generated prompts), a report a
// second.
func (cfg Config) withDefaults() Config {
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
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
	return cfg
}

// runClients are the run's two clients, both held to one origin (no
// request, and no token, goes anywhere a redirect points): the given one
// (NewClient when nil) and a copy of its transport that never reuses a
// connection, for the retry after a dead pooled connection. closeClients
// closes the idle connections of what was made here.
func runClients(given *http.Client) (client, fresh *http.Client, closeClients func()) {
	var closers []func()
	client = given
	if client == nil {
		client = NewClient()
		closers = append(closers, client.CloseIdleConnections)
	}
	fresh = client
	if t, ok := transportOf(client); ok {
		t = t.Clone()
		t.DisableKeepAlives = true
		fresh = &http.Client{Transport: t, Jar: client.Jar}
		closers = append(closers, t.CloseIdleConnections)
	}
	closeClients = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	return oneOrigin(client), oneOrigin(fresh), closeClients
}

// windowOf is the measured window's length: the config's, or for a replay
// without one, the replay's own span after the warm-up (at least 1 ms).
func windowOf(cfg Config) time.Duration {
	dur := cfg.Duration
	if len(cfg.Replay) > 0 && dur <= 0 {
		dur = time.Duration((cfg.Replay[len(cfg.Replay)-1]+1)*1e6) - cfg.Warmup
		if dur <= 0 {
			dur = time.Millisecond
		}
	}
	return dur
}

// newRunner builds the runner of cfg (defaults filled, model known): its
// schedule's end, endpoint, request bodies and live-view histograms.
func newRunner(ctx context.Context, cfg Config, client, fresh *http.Client) *runner {
	r := &runner{
		cfg:      cfg,
		ctx:      ctx,
		client:   client,
		fresh:    fresh,
		chat:     cfg.API == "chat",
		hide:     Hider(cfg.Header),
		end:      cfg.Warmup + windowOf(cfg),
		out:      make(chan *trace.Attempt, 1024),
		jobs:     make(chan job),
		stop:     make(chan struct{}),
		ttft:     hdrhistogram.New(1, 3_600_000_000, 3),
		lag:      hdrhistogram.New(1, 3_600_000_000, 3),
		endpoint: Endpoint(cfg.URL, "/v1/completions"),
	}
	if r.chat {
		r.endpoint = Endpoint(cfg.URL, "/v1/chat/completions")
	}
	if cfg.MaxConcurrency > 0 {
		r.slots = make(chan struct{}, cfg.MaxConcurrency)
	}
	r.bodyHead, r.bodyTail = r.bodyTemplate()
	if cfg.Dataset != nil {
		r.datasetBodies()
	}
	r.live = cfg.Progress != nil
	return r
}

// run is the run: the provisional header first, then the load while the
// writer records each attempt as it ends, then the final header.
func (r *runner) run(w io.Writer) (*Result, error) {
	cfg, dur := r.cfg, windowOf(r.cfg)
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
	res := &Result{Outcomes: map[string]int64{}, Window: planned, Model: cfg.Model, PromptSalt: cfg.PromptSalt}
	written := r.startWriter(trace.NewAttemptWriter(aw), res)
	l := r.load()
	werr := written()
	l.stopProgress()
	res.ClientLag = r.late.stop()
	return r.finish(res, h, end, snk, l, werr)
}

// startWriter starts the writer: one attempt per line, flushed as soon as
// it ends (when several end together, once after the last of them: one
// write call for the batch instead of one per attempt), counted into res.
// The returned func waits for it, after r.out is closed, and gives its
// error.
func (r *runner) startWriter(tw *trace.Writer, res *Result) (wait func() error) {
	var werr error
	wdone := make(chan struct{})
	var connStarts []float64 // of the connect errors, for res.Unanswered
	go func() {
		defer close(wdone)
		defer func() { res.Unanswered = unanswered(res.Unanswered.FromMS, connStarts) }()
		for a := range r.out {
			if a.Outcome == trace.ConnectError {
				connStarts = append(connStarts, a.StartMS)
			} else if t, ok := a.LastResponseMS(); ok {
				res.Unanswered.FromMS = max(res.Unanswered.FromMS, t)
			}
			if werr == nil {
				hideAttempt(a, r.hide)
				if werr = tw.Write(a); werr == nil && len(r.out) == 0 {
					werr = tw.Flush()
				}
			}
			res.Recorded++
			res.Outcomes[a.Outcome.String()]++
			if a.Outcome != trace.OK && res.FirstFailure == "" {
				res.FirstFailure = shorten([]byte(a.Outcome.String() + ": " + a.Error))
			}
		}
		if werr == nil {
			werr = tw.Flush()
		}
	}()
	return func() error { <-wdone; return werr }
}

// unanswered counts the connect errors that started at or after from.
func unanswered(from float64, connStarts []float64) Unanswered {
	u := Unanswered{FromMS: from}
	for _, st := range connStarts {
		if st >= from {
			u.ConnectErrors++
		}
	}
	return u
}

// loaded is what the load leaves for the end of the run.
type loaded struct {
	drained      float64     // run clock when the last attempt ended
	serr         error       // the metrics sidecar's
	unwatch      func() bool // stops watching ctx; false if ctx ended the run
	stamped      chan struct{}
	stopAt       *float64 // the interrupt's stamp, once stamped is closed
	stopWhy      *string  // the interrupt's run_end reason, once stamped is closed
	stopProgress func()
}

// load sends the load: the clock starts, the interrupt is watched, the
// progress, scrapes and judges run beside the open or closed loop, and
// every attempt ends before it returns (r.out is closed).
func (r *runner) load() loaded {
	r.start = time.Now()
	r.late = startLateness(r.start)
	l := loaded{stamped: make(chan struct{}), stopAt: new(float64), stopWhy: new(string)}
	l.unwatch = context.AfterFunc(r.ctx, func() {
		defer close(l.stamped)
		*l.stopAt, *l.stopWhy = r.now(), trace.RunInterrupted
		var in Interrupted
		if errors.As(context.Cause(r.ctx), &in) {
			*l.stopAt = max(0, math.Round(ms(in.At.Sub(r.start))*1e3)/1e3)
			if in.Reason != "" {
				*l.stopWhy = in.Reason
			}
		}
	})
	l.stopProgress = r.progress()
	stopScrapes := r.startScrapes()
	stopJudges := r.startJudges()
	switch {
	case r.cfg.Concurrency > 0:
		r.closedLoop()
	default:
		r.openLoop()
	}
	close(r.stop)
	r.wg.Wait()
	l.drained = r.now()
	r.sendSpan.Store(int64(r.end))
	if r.capped.Load() {
		r.sendSpan.Store(int64(l.drained * 1e6))
	}
	l.serr = stopScrapes()
	stopJudges()
	close(r.out)
	return l
}

// finish completes res and writes the final header: what ended the run
// (completed, interrupted, the NumRequests cap), the window, the lags.
func (r *runner) finish(res *Result, h trace.Header, end trace.RunEnd, snk *sink, l loaded, werr error) (*Result, error) {
	res.Sent = r.sent.Load()
	res.Rated, res.Passes = r.rated.Load(), r.passes.Load()
	res.Unsent = r.unsent.Load()
	res.Start = r.start
	end.Reason = trace.RunCompleted
	if !l.unwatch() { // ctx ended the run
		<-l.stamped // the interrupt's stamp runs on its own goroutine: wait for it
		res.Interrupted = true
		end.Reason, end.AtMS = *l.stopWhy, l.stopAt
	} else if r.capped.Load() {
		end.Reason, end.AtMS = trace.RunNumRequests, &l.drained
	}
	res.Elapsed = time.Since(r.start) // after the stamp, so an interrupt never lies past the run's end
	res.Lag = lagStats(r.lags)
	if r.cfg.Concurrency == 0 { // an open loop's schedule: what it planned and sent
		sent := r.arrivals.Load()
		end.Sends = &trace.Sends{Planned: sent + res.Unsent, Sent: sent, Unsent: res.Unsent,
			LagN: int64(res.Lag.N), LagP50MS: res.Lag.P50, LagP99MS: res.Lag.P99, LagMaxMS: res.Lag.Max}
	}
	res.RunEnd = end
	h.Meta = headerMeta(r.cfg, r.start)
	final, err := h.WithRunEnd(end)
	if err == nil {
		res.Window = final.Window
		if werr == nil {
			werr = snk.finish(final)
		}
	} else if werr == nil {
		werr = err
	}
	if werr != nil {
		return res, fmt.Errorf("writing the trace: %w", werr)
	}
	if l.serr != nil {
		return res, fmt.Errorf("writing the metrics sidecar: %w", l.serr)
	}
	if res.Sent != res.Recorded {
		return res, fmt.Errorf("attempts sent: %d, recorded: %d", res.Sent, res.Recorded)
	}
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// StartedAtLayout is the header's meta.started_at: RFC 3339, UTC, to the
// microsecond (the trace clock's resolution), fixed width.
const StartedAtLayout = "2006-01-02T15:04:05.000000Z07:00"

// RedactURL is u without its user information (user and password: both
// xxxxx) and its fragment, and with the value of every query parameter
// whose name looks secret (secretQueryKey: api_key, token, auth, password,
// pw, sas, sig, access …, and code, an OAuth authorization code) replaced
// by "xxxxx": traces are shared and handed in, and a secret given in --url
// or --metrics-url must not travel with them. The query keeps its order
// and its other values as written.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	changed := p.User != nil || p.Fragment != "" || p.RawFragment != "" || strings.HasSuffix(u, "#")
	if p.RawQuery != "" {
		parts := strings.Split(p.RawQuery, "&")
		for i, kv := range parts {
			k, v, hasV := strings.Cut(kv, "=")
			name, err := url.QueryUnescape(k)
			if err != nil {
				name = k
			}
			if hasV && v != "" && secretQueryKey(name) {
				parts[i] = k + "=xxxxx"
				changed = true
			}
		}
		p.RawQuery = strings.Join(parts, "&")
	}
	if !changed {
		return u
	}
	if p.User != nil {
		p.User = url.User("xxxxx")
	}
	p.Fragment, p.RawFragment = "", ""
	return p.String()
}

// secretQueryKey says whether a query parameter's name looks like it holds a credential.
func secretQueryKey(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "code", "pw", "sas", "access": // an OAuth authorization code, a password, an Azure SAS, an access grant
		return true
	}
	for _, w := range []string{"key", "token", "auth", "pass", "pwd", "secret", "sig", "credential", "session", "jwt", "bearer", "cookie"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// redactErr is err's text with the URL of a *url.Error in it (what net/http's client returns,
// which quotes the whole request URL) passed through RedactURL; wrapping text is kept.
func redactErr(err error) string {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL != "" {
		red := RedactURL(ue.URL)
		msg = strings.ReplaceAll(msg, strconv.Quote(ue.URL), strconv.Quote(red)) // url.Error quotes it
		msg = strings.ReplaceAll(msg, ue.URL, red)
	}
	return msg
}

// headerMeta is the header's meta: which tool made the trace, the wall
// clock at the origin of the trace clock (started_at), the server URL as
// given and the client build, so a trace says when, against what and with
// what it was measured.
func headerMeta(c Config, start time.Time) json.RawMessage {
	m := map[string]any{
		"tool":       "coursekit bench",
		"started_at": start.UTC().Format(StartedAtLayout),
		"url":        RedactURL(c.URL),
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
		"retry_on":         "connect_error, no_response, timeout, http 429 and 5xx; a retry is a new attempt with the same request id",
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
		m["connect_backoff"] = fmt.Sprintf("after a connect_error a user waits %v before its next request, doubled on each further connect_error up to %v; any other outcome resets it", ConnectBackoffMin, ConnectBackoffMax)
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
