package loadgen

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/trace"
)

// minAnywhere is the shortest token Hider replaces wherever it appears: a
// shorter one would match ordinary text ("a", "ok", the keys of the trace's
// JSON), so it is replaced only where it stands as a whole value.
const minAnywhere = 8

// Hide replaces a bearer token in what bench writes and prints (Hider).
// A nil *Hide replaces nothing.
type Hide struct {
	anywhere *strings.Replacer // tokens of minAnywhere bytes or more
	inPlace  []*regexp.Regexp  // shorter tokens, in their contexts
}

// Hider replaces the bearer token of h's Authorization header by xxxxx,
// as written and as JSON and URLs escape it; nil when h has none. bench
// knows the token (--api-key-env) and a server may echo it back (a 401
// body "bad key Bearer sk-…", a Location), so nothing bench writes or
// prints holds it. A token of 8 bytes or more is replaced wherever it
// appears; a shorter one (1–7 bytes) where it stands as a whole value:
// after "Bearer " or "Authorization:", as a whole JSON string value (after
// a colon; never a key), as a URL query value or a whole path segment, so
// that a token "a" does not replace every "a" of the text.
func Hider(h http.Header) *Hide {
	var pairs []string
	var hd Hide
	for _, v := range h.Values("Authorization") {
		tok := v
		if _, t, ok := strings.Cut(v, " "); ok {
			tok = strings.TrimSpace(t)
		}
		if tok == "" {
			continue
		}
		j, _ := json.Marshal(tok)
		forms := []string{tok, string(j[1 : len(j)-1]), url.QueryEscape(tok), url.PathEscape(tok)}
		if len(tok) >= minAnywhere {
			for _, form := range forms {
				pairs = append(pairs, form, "xxxxx")
			}
			continue
		}
		alt := make([]string, 0, len(forms))
		for _, form := range slices.Compact(slices.Sorted(slices.Values(forms))) {
			alt = append(alt, regexp.QuoteMeta(form))
		}
		alts := "(?:" + strings.Join(alt, "|") + ")"
		// The value's edges: not a character a token or a URL escape goes on with.
		hd.inPlace = append(hd.inPlace,
			regexp.MustCompile(`((?:^|[^A-Za-z0-9_])(?:(?i:bearer)[ \t]+|(?i:authorization):[ \t]*(?:(?i:bearer)[ \t]+)?)|[?&;][^=&#\s"]*=|/)`+alts+`($|[^A-Za-z0-9\-._~+/=%])`),
			regexp.MustCompile(`(:[ \t]*")`+alts+`(")`))
	}
	if pairs != nil {
		hd.anywhere = strings.NewReplacer(pairs...)
	}
	if hd.anywhere == nil && hd.inPlace == nil {
		return nil
	}
	return &hd
}

// Replace is s with the token replaced by xxxxx.
func (h *Hide) Replace(s string) string {
	if h == nil {
		return s
	}
	if h.anywhere != nil {
		s = h.anywhere.Replace(s)
	}
	for _, re := range h.inPlace {
		// Twice: a match's trailing edge can be the next one's leading edge.
		for range 2 {
			s = re.ReplaceAllString(s, "${1}xxxxx${2}")
		}
	}
	return s
}

// hideWriter passes every write through a Hider: for writers whose every
// Write is whole lines (a json.Encoder's, a Fprintf's), so a token is
// never split between two writes.
type hideWriter struct {
	w io.Writer
	r *Hide
}

func (h hideWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(h.w, h.r.Replace(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// HideWriter is w with r's secrets replaced in every write (w when r is
// nil); each Write must hold whole lines.
func HideWriter(w io.Writer, r *Hide) io.Writer {
	if r == nil {
		return w
	}
	return hideWriter{w, r}
}

// hideAttempt replaces r's secrets in the attempt's texts from the peer:
// its error and its meta (answer text, server timings).
func hideAttempt(a *trace.Attempt, r *Hide) {
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
func HideError(err error, r *Hide) error {
	if err == nil || r == nil {
		return err
	}
	if t := r.Replace(err.Error()); t != err.Error() {
		return &HiddenError{Err: err, text: t}
	}
	return err
}
