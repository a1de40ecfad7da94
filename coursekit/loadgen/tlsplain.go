package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/llmperf-course/course/coursekit/internal/numfmt"
)

// An https:// --url at a port that serves plain HTTP fails in one of two
// ways. A server that answers the TLS ClientHello as a malformed HTTP
// request (Go's, the simulator) makes the client fail at once with
// "server gave HTTP response to HTTPS client". A server that waits for the
// end of a request line that never comes (llama.cpp's) answers nothing:
// the handshake, and with it the pre-flight, waits out preflightTimeout.
// In the second case, once the handshake has had no answer for
// plainProbeAfter, the pre-flight asks GET /v1/models over plain HTTP at
// the same host and port (without the request's headers: the API key is
// not sent in clear); an HTTP answer other than 400 (what TLS servers
// such as Go's and nginx answer plain HTTP with) shows the port speaks
// plain HTTP, and the pre-flight stops and says so.

// plainProbeAfter is how long a TLS handshake may go unanswered before
// the pre-flight checks whether the port speaks plain HTTP: a TLS server
// answers a ClientHello in a round trip and a bit of CPU.
var plainProbeAfter = time.Second

// plainHTTP is listModels' error when an https:// URL's server speaks
// plain HTTP.
type plainHTTP struct {
	url   string // the https:// URL given
	cause string // how it showed
}

func (e plainHTTP) Error() string {
	return fmt.Sprintf("%s speaks plain HTTP, not HTTPS (%s): use %s", RedactURL(e.url), e.cause, RedactURL(plainURL(e.url)))
}

// notTLS is listModels' error when the server answered the TLS handshake
// with bytes that are neither TLS nor an HTTP response.
type notTLS struct {
	url string
	err error
}

func (e notTLS) Error() string {
	return fmt.Sprintf("%s does not speak TLS (it answered the TLS handshake with %v): if it serves plain HTTP, use %s", RedactURL(e.url), e.err, RedactURL(plainURL(e.url)))
}

func (e notTLS) Unwrap() error { return e.err }

// plainURL is u with the http scheme (u when it is not https).
func plainURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || !strings.EqualFold(p.Scheme, "https") {
		return u
	}
	p.Scheme = "http"
	return p.String()
}

// tlsWatch follows one pre-flight request's TLS handshake (https only).
type tlsWatch struct {
	started, done, plain atomic.Bool
	begin                chan struct{} // receives once when the handshake starts
	ended                chan struct{} // closed when the probe's goroutine has returned
	after                time.Duration // plainProbeAfter when the request started
}

// watchTLS adds handshake hooks to trace and, for an https:// baseURL,
// starts the plain-HTTP probe: once the handshake has gone unanswered for
// plainProbeAfter it asks plain HTTP and, when that answers, records it
// and calls abort. The probe ends with ctx; wait waits for it.
func watchTLS(ctx context.Context, client *http.Client, baseURL string, trace *httptrace.ClientTrace, abort func()) *tlsWatch {
	w := &tlsWatch{begin: make(chan struct{}, 1), ended: make(chan struct{}), after: plainProbeAfter}
	trace.TLSHandshakeStart = func() {
		w.started.Store(true)
		select {
		case w.begin <- struct{}{}:
		default:
		}
	}
	trace.TLSHandshakeDone = func(tls.ConnectionState, error) { w.done.Store(true) }
	if plainURL(baseURL) == baseURL {
		close(w.ended)
		return w
	}
	go func() {
		defer close(w.ended)
		select {
		case <-ctx.Done():
			return
		case <-w.begin:
		}
		t := time.NewTimer(w.after)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !w.done.Load() && answersPlain(ctx, client, Endpoint(plainURL(baseURL), "/v1/models")) {
			w.plain.Store(true)
			abort()
		}
	}()
	return w
}

// wait returns once the probe's goroutine has (ctx ended first).
func (w *tlsWatch) wait() { <-w.ended }

// answersPlain says whether GET u (an http:// URL) gets an HTTP answer
// other than 400 before ctx ends.
func answersPlain(ctx context.Context, client *http.Client, u string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode != http.StatusBadRequest
}

// err is the pre-flight's error about TLS for the request's error, or nil
// when it is not about TLS.
func (w *tlsWatch) err(baseURL string, err error) error {
	if w.plain.Load() {
		return plainHTTP{baseURL, fmt.Sprintf("the TLS handshake got no answer in %s s, GET /v1/models over http:// got one", numfmt.Num(w.after.Seconds()))}
	}
	if strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return plainHTTP{baseURL, "it answered the TLS handshake with an HTTP response"}
	}
	var rh tls.RecordHeaderError
	if errors.As(err, &rh) {
		return notTLS{baseURL, errors.New(rh.Msg)}
	}
	return nil
}

// handshakeHung says whether the TLS handshake started and got no answer.
func (w *tlsWatch) handshakeHung() bool { return w.started.Load() && !w.done.Load() }
