package loadgen

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/trace"
)

// Caps on what the server controls. A measured server is a peer, not a
// trusted party: each read of its bytes stops at a cap generous enough for
// every real server and names the cap when it stops, so one hostile
// response costs an attempt a few MiB of memory, never the whole machine.
// NoResponseText begins the error of a no_response attempt: the request
// went out whole and the connection closed before any response byte.
const NoResponseText = "request sent, connection closed before any response"

// CutStreamText begins the error of a 2xx attempt whose connection closed
// inside the response body, before [DONE]: the stream was cut, whether or
// not events had arrived.
const CutStreamText = "stream ended before [DONE]: the connection closed mid-stream"

// Per attempt the stream reader holds at most one line, one message and
// (with a judged dataset) the answer text, each under its cap, plus its
// events, which the trace line bounds.
const (
	// MaxSSELineBytes bounds one SSE line: 1 MiB, the trace reader's own
	// line limit. A real chunk is well under 10 KiB (llama.cpp's final
	// chunk with its timings is under 1 KiB).
	MaxSSELineBytes = 1 << 20
	// MaxSSEMessageBytes bounds one SSE message (its data lines joined):
	// one JSON chunk, so the same bound as a line.
	MaxSSEMessageBytes = 1 << 20
	// MaxAnswerBytes bounds the answer text kept for a judge: a thousand
	// times the longest expected answer of a dataset. Past it the answer
	// is not judged (unrated, with meta.judge_skipped), never judged on a
	// part.
	MaxAnswerBytes = 1 << 20
	// MaxModelsBytes bounds the /v1/models body: a list of a few hundred
	// models is tens of KiB.
	MaxModelsBytes = 4 << 20
	// MaxMetricsBytes and MaxMetricsLines bound one /metrics scrape. vLLM's
	// page is a few hundred KiB and a few thousand lines; the line cap
	// bounds the parsed families too (a page of tiny distinct names costs
	// far more memory than its bytes).
	MaxMetricsBytes = 16 << 20
	MaxMetricsLines = 100_000
	// MaxScrapeSeries bounds the series one scrape writes to the sidecar: vLLM's
	// gauges and counters are a few hundred series, while a /metrics of 50,000
	// distinct series wrote ~15 MB per scrape. Past it the request gauges
	// (trace.RequestGaugeNames) are kept first, then series in name order, and
	// the scrape records how many it left out ("capped").
	MaxScrapeSeries = 2_000
	// MaxSeriesKeyBytes bounds one series' key in the sidecar (its name and
	// labels, as written): vLLM's longest are about 200 bytes, while one
	// label of 15 MiB, escaped, made a 94 MB sidecar line that report could
	// not read. A longer series is left out and counted in "capped".
	MaxSeriesKeyBytes = 1 << 10
	// MaxModelIDBytes bounds the model id bench takes from /v1/models (and
	// the --model it is given): it goes into every request and the trace
	// header, which must stay under the reader's 1 MiB line. A real id, a
	// Hugging Face name or a file path, is under 256 bytes.
	MaxModelIDBytes = 1 << 10
	// MaxResponseHeaderBytes bounds the status line and headers of every
	// response (net/http's default is 10 MiB); real servers send under
	// 1 KiB. Past it the attempt is an http_error.
	MaxResponseHeaderBytes = 1 << 20
	// MaxServerTimingsBytes bounds meta.server_timings: llama.cpp's object
	// is about 200 bytes, and the attempt's events need the rest of the
	// trace line.
	MaxServerTimingsBytes = 64 << 10
)

// lineReserve is the part of a trace line kept for everything but the
// events: ids, the error text, meta with server_timings and a judged
// answer. The events of an attempt get the rest of trace.MaxLineBytes; a
// stream with more is cut as a stream_error, so its line still reads back.
const lineReserve = 128 << 10

const maxEventBytes = trace.MaxLineBytes - lineReserve

// eventBytes is the length of e in a trace line, with its comma.
func eventBytes(e trace.Event) int {
	var b [40]byte
	n := len(`{"t_ms":},`) + len(strconvAppendMS(b[:0], e.TMS))
	if e.Tokens != 1 {
		n += len(`,"tokens":`) + len(strconv.AppendInt(b[:0], int64(e.Tokens), 10))
	}
	return n
}

func strconvAppendMS(dst []byte, v float64) []byte { return strconv.AppendFloat(dst, v, 'f', -1, 64) }

