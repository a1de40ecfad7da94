package trace

import (
	"encoding/json"
	"slices"
)

// What-if edits for teaching. Each returns a new value and leaves the
// trace it came from untouched, so that a notebook can change one thing,
// compare, and still hold the measured data.

// Clone is a deep copy of a: its events and meta are its own, so editing
// the copy never changes the trace it came from. (Copying an Attempt with
// = shares the Events slice.)
func (a Attempt) Clone() Attempt {
	a.Events = slices.Clone(a.Events)
	if a.Meta != nil {
		a.Meta = slices.Clone(a.Meta)
	}
	return a
}

// WithPause is a copy of a in which the stream stalls for pauseMS after
// its first `after` events: every later event and the end move pauseMS
// later. WithPause(1, 2000) is "the first output arrived, then nothing for
// 2 s". An after beyond the events delays only the end.
func (a Attempt) WithPause(after int, pauseMS float64) Attempt {
	b := a.Clone()
	for i := max(after, 0); i < len(b.Events); i++ {
		b.Events[i].TMS += pauseMS
	}
	if b.HasEnd {
		b.EndMS += pauseMS
	}
	if b.HasFinish { // after the last event, before the end: it moves with them
		b.FinishMS += pauseMS
	}
	return b
}

// WithEventTokens is a copy of a in which event i (from 0) carries tokens
// output tokens, and the recorded output length is the tokens the events
// now carry: "the server packed three tokens into the second event". An i
// outside the events changes nothing but the copy.
func (a Attempt) WithEventTokens(i, tokens int) Attempt {
	b := a.Clone()
	if i >= 0 && i < len(b.Events) {
		b.Events[i].Tokens = tokens
		b.OutputTokens = b.StreamedTokens()
	}
	return b
}

// WithoutFailures is the mistake the unit warns about, kept so that a
// notebook can show it: a copy of t with every attempt that is not a
// complete success deleted. Its "failure rate" is 0 by construction; its
// success percentiles do not move, which is why the deletion goes
// unnoticed. Never report a number from it.
func (t *Trace) WithoutFailures() *Trace {
	out := &Trace{Header: t.Header, Attempts: make([]Attempt, 0, len(t.Attempts))}
	out.Header.Conditions = slices.Clone(t.Header.Conditions)
	out.Header.Meta = json.RawMessage(slices.Clone([]byte(t.Header.Meta)))
	for _, a := range t.Attempts {
		if a.Outcome == OK {
			out.Attempts = append(out.Attempts, a.Clone())
		}
	}
	return out
}
