package toolfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// PickRun chooses one of n runs by opt.Run, or fails with the count.
func PickRun(s *Source, n int, opt Options, what string, line int) (int, error) {
	switch {
	case n == 0:
		return 0, s.ErrAt(line, "", "the file holds no run ("+what+")")
	case opt.Run == 0 && n > 1:
		return 0, s.ErrAt(line, "", fmt.Sprintf("the file holds %s (%s); choose one with --run 1..%d", lang.N(lang.EN, n, "run", "runs"), what, n))
	case opt.Run > n:
		return 0, s.ErrAt(line, "", fmt.Sprintf("--run %d: the file holds only %d run(s) (%s)", opt.Run, n, what))
	case opt.Run == 0:
		return 0, nil
	}
	return opt.Run - 1, nil
}

// SpreadTokens splits n output tokens over k events, each ≥ 1, the
// remainder on the first events. The split itself is a guess (tools that
// record one timestamp per event do not record per-event counts); only the
// sum is measured, and the conditions say so. It keeps multi-token streams
// visible on the card, whose TPOT line appears only for them.
func SpreadTokens(n, k int) []int {
	t := make([]int, k)
	for i := range t {
		t[i] = 1
	}
	if n > k && k > 0 { // no chunks (an empty answer): nothing to spread over
		q, r := n/k, n%k
		for i := range t {
			t[i] = q
			if i < r {
				t[i]++
			}
		}
	}
	return t
}

// EventsFrom builds events at start+first, then at each cumulative gap,
// all in ms, with tokens spread as spreadTokens.
func EventsFrom(startMS, firstMS float64, gapsMS []float64, outTokens int) []trace.Event {
	ev := make([]trace.Event, 0, 1+len(gapsMS))
	t := startMS + firstMS
	ev = append(ev, trace.Event{TMS: t, Tokens: 1})
	for _, g := range gapsMS {
		t += g
		ev = append(ev, trace.Event{TMS: t, Tokens: 1})
	}
	for i, k := range SpreadTokens(outTokens, len(ev)) {
		ev[i].Tokens = k
	}
	return ev
}

// Classify maps a tool's error text (and HTTP status, if any) to an
// outcome. The rules are a documented choice, since no tool records the
// trace's outcome classes: a known HTTP status or reason phrase is an
// http_error; a timeout exception is a timeout; a connection that could not
// be opened is a connect_error; a connection the server closed before any
// response byte (aiohttp's ServerDisconnectedError, http.client's
// RemoteDisconnected, httpx's "Server disconnected without sending a
// response") is no_response; a cancellation is cancelled; anything else,
// including an error with no text, is a stream_error carrying the text.
// An attempt that got events before it failed is never no_response
// (Result.Write makes it a stream_error): a response had begun.
func Classify(status int, text string) (trace.Outcome, int) {
	l := strings.ToLower(lastExceptionLine(text))
	if status == 0 {
		if m := statusInText.FindStringSubmatch(text); m != nil {
			status, _ = strconv.Atoi(m[1])
		}
	}
	switch {
	case strings.Contains(l, "cancel"):
		return trace.Cancelled, status
	case strings.Contains(l, "timeout") || strings.Contains(l, "timed out"):
		return trace.Timeout, status
	case status >= 400 && status <= 599:
		return trace.HTTPError, status
	case strings.Contains(l, "clientconnectorerror") || strings.Contains(l, "connection refused") || strings.Contains(l, "connecterror") || strings.Contains(l, "cannot connect"):
		return trace.ConnectError, status
	case IsNoResponse(l):
		return trace.NoResponse, status
	}
	if st, ok := reasonStatus[strings.ToLower(strings.TrimSpace(text))]; ok {
		return trace.HTTPError, st
	}
	return trace.StreamError, status
}

// noResponseTexts are the Python clients' words for a connection the
// server closed before any response byte: the request was written, nothing
// came back (aiohttp reuses a pooled keep-alive connection the server had
// closed, and does not send the request again).
var noResponseTexts = []string{"serverdisconnectederror", "server disconnected", "remotedisconnected", "remote end closed connection without response"}

// IsNoResponse says whether an error text names a connection closed
// before any response byte.
func IsNoResponse(text string) bool {
	l := strings.ToLower(text)
	for _, f := range noResponseTexts {
		if strings.Contains(l, f) {
			return true
		}
	}
	return false
}

// lastExceptionLine is the line naming the exception of a Python
// traceback ("aiohttp.client_exceptions.ClientPayloadError: ..."): the
// source lines above it mention timeouts and connections in passing and
// must not decide the outcome. Other text is returned whole.
func lastExceptionLine(text string) string {
	if !strings.Contains(text, "Traceback (most recent call last)") {
		return text
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return lines[len(lines)-1]
}

// statusInText finds "429 Too Many Requests" or "status 503" in error text
// (httpx and aiohttp messages carry the code that way).
var statusInText = regexp.MustCompile(`(?i)(?:\b|status[ :=]*|code[ :=]*)([45][0-9][0-9])(?: [A-Z][a-z]|\b.{0,3}(?:error|status))`)

// reasonStatus maps HTTP reason phrases ("Too Many Requests") to codes:
// vLLM stores response.reason, not the status, for a non-200 answer.
var reasonStatus = func() map[string]int {
	m := map[string]int{}
	for c := 400; c < 600; c++ {
		if t := http.StatusText(c); t != "" {
			m[strings.ToLower(t)] = c
		}
	}
	return m
}()

// stats sorted for the tool-way recomputations (linear, as numpy/pandas).
func linearQ(x []float64, p float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := len(s)
	h := float64(n-1) * p
	i := int(math.Floor(h))
	if i >= n-1 {
		return s[n-1]
	}
	return s[i] + (s[i+1]-s[i])*(h-float64(i))
}

func mean(x []float64) float64 {
	t := 0.0
	for _, v := range x {
		t += v
	}
	return t / float64(len(x))
}

func Ptr(v float64) *float64 { return &v }

// DerivedStats adds the tool-way mean and linear percentiles of x.
func DerivedStats(metric, keyPrefix string, x []float64, levels []string) []Stat {
	if len(x) == 0 {
		return nil
	}
	out := []Stat{{Metric: metric, Stat: "mean", Value: Ptr(mean(x)), Key: keyPrefix + " mean", Derived: true}}
	for _, l := range levels {
		p, _ := strconv.ParseFloat(l[1:], 64)
		out = append(out, Stat{Metric: metric, Stat: l, Value: Ptr(linearQ(x, p/100)), Key: keyPrefix + " " + l, Derived: true})
	}
	return out
}

// Nanos reads an integer nanosecond timestamp exactly: epoch nanoseconds
// do not fit a float64 (about 256 ns of rounding at today's epoch).
func (s *Source) Nanos(raw json.RawMessage, line int, path string) (int64, error) {
	if v, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64); err == nil {
		if v < 0 {
			return 0, s.ErrAt(line, path, fmt.Sprintf("is negative (%d), want a time", v))
		}
		return v, nil
	}
	f, err := s.Time(raw, line, path)
	if err != nil {
		return 0, err
	}
	if f > math.MaxInt64/2 {
		return 0, s.ErrAt(line, path, fmt.Sprintf("%g is too large for a nanosecond timestamp", f))
	}
	return int64(f), nil
}
