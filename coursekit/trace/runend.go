package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/llmperf-course/course/coursekit/internal/safetext"
)

// RunEnd is how a measurement run ended. A tool that writes the trace
// while it measures (coursekit bench) keeps it in the header's condition
// list under "run_end", so that a reader can tell a run that ran its
// schedule from one cut short:
//
//	"conditions": {…, "run_end": {"reason": "interrupted", "at_ms": 3012.5,
//	  "planned_duration_ms": 20000, "planned_window": {"start_ms": 0, "end_ms": 20000}}}
//
// The key lives in "conditions", which format v1 leaves free-form, so every
// v1 reader still reads such a trace; this package checks it when present.
type RunEnd struct {
	// Reason is RunCompleted, RunInterrupted, RunOverload, RunNumRequests or
	// RunNotFinished.
	Reason string `json:"reason"`
	// AtMS is when the run was stopped, on the trace clock (interrupted
	// runs), or when the last of its NumRequests requests ended. When it
	// falls inside the planned window the window ends there.
	AtMS *float64 `json:"at_ms,omitempty"`
	// NumRequests is the run's cap on business requests sent in the window
	// (retries and warm-up not counted); 0 when it had none.
	NumRequests int64 `json:"num_requests,omitempty"`
	// PlannedDurationMS and PlannedWindow are what the run was scheduled
	// for: its measured duration and window [warm-up, warm-up + duration).
	PlannedDurationMS float64 `json:"planned_duration_ms"`
	PlannedWindow     Window  `json:"planned_window"`
	// Sends is what an open loop's schedule asked for and what it sent;
	// nil in a closed loop (nothing is scheduled ahead of the answers) and
	// in traces written before it was recorded.
	Sends *Sends `json:"sends,omitempty"`
}

// Sends says whether the load the trace holds is the load that was
// planned. Arrivals of the schedule that never left (waiting for a slot
// under max_concurrency when the window ended) are in no attempt, and a
// send that left late changed the offered load without failing anything:
// neither shows in the attempts' counts, so the run records them here.
//
//	"sends": {"planned": 59, "sent": 29, "unsent": 30,
//	  "lag_n": 29, "lag_p50_ms": 382.1, "lag_p99_ms": 1100.4, "lag_max_ms": 1100.4}
type Sends struct {
	// Planned counts the arrivals of the schedule whose time came before
	// the window ended (warm-up included) or the run stopped: Sent +
	// Unsent. Retries are not arrivals.
	Planned int64 `json:"planned"`
	// Sent counts the arrivals sent (each one's first attempt).
	Sent int64 `json:"sent"`
	// Unsent counts the arrivals still waiting for a slot when the window
	// ended: never sent, never in the trace.
	Unsent int64 `json:"unsent"`
	// The send lag, start_ms − meta.scheduled_ms of every attempt sent
	// (retries included, from the end of their back-off), in ms: its
	// count and nearest-rank P50, P99 and maximum.
	LagN     int64   `json:"lag_n"`
	LagP50MS float64 `json:"lag_p50_ms"`
	LagP99MS float64 `json:"lag_p99_ms"`
	LagMaxMS float64 `json:"lag_max_ms"`
}

func (s *Sends) validate() error {
	const f = "conditions.run_end.sends."
	for _, c := range []struct {
		name string
		v    int64
	}{{"planned", s.Planned}, {"sent", s.Sent}, {"unsent", s.Unsent}, {"lag_n", s.LagN}} {
		if c.v < 0 {
			return fieldErr(f+c.name, fmt.Sprintf("is negative (%d)", c.v))
		}
	}
	if s.Planned != s.Sent+s.Unsent {
		return fieldErr(f+"planned", fmt.Sprintf("%d is not sent %d + unsent %d", s.Planned, s.Sent, s.Unsent))
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"lag_p50_ms", s.LagP50MS}, {"lag_p99_ms", s.LagP99MS}, {"lag_max_ms", s.LagMaxMS}} {
		if err := checkNumber(f+c.name, c.v); err != nil {
			return err
		}
	}
	if s.LagP50MS > s.LagP99MS || s.LagP99MS > s.LagMaxMS {
		return fieldErr(f+"lag_p99_ms", fmt.Sprintf("want lag_p50_ms %s ≤ lag_p99_ms %s ≤ lag_max_ms %s", fmtMS(s.LagP50MS), fmtMS(s.LagP99MS), fmtMS(s.LagMaxMS)))
	}
	return nil
}

