package loadgen

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/llmperf-course/course/coursekit/dataset"
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
	case len(c.Model) > MaxModelIDBytes:
		return fmt.Errorf("the model is %d bytes, longer than a model id (at most %d)", len(c.Model), MaxModelIDBytes)
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
