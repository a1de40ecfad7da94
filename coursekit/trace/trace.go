// Package trace defines trace format v1 ("llm-serving/v1"): one JSON Lines
// file per measurement, a header line followed by one line per attempt, all
// on one client clock.
//
// The format keeps what a summary throws away: every attempt, failures
// included, with its raw stream timestamps, so any metric can be recomputed
// later under another definition. The reader rejects anything it cannot
// represent exactly, naming the file and line, and never skips a line.
package trace

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Version is the value of the header's "trace" field this package reads and writes.
const Version = "llm-serving/v1"

// MaxLineBytes bounds one line; a longer line is an error, not a truncation.
const MaxLineBytes = 1 << 20

// MaxCount bounds whole numbers (token counts): above 2^53 a float64, and
// so most JSON readers, no longer holds every integer exactly.
const MaxCount = 1 << 53

// Header is the first line of a trace.
type Header struct {
	Trace  string `json:"trace"`
	Clock  string `json:"clock"`
	Window Window `json:"window"`
	// WindowCost is the cost of running the system for the whole window, if known.
	WindowCost *float64 `json:"window_cost,omitempty"`
	Currency   string   `json:"currency,omitempty"`
	// Conditions is the free-form condition list the unit asks to keep next to
	// the numbers: model and version, length distributions, arrival process,
	// open or closed loop, timeout policy, warm-up, prefix reuse.
	Conditions json.RawMessage `json:"conditions,omitempty"`
	// Meta is free-form data for tools (importers, the load client).
	Meta json.RawMessage `json:"meta,omitempty"`
}

// Window is the half-open interval [StartMS, EndMS) on the trace clock.
// Attempts that start inside it are the denominators of every rate.
type Window struct {
	StartMS float64 `json:"start_ms"`
	EndMS   float64 `json:"end_ms"`
}

// Seconds is the window length in seconds.
func (w Window) Seconds() float64 { return (w.EndMS - w.StartMS) / 1000 }

// Contains reports whether an attempt starting at ms belongs to the window.
func (w Window) Contains(ms float64) bool { return ms >= w.StartMS && ms < w.EndMS }

// Outcome is how an attempt ended, as seen by the client.
type Outcome uint8

// The outcomes of format v1. Only OK is a complete success: an HTTP 200
// whose stream broke is StreamError.
const (
	OK Outcome = iota + 1
	Timeout
	ConnectError
	HTTPError
	StreamError
	Cancelled
	InFlight
	// NoResponse: the request was sent whole, and the connection closed
	// before any response byte (a server that crashed or dropped the
	// request): unlike ConnectError, the request reached the server.
	NoResponse
	// EmptyOutput: the server answered correctly (a 2xx stream ended by
	// [DONE] or after a finish_reason) but with no output text, as when a
	// model samples its end-of-sequence token first. A failure, not a
	// broken stream: nothing broke, there is just no answer.
	EmptyOutput
)

// MaxOutcome is the highest Outcome value, for arrays indexed by outcome.
const MaxOutcome = EmptyOutput

var outcomeNames = [...]string{
	OK:           "ok",
	Timeout:      "timeout",
	ConnectError: "connect_error",
	HTTPError:    "http_error",
	StreamError:  "stream_error",
	Cancelled:    "cancelled",
	InFlight:     "in_flight",
	NoResponse:   "no_response",
	EmptyOutput:  "empty_output",
}

// Outcomes lists every outcome in a fixed order, for reports and tables.
var Outcomes = []Outcome{OK, Timeout, ConnectError, NoResponse, HTTPError, StreamError, EmptyOutput, Cancelled, InFlight}

// outcomeChoices lists the outcome codes for an error message, in the
// order of Outcomes, so that a new outcome is named where it is refused.
var outcomeChoices = func() string {
	names := make([]string, len(Outcomes))
	for i, o := range Outcomes {
		names[i] = o.String()
	}
	return strings.Join(names, ", ")
}()

