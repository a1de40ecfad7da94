// Package sim is an OpenAI-compatible streaming server with no GPU and no
// network: the default target of `coursekit bench`, the lab notebook and
// the tests.
//
// It is not a mock that answers instantly. Requests wait in a queue in
// front of a continuous-batching executor whose step time grows with the
// batch, so overload looks like it does on a real engine: the device is
// busy nearly all the time while the queue, the TTFT and the timeouts grow.
// That is the evidence that refutes "GPU 很忙所以用户一定很快".
//
// The server also keeps its own truth for every request (when it received
// it, when the first byte and every event left, on the server's monotonic
// clock), so that tests can measure how much error a client adds.
package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Faults are injection rates in [0, 1], drawn independently per request in
// this order; the first that fires wins.
type Faults struct {
	// HTTP429 and HTTP503 answer at once with that status and an
	// OpenAI-shaped error body, before any queueing.
	HTTP429 float64
	HTTP503 float64
	// NoFirstToken sends the 200 headers and then nothing: the client
	// must time out. The request never reaches the executor.
	NoFirstToken float64
	// Reset streams about half of the events, then resets the TCP
	// connection (RST, not a clean close).
	Reset float64
	// Malformed writes an SSE message whose JSON is cut short after the
	// first event, then carries on to [DONE] as if nothing happened.
	Malformed float64
}

// Config is the simulated engine. Zero fields take the defaults in
// DefaultConfig.
type Config struct {
	// Model is the name /v1/models lists and responses carry when the
	// request names none.
	Model string
	// MaxBatch is the most sequences a decode step runs together.
	MaxBatch int
	// PrefillPerToken is the cost of one input token in the step that
	// admits the sequence (the step that also yields its first token).
	PrefillPerToken time.Duration
	// DecodeStep is the time of a step with one sequence; each further
	// sequence in the batch adds DecodePerSeq. Bigger batches give more
	// tokens per second in total but slower steps for everyone.
	DecodeStep   time.Duration
	DecodePerSeq time.Duration
	// DefaultMaxTokens is the output length when a request gives no
	// max_tokens: a default, which a request's own max_tokens replaces
	// (coursekit bench and capacity always send one).
	DefaultMaxTokens int
	// OutputCap, when > 0, is the most tokens any answer gets, whatever
	// its max_tokens asks (finish_reason "length"): a server's own limit,
	// as a real engine's context or max-model-len imposes one.
	OutputCap int
	// MinOutput, when > 0, draws each output length uniformly from
	// [MinOutput, max_tokens] (finish_reason "stop" when shorter than
	// max_tokens), instead of always generating max_tokens.
	MinOutput int
	// TokensPerEvent coalesces k tokens into one SSE message, as
	// speculative decoding or proxies do: event intervals then differ
	// from token intervals.
	TokensPerEvent int
	Faults         Faults
	// WrongAnswerRate is the fraction of arith questions (coursekit bench
	// --dataset arith) answered wrong on purpose; the others are answered
	// right. Other prompts get filler words, as before.
	WrongAnswerRate float64
	// OverloadWrongAnswerRate, when higher, applies instead to questions
	// that arrive while every batch slot is taken: a busy server that
	// answers worse under overload.
	OverloadWrongAnswerRate float64
	// Seed makes output lengths and faults reproducible.
	Seed uint64
	// BusyWindow is how far back the device-busy gauge looks.
	BusyWindow time.Duration
	// TruthLimit bounds the in-memory truth log (oldest dropped first).
	TruthLimit int
	// AllowedHosts are Host header names served besides loopback ones
	// (localhost, 127.0.0.0/8, ::1) and the address Serve listens on; "*"
	// serves any. Other names get 421: a browser page whose name an
	// attacker re-points at this machine (DNS rebinding) cannot read the
	// simulator. Set it when sim is reached by a name on purpose.
	AllowedHosts []string
}

// DefaultConfig is a small engine that saturates at a few hundred
// requests per second of 64-token answers.
var DefaultConfig = Config{
	Model:            "sim-model",
	MaxBatch:         16,
	PrefillPerToken:  20 * time.Microsecond,
	DecodeStep:       10 * time.Millisecond,
	DecodePerSeq:     500 * time.Microsecond,
	DefaultMaxTokens: 64,
	TokensPerEvent:   1,
	Seed:             1,
	BusyWindow:       5 * time.Second,
	TruthLimit:       1 << 16,
}