// The reasons a run ends.
const (
	// RunCompleted: the schedule ran to its end and every attempt ended.
	RunCompleted = "completed"
	// RunInterrupted: stopped before the schedule ended (Ctrl-C, SIGTERM, a
	// cancelled context). Attempts still running are in_flight.
	RunInterrupted = "interrupted"
	// RunNotFinished is what the header says while the run is under way; a
	// trace that still says it was never finished (the process died): its
	// window is the planned one and the last attempts may be missing.
	RunNotFinished = "not_finished"
	// RunNumRequests: the NumRequests-th request of the window was sent
	// before the window ended, so no more were scheduled; the window ends
	// when the last attempt ended.
	RunNumRequests = "num_requests"
	// RunOverload: a capacity step stopped before its schedule ended
	// because the server fell behind the offered rate (the overload test
	// decided on the window so far); otherwise as RunInterrupted.
	RunOverload = "overload"
)

// Stopped says whether the run was stopped before its schedule ended, at
// AtMS: interrupted or stopped on overload.
func (r *RunEnd) Stopped() bool { return r.Reason == RunInterrupted || r.Reason == RunOverload }

// BeforeWindow says the run was stopped at or before its planned window
// began (in its warm-up): its window holds nothing measured, and the
// one-microsecond window WithRunEnd gives it is a placeholder, not a
// measurement to divide by.
func (r *RunEnd) BeforeWindow() bool {
	return r.Stopped() && r.AtMS != nil && *r.AtMS <= r.PlannedWindow.StartMS
}

// CutShort reports whether the run stopped before its planned window ended
// or never finished writing its trace.
func (r *RunEnd) CutShort() bool {
	switch r.Reason {
	case RunNotFinished:
		return true
	case RunInterrupted, RunOverload:
		return r.AtMS != nil && *r.AtMS < r.PlannedWindow.EndMS
	}
	return false
}

// RunEnd reads conditions.run_end (ReadConditions) and checks it; nil
// when the header has none (every trace not written by a live
// measurement).
func (h *Header) RunEnd() (*RunEnd, error) {
	c, err := h.ReadConditions()
	if err != nil || c.RunEnd == nil {
		return nil, err
	}
	if err := c.RunEnd.validate(h.Window); err != nil {
		return nil, err
	}
	return c.RunEnd, nil
}