// Failures lists the outcomes that are failures of a finished attempt (all
// but OK and InFlight), in the order of Outcomes, for every view that
// counts them.
var Failures = func() []Outcome {
	var f []Outcome
	for _, o := range Outcomes {
		if o != OK && o != InFlight {
			f = append(f, o)
		}
	}
	return f
}()

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) && o > 0 {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// ParseOutcome maps a trace string to an Outcome.
func ParseOutcome(s string) (Outcome, bool) {
	for i, n := range outcomeNames {
		if i > 0 && n == s {
			return Outcome(i), true
		}
	}
	return 0, false
}

// Quality is the result of the pre-agreed quality rubric for one answer.
type Quality uint8

// Unrated is the zero value: an unrated answer is never counted as a pass.
const (
	Unrated Quality = iota
	Pass
	Fail
)

func (q Quality) String() string {
	switch q {
	case Pass:
		return "pass"
	case Fail:
		return "fail"
	}
	return "unrated"
}

// Event is one streamed output as it arrived at the client.
type Event struct {
	TMS    float64 `json:"t_ms"`
	Tokens int     `json:"tokens"`
}

// Attempt is one request sent by the client. A retry is a new attempt that
// shares its Request id with the attempts before it.
type Attempt struct {
	ID      string
	Request string
	StartMS float64
	Outcome Outcome
	// HTTPStatus is 0 when not recorded.
	HTTPStatus int
	// Events are in arrival order; the first is the first valid output.
	Events []Event
	// EndMS is the final event: stream end, error or timeout. HasEnd is false
	// only for in-flight attempts.
	EndMS  float64
	HasEnd bool
	// FinishMS is when the chunk carrying finish_reason arrived: the N-th
	// token's arrival when the last tokens carried no text (an
	// end-of-sequence token, a stop string). HasFinish is false when not
	// recorded (the unit's traces, imports).
	FinishMS  float64
	HasFinish bool
	// Quality is Unrated unless a rater judged the answer.
	Quality Quality
	// InputTokens and OutputTokens are 0 when not recorded.
	InputTokens  int
	OutputTokens int
	Error        string
	// Meta is free-form data a tool attached to the attempt.
	Meta json.RawMessage
	// Line is where the attempt was read from (0 if built in memory).
	Line int

	idKey, reqKey Key // filled in by the reader's workers
}

// TTFT is the time to the first event. ok is false when no event arrived:
// a missing TTFT is missing, never 0.
func (a *Attempt) TTFT() (ms float64, ok bool) {
	if len(a.Events) == 0 {
		return 0, false
	}
	return a.Events[0].TMS - a.StartMS, true
}

// E2E is the end-to-end time; ok is false for an attempt still in flight.
func (a *Attempt) E2E() (ms float64, ok bool) {
	if !a.HasEnd {
		return 0, false
	}
	return a.EndMS - a.StartMS, true
}

// EventIntervals appends the gaps between consecutive events to dst. Each
// gap is per event, not per token: an event carrying k tokens gives one gap.
func (a *Attempt) EventIntervals(dst []float64) []float64 {
	for i := 1; i < len(a.Events); i++ {
		dst = append(dst, a.Events[i].TMS-a.Events[i-1].TMS)
	}
	return dst
}

// StreamedTokens is the sum of the events' token counts.
func (a *Attempt) StreamedTokens() int {
	n := 0
	for _, e := range a.Events {
		n += e.Tokens
	}
	return n
}

// OutputTokenCount is the recorded output length, or the streamed token
// count when the trace did not record one.
func (a *Attempt) OutputTokenCount() int {
	if a.OutputTokens > 0 {
		return a.OutputTokens
	}
	return a.StreamedTokens()
}

// TPOT is the time per output token after the first: the mean gap between
// output tokens, (t_N − t_1) / (N − 1), with t_1 the first event, t_N the
// arrival of the last token and N the output tokens. t_N is the last event,
// or the finish (finish_ms) when N exceeds the tokens the events carry:
// llama.cpp and vLLM count the end-of-sequence token (and a stop string's)
// in N but send it without text, so it arrives with the finish. The
// wait for the stream to close after the last token (E2E runs to t_end)
// is not part of it. vLLM writes almost the same number as
// (E2EL − TTFT)/(N − 1) (metrics.VLLMTPOT): its TTFT is set by the first
// chunk with choices, even an empty role chunk, and its E2EL ends at the
// last chunk with choices, which need not carry a token. ok is false
// without two events (a trace that records only the first token has no
// t_N) or without at least two output tokens.
func (a *Attempt) TPOT() (ms float64, ok bool) {
	n := a.OutputTokenCount()
	if len(a.Events) < 2 || n < 2 {
		return 0, false
	}
	return (a.LastTokenMS() - a.Events[0].TMS) / float64(n-1), true
}

// LastTokenMS is t_N, the arrival of the last output token: the finish
// when the trace records one and N exceeds the tokens the events carry
// (those tokens came without text, by the finish), else the last event.
// It is 0 without events.
func (a *Attempt) LastTokenMS() float64 {
	if len(a.Events) == 0 {
		return 0
	}
	if a.HasFinish && a.OutputTokenCount() > a.StreamedTokens() {
		return a.FinishMS
	}
	return a.Events[len(a.Events)-1].TMS
}

// FinishesPastEvents reports whether TPOT's t_N is the finish, not the last event.
func (a *Attempt) FinishesPastEvents() bool {
	return len(a.Events) > 0 && a.HasFinish && a.OutputTokenCount() > a.StreamedTokens()
}

// Validate checks the rules of format v1 that do not need other lines.
// The reader calls it for every attempt; tools that build attempts in
// memory should call it before writing.
func (a *Attempt) Validate() error {
	if a.ID == "" {
		return fieldErr("attempt", "missing required field")
	}
	if err := checkTime("start_ms", a.StartMS); err != nil {
		return err
	}
	if a.Outcome < OK || a.Outcome > MaxOutcome {
		return fieldErr("outcome", "missing required field")
	}
	prev := a.StartMS
	for i, e := range a.Events {
		if e.Tokens >= 1 && e.Tokens <= MaxCount && e.TMS >= prev && e.TMS <= math.MaxFloat64 {
			prev = e.TMS // the common case, checked without building names
			continue
		}
		name := fmt.Sprintf("events[%d].t_ms", i)
		if err := checkTime(name, e.TMS); err != nil {
			return err
		}
		if e.Tokens < 1 {
			return fieldErr(fmt.Sprintf("events[%d].tokens", i), fmt.Sprintf("is %d; an event carries at least 1 token", e.Tokens))
		}
		if e.Tokens > MaxCount {
			return fieldErr(fmt.Sprintf("events[%d].tokens", i), fmt.Sprintf("is %d, above 2^53", e.Tokens))
		}
		if i == 0 {
			return fieldErr(name, fmt.Sprintf("%s is before start_ms %s", fmtMS(e.TMS), fmtMS(a.StartMS)))
		}
		return fieldErr(name, fmt.Sprintf("%s is before events[%d].t_ms %s: events must be in arrival order", fmtMS(e.TMS), i-1, fmtMS(prev)))
	}
	if a.Outcome == InFlight {
		if a.HasEnd {
			return fieldErr("end_ms", "an in_flight attempt has not ended; give its real outcome or set end_ms to null")
		}
	} else {
		if !a.HasEnd {
			return fieldErr("end_ms", fmt.Sprintf("missing: a %s attempt must record its final event (null only for in_flight)", a.Outcome))
		}
		if err := checkAfterEvents(a, "end_ms", a.EndMS, prev); err != nil {
			return err
		}
	}
	if a.HasFinish {
		if err := checkFinish(a, prev); err != nil {
			return err
		}
	}
	if a.Outcome == OK && len(a.Events) == 0 {
		return fieldErr("events", "an ok attempt has no events: a complete success streams at least one output")
	}
	if a.InputTokens < 0 {
		return fieldErr("input_tokens", fmt.Sprintf("is negative (%d)", a.InputTokens))
	}
	if a.OutputTokens < 0 {
		return fieldErr("output_tokens", fmt.Sprintf("is negative (%d)", a.OutputTokens))
	}
	if a.InputTokens > MaxCount {
		return fieldErr("input_tokens", fmt.Sprintf("is %d, above 2^53", a.InputTokens))
	}
	if a.OutputTokens > MaxCount {
		return fieldErr("output_tokens", fmt.Sprintf("is %d, above 2^53", a.OutputTokens))
	}
	if a.HTTPStatus < 0 || a.HTTPStatus > 999 {
		return fieldErr("http_status", fmt.Sprintf("%d is not an HTTP status", a.HTTPStatus))
	}
	return nil
}

// Validate checks the header's own rules.
func (h *Header) Validate() error {
	if h.Trace != Version {
		if h.Trace == "" {
			return fieldErr("trace", "missing: the first line must be the header {\"trace\":\""+Version+"\",...}")
		}
		return fieldErr("trace", fmt.Sprintf("unknown trace version %q (this reader knows %q)", h.Trace, Version))
	}
	if h.Clock == "" {
		return fieldErr("clock", "missing required field: say which clock stamped the times (e.g. \"client\")")
	}
	if err := checkTime("window.start_ms", h.Window.StartMS); err != nil {
		return err
	}
	if err := checkTime("window.end_ms", h.Window.EndMS); err != nil {
		return err
	}
	if h.Window.EndMS <= h.Window.StartMS {
		return fieldErr("window", fmt.Sprintf("end_ms %s must be after start_ms %s", fmtMS(h.Window.EndMS), fmtMS(h.Window.StartMS)))
	}
	if h.WindowCost != nil {
		if err := checkNumber("window_cost", *h.WindowCost); err != nil {
			return err
		}
	}
	// The conditions coursekit reads, each of its type and none shadowed by a key that
	// differs only in case; and run_end, when a live measurement wrote one.
	_, err := h.RunEnd()
	return err
}

func checkNumber(field string, v float64) error {
	switch {
	case math.IsNaN(v):
		return fieldErr(field, "is NaN")
	case math.IsInf(v, 0):
		return fieldErr(field, "is infinite")
	case v < 0:
		return fieldErr(field, fmt.Sprintf("is negative (%s)", fmtMS(v)))
	}
	return nil
}

func checkTime(field string, v float64) error { return checkNumber(field, v) }

func fmtMS(v float64) string {
	return fmt.Sprintf("%g", v)
}

// checkFinish: the finish chunk arrives after the last text event (prev,
// or start_ms without events) and no later than the stream's end.
func checkFinish(a *Attempt, prev float64) error {
	if err := checkAfterEvents(a, "finish_ms", a.FinishMS, prev); err != nil {
		return err
	}
	if a.HasEnd && a.FinishMS > a.EndMS {
		return fieldErr("finish_ms", fmt.Sprintf("%s is after end_ms %s", fmtMS(a.FinishMS), fmtMS(a.EndMS)))
	}
	return nil
}

// checkAfterEvents: field's time v is a number at or after the last event
// (prev), or after start_ms when there is none.
func checkAfterEvents(a *Attempt, field string, v, prev float64) error {
	if err := checkTime(field, v); err != nil {
		return err
	}
	if v < prev {
		if len(a.Events) == 0 {
			return fieldErr(field, fmt.Sprintf("%s is before start_ms %s", fmtMS(v), fmtMS(a.StartMS)))
		}
		return fieldErr(field, fmt.Sprintf("%s is before the last event at %s", fmtMS(v), fmtMS(prev)))
	}
	return nil
}

// LastResponseMS is when the attempt last received a byte of a response,
// for dating a server's death (nothing answered after it): the end of a
// response read whole (ok, empty_output, http_error), the last event of a
// stream cut short (stream_error, timeout, cancelled, in_flight), or, when
// such a stream had a status but no event, its start (the headers arrived
// after it, at a time the trace does not keep: a lower bound). ok is false
// for an attempt that got no response byte: a connect_error, a
// no_response, a timeout or cancellation before any, whose end says only
// when the client gave up or the connection closed.
func (a *Attempt) LastResponseMS() (ms float64, ok bool) {
	switch a.Outcome {
	case ConnectError, NoResponse:
		return 0, false
	case OK, EmptyOutput, HTTPError:
		if a.HasEnd {
			return a.EndMS, true
		}
	}
	if n := len(a.Events); n > 0 {
		return a.Events[n-1].TMS, true
	}
	if a.HTTPStatus != 0 {
		return a.StartMS, true
	}
	return 0, false
}