func (c Config) withDefaults() Config {
	d := DefaultConfig
	if c.Model == "" {
		c.Model = d.Model
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = d.MaxBatch
	}
	if c.DecodeStep <= 0 {
		c.DecodeStep = d.DecodeStep
	}
	if c.DefaultMaxTokens <= 0 {
		c.DefaultMaxTokens = d.DefaultMaxTokens
	}
	if c.TokensPerEvent <= 0 {
		c.TokensPerEvent = 1
	}
	if c.BusyWindow <= 0 {
		c.BusyWindow = d.BusyWindow
	}
	if c.TruthLimit <= 0 {
		c.TruthLimit = d.TruthLimit
	}
	return c
}

// Server is one simulated engine. It is an http.Handler; start it with
// Serve, httptest.NewServer(s) or any http.Server, and Close it to stop the
// executor and release requests that hang by design.
type Server struct {
	cfg   Config
	start time.Time // origin of the server's monotonic clock
	mux   *http.ServeMux
	quit  chan struct{}
	once  sync.Once

	rngMu sync.Mutex
	rng   *rand.Rand

	exec *executor

	slow atomic.Uint64 // float64 bits of the step-time multiplier

	bound atomic.Pointer[string] // the host Serve listens on, when not loopback or unspecified

	truthMu sync.Mutex
	truth   []*Truth
	nextID  atomic.Uint64

	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	tokens   prometheus.Counter
}

// New builds a server and starts its executor.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:   cfg,
		start: time.Now(),
		quit:  make(chan struct{}),
		rng:   rand.New(rand.NewPCG(cfg.Seed, 0x73696d)), // "sim"
	}
	s.SetSlowdown(1)
	s.exec = newExecutor(s)
	s.initMetrics()
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) { s.serveGenerate(w, r, false) })
	s.mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.serveGenerate(w, r, true) })
	s.mux.HandleFunc("GET /v1/models", s.serveModels)
	s.mux.HandleFunc("GET /debug/truth", s.serveTruth)
	s.mux.HandleFunc("DELETE /debug/truth", s.clearTruth)
	s.mux.Handle("GET /metrics", s.metricsHandler())
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	go s.exec.run()
	return s
}