func (r *RunEnd) validate(w Window) error {
	const f = "conditions.run_end."
	switch r.Reason {
	case RunCompleted, RunInterrupted, RunOverload, RunNotFinished, RunNumRequests:
	default:
		return fieldErr(f+"reason", fmt.Sprintf("%q is not a way a run ends (want %q, %q, %q, %q or %q)", r.Reason, RunCompleted, RunInterrupted, RunOverload, RunNumRequests, RunNotFinished))
	}
	if r.NumRequests < 0 || (r.Reason == RunNumRequests && r.NumRequests == 0) {
		return fieldErr(f+"num_requests", fmt.Sprintf("%d: want a positive cap when the reason is %q, else none", r.NumRequests, RunNumRequests))
	}
	if err := checkNumber(f+"planned_duration_ms", r.PlannedDurationMS); err != nil {
		return err
	}
	pw := r.PlannedWindow
	if err := checkTime(f+"planned_window.start_ms", pw.StartMS); err != nil {
		return err
	}
	if err := checkTime(f+"planned_window.end_ms", pw.EndMS); err != nil {
		return err
	}
	if pw.EndMS <= pw.StartMS {
		return fieldErr(f+"planned_window", fmt.Sprintf("end_ms %s must be after start_ms %s", fmtMS(pw.EndMS), fmtMS(pw.StartMS)))
	}
	if math.Abs(pw.EndMS-pw.StartMS-r.PlannedDurationMS) > 1e-6 {
		return fieldErr(f+"planned_duration_ms", fmt.Sprintf("%s is not the planned window's length %s", fmtMS(r.PlannedDurationMS), fmtMS(pw.EndMS-pw.StartMS)))
	}
	if r.AtMS != nil {
		if err := checkTime(f+"at_ms", *r.AtMS); err != nil {
			return err
		}
	}
	if (r.AtMS != nil) != (r.Stopped() || r.Reason == RunNumRequests) {
		return fieldErr(f+"at_ms", "is given exactly when the reason is \""+RunInterrupted+"\", \""+RunOverload+"\" or \""+RunNumRequests+"\"")
	}
	if r.Sends != nil {
		if err := r.Sends.validate(); err != nil {
			return err
		}
	}
	if w.EndMS > pw.EndMS || w.StartMS != pw.StartMS {
		return fieldErr("window", fmt.Sprintf("[%s, %s) is not inside the planned window [%s, %s)", fmtMS(w.StartMS), fmtMS(w.EndMS), fmtMS(pw.StartMS), fmtMS(pw.EndMS)))
	}
	return nil
}

// WithRunEnd returns a copy of the header with conditions.run_end set (the
// other conditions are kept) and, for a run interrupted inside its planned
// window, the window ending at the interrupt. An interrupt during the
// warm-up leaves a window of one microsecond that holds no attempt: a
// format v1 window cannot be empty.
func (h Header) WithRunEnd(r RunEnd) (Header, error) {
	c := map[string]json.RawMessage{}
	if raw := bytes.TrimSpace(h.Conditions); len(raw) > 0 {
		if err := json.Unmarshal(raw, &c); err != nil {
			return h, fmt.Errorf("conditions are not a JSON object: %w", err)
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return h, err
	}
	c["run_end"] = b
	if h.Conditions, err = json.Marshal(c); err != nil {
		return h, err
	}
	h.Window = r.PlannedWindow
	if (r.Stopped() || r.Reason == RunNumRequests) && r.AtMS != nil && *r.AtMS < r.PlannedWindow.EndMS {
		h.Window.EndMS = max(*r.AtMS, h.Window.StartMS+1e-3)
	}
	if _, err := h.RunEnd(); err != nil {
		return h, err
	}
	return h, nil
}

// HeaderLine is the header's JSON line (with its newline), padded with
// spaces to width bytes before the newline when width is larger: a tool
// that rewrites the header in place when its run ends writes a padded one
// first. JSON allows the trailing spaces and the reader ignores them. It
// fails if the header does not fit in width (width 0: no padding), or if
// the line would be longer than MaxLineBytes, which the reader refuses. C1
// controls and bidi overrides are written as \u escapes (safetext.JSON).
func HeaderLine(h Header, width int) ([]byte, error) {
	if h.Trace == "" {
		h.Trace = Version
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	b = safetext.JSON(b)
	if width > 0 && len(b) > width {
		return nil, fmt.Errorf("the header (%d bytes) does not fit the %d bytes reserved for it", len(b), width)
	}
	for len(b) < width {
		b = append(b, ' ')
	}
	if len(b) > MaxLineBytes { // never write what the reader refuses
		return nil, fmt.Errorf("the header would be %d bytes, longer than the reader's %d (1 MiB): shorten what it records (the URL, the model, the conditions)", len(b), MaxLineBytes)
	}
	return append(b, '\n'), nil
}

// NewAttemptWriter writes attempt lines only, for a tool that writes the
// header itself (HeaderLine). It validates every attempt as Writer does.
func NewAttemptWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 256<<10), seen: map[string]struct{}{}}
}
