package loadgen

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/llmperf-course/course/coursekit/trace"
)

// minHiddenToken is the shortest token Hider looks for: a shorter one
// would match ordinary text (and the keys of the trace's JSON).
const minHiddenToken = 8

// Hider replaces the bearer token of h's Authorization header by xxxxx,
// as written and as JSON and URLs escape it; nil when h has none. bench
// knows the token (--api-key-env) and a server may echo it back (a 401
// body "bad key Bearer sk-…", a Location), so nothing bench writes or
// prints holds it.
func Hider(h http.Header) *strings.Replacer {
	var pairs []string
	for _, v := range h.Values("Authorization") {
		tok := v
		if _, t, ok := strings.Cut(v, " "); ok {
			tok = strings.TrimSpace(t)
		}
		if len(tok) < minHiddenToken {
			continue
		}
		j, _ := json.Marshal(tok)
		for _, form := range []string{tok, string(j[1 : len(j)-1]), url.QueryEscape(tok), url.PathEscape(tok)} {
			pairs = append(pairs, form, "xxxxx")
		}
	}
	if pairs == nil {
		return nil
	}
	return strings.NewReplacer(pairs...)
}

// hideWriter passes every write through a Hider: for writers whose every
// Write is whole lines (a json.Encoder's, a Fprintf's), so a token is
// never split between two writes.
type hideWriter struct {
	w io.Writer
	r *strings.Replacer
}

func (h hideWriter) Write(p []byte) (int, error) {
	if _, err := h.r.WriteString(h.w, string(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// HideWriter is w with r's secrets replaced in every write (w when r is
// nil); each Write must hold whole lines.
func HideWriter(w io.Writer, r *strings.Replacer) io.Writer {
	if r == nil {
		return w
	}
	return hideWriter{w, r}
}

// hideAttempt replaces r's secrets in the attempt's texts from the peer:
// its error and its meta (answer text, server timings).
func hideAttempt(a *trace.Attempt, r *strings.Replacer) {
	if r == nil {
		return
	}
	a.Error = r.Replace(a.Error)
	if m := r.Replace(string(a.Meta)); m != string(a.Meta) && json.Valid([]byte(m)) {
		a.Meta = json.RawMessage(m)
	}
}

// HiddenError is an error whose text has had a Hider's secrets replaced;
// it unwraps to the error.
type HiddenError struct {
	Err  error
	text string
}

func (e *HiddenError) Error() string { return e.text }
func (e *HiddenError) Unwrap() error { return e.Err }

// HideError is err with r's secrets replaced in its text (err when r or
// err is nil, or its text holds none).
func HideError(err error, r *strings.Replacer) error {
	if err == nil || r == nil {
		return err
	}
	if t := r.Replace(err.Error()); t != err.Error() {
		return &HiddenError{Err: err, text: t}
	}
	return err
}