// oneOrigin returns a copy of c that never follows a redirect: bench sends
// each request (and the bearer token in its header) only to the URL it was
// given. The 3xx itself is the answer.
//
// CheckRedirect alone is not enough: http.Client parses the Location before
// asking it, and fails without the response when it does not parse. The
// transport therefore moves a 3xx's Location aside (locationKey), and the
// client, seeing none, returns the response as it is.
func oneOrigin(c *http.Client) *http.Client {
	cc := *c
	if _, done := cc.Transport.(noRedirect); !done {
		cc.Transport = noRedirect{cc.Transport}
	}
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cc
}

// locationKey holds a 3xx response's Location once noRedirect moved it.
const locationKey = "X-Coursekit-Location-Not-Followed"

type noRedirect struct{ base http.RoundTripper }

func (t noRedirect) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err == nil && isRedirect(resp.StatusCode) {
		if loc, ok := resp.Header["Location"]; ok {
			delete(resp.Header, "Location")
			resp.Header[locationKey] = loc
		}
	}
	return resp, err
}

// CloseIdleConnections passes through, so that http.Client's reaches the
// transport's pool.
func (t noRedirect) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func isRedirect(code int) bool { return code >= 300 && code <= 399 }

// maxShown bounds a server-sent string (a Location) quoted in an error.
const maxShown = 200

// quoteShort quotes s for an error text, cut to maxShown bytes: control
// characters and bytes that are not UTF-8 come out escaped, so the text
// cannot drive a terminal.
func quoteShort(s string) string {
	if len(s) <= maxShown {
		return strconv.Quote(s)
	}
	n := maxShown
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strconv.Quote(s[:n]) + fmt.Sprintf("… (%d bytes)", len(s))
}

// cut bounds a text from a peer to n bytes, on a UTF-8 boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// redirectError words a 3xx answer. The Location passes RedactURL: a
// server may quote the request URI back, with the query's secrets.
func redirectError(resp *http.Response) string {
	loc := resp.Header.Get(locationKey)
	if loc == "" {
		loc = resp.Header.Get("Location")
	}
	return fmt.Sprintf("HTTP %d: redirect to %s not followed (bench sends requests only to the origin it was given)", resp.StatusCode, quoteShort(RedactURL(loc)))
}

// serverFault tells a transport error that is about the response the
// server sent (a header over the cap, a header net/http cannot parse) from
// one about the connection: the connection worked, so the attempt is an
// http_error, not a connect_error. net/http has no typed errors for these;
// TestHugeResponseHeaderIsNotAConnectError and
// TestMalformedResponseHeaderIsAnHTTPError pin the texts matched here.
func serverFault(err error) (string, bool) {
	msg := err.Error()
	const exceeded = "server response headers exceeded "
	if i := strings.Index(msg, exceeded); i >= 0 {
		n := msg[i+len(exceeded):]
		n = n[:len(n)-len(strings.TrimLeft(n, "0123456789"))]
		return "response header larger than " + n + " bytes: not read", true
	}
	for _, m := range []string{"malformed MIME header", "malformed HTTP response", "malformed HTTP status code", "malformed HTTP version"} {
		if i := strings.Index(msg, m); i >= 0 {
			return "the response is not valid HTTP: " + quoteShort(msg[i:]), true
		}
	}
	return "", false
}

// sameOrigin says whether two URLs share scheme, host and port (the port
// a scheme implies counts as given).
func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		return map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Hostname(), ub.Hostname()) && port(ua) == port(ub)
}

// errCap is a read stopped at a cap; the message names it.
type errCap struct{ msg string }

func (e errCap) Error() string { return e.msg }

// capReader reads r until maxBytes bytes or maxLines newlines (0: no line
// cap) have passed, then fails with errCap naming what was exceeded.
type capReader struct {
	r                  io.Reader
	maxBytes, maxLines int64
	n, lines           int64
	err                error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if room := c.maxBytes + 1 - c.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.maxLines > 0 {
		for _, b := range p[:n] {
			if b == '\n' {
				c.lines++
			}
		}
	}
	switch {
	case c.n > c.maxBytes:
		c.err = errCap{fmt.Sprintf("the body is larger than %d bytes (%s): not read further", c.maxBytes, mib(c.maxBytes))}
	case c.maxLines > 0 && c.lines > c.maxLines:
		c.err = errCap{fmt.Sprintf("the body has more than %d lines: not read further", c.maxLines)}
	default:
		return n, err
	}
	return 0, c.err
}

func mib(n int64) string { return strconv.FormatInt(n>>20, 10) + " MiB" }

func asCap(err error) (errCap, bool) {
	var e errCap
	return e, errors.As(err, &e)
}