// Config returns the configuration in effect, defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// ServeHTTP implements http.Handler. It refuses what a browser page on
// another site could send: a Host that is not this machine's (421), and a
// POST that is not application/json (415), which a form or a simple fetch
// can send without a CORS preflight.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.hostAllowed(r.Host) {
		writeError(w, http.StatusMisdirectedRequest, fmt.Sprintf("Host %q is not served: the simulator answers loopback names and its own address (coursekit sim --allow-host adds others)", cut(r.Host, 200)))
		return
	}
	if r.Method == http.MethodPost {
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, "POST bodies must be Content-Type: application/json")
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// hostAllowed says whether a request's Host names this server.
func (s *Server) hostAllowed(hostport string) bool {
	if hostport == "" { // HTTP/1.0 without Host: not a browser
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	if b := s.bound.Load(); b != nil && strings.EqualFold(host, *b) {
		return true
	}
	for _, a := range s.cfg.AllowedHosts {
		if a == "*" || strings.EqualFold(host, a) {
			return true
		}
	}
	return false
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// Close stops the executor and releases every request still waiting in
// it; those streams end without [DONE]. It does not close connections:
// stop the http.Server for that.
func (s *Server) Close() {
	s.once.Do(func() { close(s.quit) })
}

// SetSlowdown multiplies every later step time by f (1 = as configured).
// The lab uses it to slow a running server down and watch a closed loop
// quietly send less while an open loop keeps sending.
func (s *Server) SetSlowdown(f float64) {
	if f <= 0 {
		f = 1
	}
	s.slow.Store(math.Float64bits(f))
}

func (s *Server) slowdown() float64 { return math.Float64frombits(s.slow.Load()) }

// Since is the server's monotonic clock: ms since New.
func (s *Server) Since() float64 { return ms(time.Since(s.start)) }

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Serve serves on ln until ctx is done, then closes every connection at
// once (streams under way break, as when a server is killed) and stops the
// executor. It returns nil after a shutdown caused by ctx.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && !ta.IP.IsUnspecified() && !ta.IP.IsLoopback() {
		h := ta.IP.String()
		s.bound.Store(&h) // a specific address is this machine's own name
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	hs.Close() // drop every connection first: streams break as when a server dies
	s.Close()
	<-errc
	return nil
}

// Truth is what the server itself saw of one request, on its own
// monotonic clock (ms since the server started). Compare a client's TTFT
// with FirstEventMS − ReceivedMS: the difference is what the client (and
// the loopback network) added.
type Truth struct {
	// ID is the request's X-Request-Id header, or the response id.
	ID         string `json:"id"`
	ResponseID string `json:"response_id"`
	Endpoint   string `json:"endpoint"`
	Stream     bool   `json:"stream"`
	// Fault is the injected fault: "", "http_429", "http_503",
	// "no_first_token", "reset" or "malformed".
	Fault  string `json:"fault,omitempty"`
	Status int    `json:"status"`
	// ReceivedMS is when the handler got the parsed request headers.
	ReceivedMS float64 `json:"received_ms"`
	// FirstByteMS is when the response headers were flushed (−1: never).
	FirstByteMS float64 `json:"first_byte_ms"`
	// Events are the SSE messages carrying tokens, each stamped just before
	// it was written and flushed to the connection.
	Events       []TruthEvent `json:"events"`
	EndMS        float64      `json:"end_ms"`
	InputTokens  int          `json:"input_tokens"`
	OutputTokens int          `json:"output_tokens"`
	// Outcome is how the server ended it: "ok", the fault, "client_gone"
	// (the client disconnected first), "shutdown" or "bad_request".
	Outcome string `json:"outcome"`
	Done    bool   `json:"done"`
	// Answer is the reply to an arith question, and WrongOnPurpose says
	// it was made wrong (Config.WrongAnswerRate).
	Answer         string `json:"answer,omitempty"`
	WrongOnPurpose bool   `json:"wrong_on_purpose,omitempty"`
}

// TruthEvent is one token-carrying SSE message as the server sent it.
type TruthEvent struct {
	MS     float64 `json:"ms"`
	Tokens int     `json:"tokens"`
}

// TTFT is the server-side time to first token, FirstEvent − Received.
func (t *Truth) TTFT() (float64, bool) {
	if len(t.Events) == 0 {
		return 0, false
	}
	return t.Events[0].MS - t.ReceivedMS, true
}

func (s *Server) newTruth(t *Truth) {
	s.truthMu.Lock()
	if len(s.truth) >= s.cfg.TruthLimit {
		n := copy(s.truth, s.truth[len(s.truth)/2:])
		clear(s.truth[n:])
		s.truth = s.truth[:n]
	}
	s.truth = append(s.truth, t)
	s.truthMu.Unlock()
}

// Truths returns a copy of the truth log of finished requests, oldest
// first. Requests still running are left out.
func (s *Server) Truths() []Truth {
	s.truthMu.Lock()
	defer s.truthMu.Unlock()
	out := make([]Truth, 0, len(s.truth))
	for _, t := range s.truth {
		if t.Done {
			c := *t
			c.Events = append([]TruthEvent(nil), t.Events...)
			out = append(out, c)
		}
	}
	return out
}

// update runs f on a truth record under the log's lock, so that Truths
// can copy records while handlers are still writing them.
func (s *Server) update(t *Truth, f func(*Truth)) {
	s.truthMu.Lock()
	f(t)
	s.truthMu.Unlock()
}

// ClearTruth empties the truth log, finished and running requests alike,
// so that a benchmark can take one log per run from one server.
func (s *Server) ClearTruth() {
	s.truthMu.Lock()
	clear(s.truth)
	s.truth = s.truth[:0]
	s.truthMu.Unlock()
}

// StartUnixMS is the wall-clock (Unix, ms) time of the server clock's
// origin: StartUnixMS + t maps a truth time t to wall-clock time, to line
// the log up with clients that only export wall-clock timestamps.
func (s *Server) StartUnixMS() float64 {
	return float64(s.start.UnixNano()) / 1e6
}

func (s *Server) serveTruth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(struct {
		Clock       string  `json:"clock"`
		StartUnixMS float64 `json:"start_unix_ms"`
		NowMS       float64 `json:"now_ms"`
		Truths      []Truth `json:"requests"`
	}{"server monotonic, ms since start", s.StartUnixMS(), s.Since(), s.Truths()})
}

// clearTruth (DELETE /debug/truth) empties the log.
func (s *Server) clearTruth(w http.ResponseWriter, r *http.Request) {
	s.ClearTruth()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id": s.cfg.Model, "object": "model", "created": s.start.Unix(), "owned_by": "coursekit-sim",
		}},
	})
}

// draw returns a uniform float in [0, 1) and an int in [lo, hi] from the
// seeded generator.
func (s *Server) draw(lo, hi int) (float64, int) {
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	f := s.rng.Float64()
	n := lo
	if hi > lo {
		n = lo + s.rng.IntN(hi-lo+1)
	}
	return f, n
}

func (s *Server) pickFault() string {
	f := s.cfg.Faults
	for _, c := range []struct {
		rate float64
		name string
	}{{f.HTTP429, "http_429"}, {f.HTTP503, "http_503"}, {f.NoFirstToken, "no_first_token"}, {f.Reset, "reset"}, {f.Malformed, "malformed"}} {
		if c.rate <= 0 {
			continue
		}
		if u, _ := s.draw(0, 0); u < c.rate {
			return c.name
		}
	}
	return ""
}
