package loadgen_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/trace"
)

// okStream is a minimal complete completions stream.
const okStream = "data: {\"choices\":[{\"index\":0,\"text\":\"a\",\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n"

func serveOK(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, okStream)
}

// elsewhere is a second origin that counts what reaches it: a redirect
// that bench followed would show up here.
type elsewhere struct {
	*httptest.Server
	hits, auth atomic.Int64
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.hits.Add(1)
		if r.Header.Get("Authorization") != "" {
			e.auth.Add(1)
		}
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"data":[{"id":"elsewhere"}]}`)
		case "/metrics":
			io.WriteString(w, "elsewhere_gauge 1\n")
		default:
			serveOK(w)
		}
	}))
	t.Cleanup(e.Close)
	return e
}

var bearer = http.Header{"Authorization": {"Bearer s3cret"}}

// bench speaks to one origin: a 3xx is an http_error naming the status and
// where it pointed, and neither the request nor the token reaches the
// other origin (a 307 would resend the POST with the token; a 302 would
// turn it into a body-less GET).
func TestRedirectIsAnHTTPErrorNotFollowed(t *testing.T) {
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			e := newElsewhere(t)
			to := e.URL + "/v1/completions"
			a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, to, code)
			}))
			defer a.Close()
			_, tr, _ := run(t, context.Background(), loadgen.Config{URL: a.URL, Model: "m", Replay: []float64{0}, Header: bearer, Timeout: 10 * time.Second})
			at := tr.Attempts[0]
			if at.Outcome != trace.HTTPError || at.HTTPStatus != code {
				t.Errorf("outcome %s, status %d; want http_error %d (error %q)", at.Outcome, at.HTTPStatus, code, at.Error)
			}
			if !strings.Contains(at.Error, strconv.Itoa(code)) || !strings.Contains(at.Error, strconv.Quote(to)) || !strings.Contains(at.Error, "not followed") {
				t.Errorf("error %q does not name the status, the quoted Location %q and that it was not followed", at.Error, to)
			}
			if n := e.hits.Load(); n != 0 {
				t.Errorf("the other origin got %d requests (%d with the token)", n, e.auth.Load())
			}
		})
	}
}

// The Location a hostile server sends is bounded and quoted in the error
// (tabs, bytes that are not UTF-8, a right-to-left override), so it cannot
// reach a terminal raw or swell the trace.
func TestRedirectLocationIsBoundedAndQuoted(t *testing.T) {
	loc := "http://127.0.0.1:1/\t\x80\xff\u202e" + strings.Repeat("x", 100_000)
	url := rawServer(t, "HTTP/1.1 307 Temporary Redirect\r\nLocation: "+loc+"\r\nContent-Length: 0\r\n\r\n")
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Model: "m", Replay: []float64{0}, Timeout: 10 * time.Second})
	at := tr.Attempts[0]
	if at.Outcome != trace.HTTPError || at.HTTPStatus != 307 {
		t.Fatalf("outcome %s %d (%q), want http_error 307", at.Outcome, at.HTTPStatus, at.Error)
	}
	if strings.ContainsAny(at.Error, "\t\u202e") || !strings.Contains(at.Error, `\t\x80\xff\u202e`) {
		t.Errorf("Location not quoted: %q", at.Error)
	}
	if len(at.Error) > 1000 {
		t.Errorf("error is %d bytes: the Location is not bounded", len(at.Error))
	}
}

// A response whose header net/http cannot parse (a control byte in a
// value) came from the server: an http_error, not a connect_error.
func TestMalformedResponseHeaderIsAnHTTPError(t *testing.T) {
	url := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Bad: \x1b[2J\r\n\r\n"+okStream)
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Model: "m", Replay: []float64{0}, Timeout: 10 * time.Second})
	at := tr.Attempts[0]
	if at.Outcome != trace.HTTPError || !strings.Contains(at.Error, "malformed") || strings.ContainsRune(at.Error, 0x1b) {
		t.Errorf("outcome %s, error %q; want http_error naming the malformed header, control byte quoted", at.Outcome, at.Error)
	}
}

// The /v1/models lookup does not follow a redirect either, whatever the
// client it is given.
func TestResolveModelRefusesRedirect(t *testing.T) {
	e := newElsewhere(t)
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, e.URL+"/v1/models", http.StatusTemporaryRedirect)
	}))
	defer a.Close()
	for _, c := range []*http.Client{loadgen.NewClient(), {}} {
		m, err := loadgen.ResolveModel(context.Background(), c, a.URL, bearer)
		if err == nil || !strings.Contains(err.Error(), "307") || !strings.Contains(err.Error(), "not followed") {
			t.Errorf("model %q, err %v; want an error naming the 307 and that it was not followed", m, err)
		}
	}
	if n := e.hits.Load(); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}
	// Without --model, Run's lookup fails the same way.
	_, err := loadgen.Run(context.Background(), loadgen.Config{URL: a.URL, Replay: []float64{0}, Header: bearer}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "307") {
		t.Errorf("Run: %v, want the 307 of /v1/models", err)
	}
	if n := e.hits.Load(); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}
}

// --metrics-url: a redirect is an error line, not followed; the token goes
// only to the origin of --url (a /metrics elsewhere is scraped without it).
func TestMetricsScrapeOneOrigin(t *testing.T) {
	e := newElsewhere(t)
	var sameAuth atomic.Int64
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			if r.Header.Get("Authorization") != "" {
				sameAuth.Add(1)
			}
			io.WriteString(w, "here_gauge 2\n")
		case "/moved":
			http.Redirect(w, r, e.URL+"/metrics", http.StatusFound)
		default:
			serveOK(w)
		}
	}))
	defer a.Close()
	scrape := func(metricsURL string) trace.Scrape {
		var side bytes.Buffer
		run(t, context.Background(), loadgen.Config{URL: a.URL, Model: "m", Replay: []float64{0}, Header: bearer,
			MetricsURL: metricsURL, MetricsEvery: time.Hour, MetricsSink: &side})
		ss, err := trace.ReadScrapes(&side, "sidecar")
		if err != nil || len(ss) == 0 {
			t.Fatalf("sidecar %q: %v", side.String(), err)
		}
		return ss[0]
	}
	if s := scrape(a.URL + "/moved"); !strings.Contains(s.Error, "302") || !strings.Contains(s.Error, "not followed") || len(s.Values) != 0 {
		t.Errorf("redirected scrape: %+v; want an error naming the 302", s)
	}
	if n := e.hits.Load(); n != 0 {
		t.Errorf("the redirect was followed: the other origin got %d requests", n)
	}
	if s := scrape(e.URL + "/metrics"); s.Error != "" || s.Values["elsewhere_gauge"] != 1 {
		t.Errorf("scrape of another origin: %+v", s)
	}
	if n := e.auth.Load(); n != 0 {
		t.Errorf("the token was sent to another origin's /metrics %d times", n)
	}
	if s := scrape(a.URL + "/metrics"); s.Error != "" || sameAuth.Load() != 1 {
		t.Errorf("same-origin scrape: %+v, token sent %d times (want 1)", s, sameAuth.Load())
	}
}

// rawServer answers every connection with resp as given (bytes the Go
// server would not send), then closes it.
func rawServer(t *testing.T, resp string) string {
	t.Helper()
	return rawServerFunc(t, func(c net.Conn) { io.WriteString(c, resp) })
}

func rawServerFunc(t *testing.T, answer func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				answer(c)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// countingClient counts the response body bytes the client read.
func countingClient() (*http.Client, *atomic.Int64) {
	var n atomic.Int64
	h := &hookTransport{base: loadgen.NewClient().Transport, onRead: func(_ int64, p []byte) { n.Add(int64(len(p))) }}
	return &http.Client{Transport: h}, &n
}

// endless writes piece after prefix until the client stops reading or
// limit bytes are written (a bound on the test, far above the caps).
func endless(w io.Writer, prefix, piece string, limit int) {
	if f, ok := w.(http.ResponseWriter); ok {
		if f.Header().Get("Content-Type") == "" {
			f.Header().Set("Content-Type", "text/event-stream")
		}
	}
	io.WriteString(w, prefix)
	p := []byte(strings.Repeat(piece, max(1, (64<<10)/len(piece))))
	for n := len(prefix); n < limit; n += len(p) {
		if _, err := w.Write(p); err != nil {
			return
		}
	}
}

const hostileLimit = 48 << 20

// A peer controls the bytes of an SSE line and of a message: past the cap
// the attempt is a stream_error naming it, and the client stops reading
// there instead of buffering what the server sends.
func TestSSEReadsStopAtTheCap(t *testing.T) {
	for _, tc := range []struct {
		name, prefix, piece, want string
		limit                     int64
	}{
		{"line", "data: ", "a", fmt.Sprintf("SSE line longer than %d bytes", loadgen.MaxSSELineBytes), loadgen.MaxSSELineBytes},
		{"message", "", "data: " + strings.Repeat("b", 1000) + "\n", fmt.Sprintf("SSE message longer than %d bytes", loadgen.MaxSSEMessageBytes), loadgen.MaxSSEMessageBytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				endless(w, tc.prefix, tc.piece, hostileLimit)
			}))
			defer ts.Close()
			c, read := countingClient()
			_, tr, _ := run(t, context.Background(), loadgen.Config{URL: ts.URL, Model: "m", Replay: []float64{0}, Client: c, Timeout: time.Minute})
			at := tr.Attempts[0]
			if at.Outcome != trace.StreamError || !strings.Contains(at.Error, tc.want) {
				t.Errorf("outcome %s, error %q; want stream_error %q", at.Outcome, at.Error, tc.want)
			}
			if n := read.Load(); n > tc.limit+1<<20 {
				t.Errorf("read %d bytes of the body; the cap is %d", n, tc.limit)
			}
		})
	}
}

// An endless /v1/models body ends at its cap with an error naming it.
func TestModelsReadStopsAtTheCap(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		endless(w, `{"data":[{"id":"`, "m", hostileLimit)
	}))
	defer ts.Close()
	c, read := countingClient()
	_, err := loadgen.ResolveModel(context.Background(), c, ts.URL, nil)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("larger than %d bytes", loadgen.MaxModelsBytes)) {
		t.Errorf("err %v; want the models cap named", err)
	}
	if n := read.Load(); n > loadgen.MaxModelsBytes+1<<20 {
		t.Errorf("read %d bytes of /v1/models; the cap is %d", n, loadgen.MaxModelsBytes)
	}
}

// An endless /metrics (bytes, or lines of distinct names) is an error line
// in the sidecar naming its cap, and the scrape stops reading there. The
// scrape's own timeout is lifted: the property is the cap, not how fast a
// loaded machine parses 16 MiB (the server's limit bounds the test).
func TestMetricsReadStopsAtTheCap(t *testing.T) {
	defer loadgen.SetScrapeTimeout(10 * time.Minute)()
	for _, tc := range []struct {
		name string
		body func(io.Writer)
		want string
		max  int64
	}{
		{"bytes", func(w io.Writer) { endless(w, "", "# "+strings.Repeat("c", 1000)+"\n", hostileLimit*2) }, fmt.Sprintf("larger than %d bytes", loadgen.MaxMetricsBytes), loadgen.MaxMetricsBytes + 1<<20},
		{"lines", func(w io.Writer) {
			bw := bufio.NewWriter(w)
			for i := range 300_000 {
				if _, err := fmt.Fprintf(bw, "m_%d %d\n", i, i); err != nil {
					return
				}
			}
			bw.Flush()
		}, fmt.Sprintf("more than %d lines", loadgen.MaxMetricsLines), 2 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/metrics" {
					w.Header().Set("Content-Type", "text/plain")
					tc.body(w)
					return
				}
				serveOK(w)
			}))
			defer ts.Close()
			c, read := countingClient()
			var side bytes.Buffer
			run(t, context.Background(), loadgen.Config{URL: ts.URL, Model: "m", Replay: []float64{0}, Client: c,
				MetricsURL: ts.URL + "/metrics", MetricsEvery: time.Hour, MetricsSink: &side})
			ss, err := trace.ReadScrapes(&side, "sidecar")
			if err != nil || len(ss) != 1 {
				t.Fatalf("%d scrapes, %v", len(ss), err)
			}
			if !strings.Contains(ss[0].Error, tc.want) || len(ss[0].Values) != 0 {
				t.Errorf("scrape error %q with %d values; want %q", ss[0].Error, len(ss[0].Values), tc.want)
			}
			if n := read.Load(); n > tc.max {
				t.Errorf("read %d bytes (with the stream's); want at most %d", n, tc.max)
			}
		})
	}
}

// A response header over the cap is the server's doing: an http_error
// naming the cap, never a connect_error (the connection worked).
func TestHugeResponseHeaderIsNotAConnectError(t *testing.T) {
	big := strings.Repeat("h", 12<<20) // over net/http's own 10 MiB default too
	url := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Big: "+big+"\r\n\r\n"+okStream)
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Model: "m", Replay: []float64{0}, Timeout: time.Minute})
	at := tr.Attempts[0]
	want := fmt.Sprintf("response header larger than %d bytes", loadgen.MaxResponseHeaderBytes)
	if at.Outcome != trace.HTTPError || !strings.Contains(at.Error, want) {
		t.Errorf("outcome %s, error %q; want http_error %q", at.Outcome, at.Error, want)
	}
}

// server_timings that the trace reader would refuse (nested past its
// depth, not UTF-8, too long for a line) are dropped with a note in the
// attempt's meta: the trace always reads back. Good timings stay as sent.
func TestServerTimingsTheReaderRefusesAreDropped(t *testing.T) {
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	for _, tc := range []struct {
		name, timings string
		keep          bool
		note          string
	}{
		{"good", `{"prompt_n":5,"prompt_ms":1.5,"predicted_n":1,"predicted_ms":2}`, true, ""},
		{"deep", `{"prompt_ms":1,"x":` + deep + `}`, false, "nested too deep"},
		{"utf8", "{\"prompt_ms\":1,\"x\":\"\xff\xfe\"}", false, "UTF-8"},
		{"long", `{"prompt_ms":1,"x":"` + strings.Repeat("y", 200<<10) + `"}`, false, "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\"a\"}]}\n\n")
				io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"stop\"}],\"timings\":"+tc.timings+"}\n\ndata: [DONE]\n\n")
			}))
			defer ts.Close()
			_, tr, _ := run(t, context.Background(), loadgen.Config{URL: ts.URL, Model: "m", Replay: []float64{0}})
			at := tr.Attempts[0]
			var m struct {
				Timings json.RawMessage `json:"server_timings"`
				Dropped string          `json:"server_timings_dropped"`
			}
			if err := json.Unmarshal(at.Meta, &m); err != nil {
				t.Fatal(err)
			}
			if at.Outcome != trace.OK {
				t.Errorf("outcome %s (%q)", at.Outcome, at.Error)
			}
			if tc.keep && string(m.Timings) != tc.timings {
				t.Errorf("server_timings %s, want %s as sent", m.Timings, tc.timings)
			}
			if !tc.keep && (m.Timings != nil || !strings.Contains(m.Dropped, tc.note)) {
				t.Errorf("server_timings %.80s, note %q; want it dropped with a note naming %q", m.Timings, m.Dropped, tc.note)
			}
		})
	}
}

// A hostile status line (escape sequences that set a terminal's title or clipboard) is written
// into the attempt's error escaped: `coursekit csv` prints the error as it is, so the trace
// must not hold the raw bytes.
func TestHostileStatusLineIsEscaped(t *testing.T) {
	url := rawServer(t, "HTTP/1.1 500 Oops\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;PWNED\x07\r\nContent-Length: 9\r\nConnection: close\r\n\r\nbad \x1b[2J\xff")
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Model: "m", Rate: 5, NumRequests: 1, Duration: 5 * time.Second})
	if len(tr.Attempts) != 1 || tr.Attempts[0].Outcome != trace.HTTPError {
		t.Fatalf("attempts %+v", tr.Attempts)
	}
	e := tr.Attempts[0].Error
	if !utf8.ValidString(e) {
		t.Fatalf("invalid UTF-8 in %q", e)
	}
	for i, r := range e {
		if r < 0x20 || r == 0x7f {
			t.Fatalf("raw control code %U at %d in %q", r, i, e)
		}
	}
	if !strings.Contains(e, `\x1b]0;PWNED`) || !strings.Contains(e, "500 Oops") {
		t.Errorf("error %q: want the status line, escaped", e)
	}
}

// A server that reads the whole request and closes the connection without
// a byte of response got the request: no_response, not connect_error,
// which stays for a connection that never carried it (nothing listening).
func TestRequestSentThenClosedIsNoResponse(t *testing.T) {
	url := rawServerFunc(t, func(net.Conn) {}) // reads the request, then closes
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Model: "m", Replay: []float64{0}, Timeout: time.Minute})
	at := tr.Attempts[0]
	if at.Outcome != trace.NoResponse || !strings.HasPrefix(at.Error, loadgen.NoResponseText) || at.HTTPStatus != 0 {
		t.Errorf("outcome %s, error %q, status %d; want no_response %q", at.Outcome, at.Error, at.HTTPStatus, loadgen.NoResponseText)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	_, tr, _ = run(t, context.Background(), loadgen.Config{URL: closed, Model: "m", Replay: []float64{0}, Timeout: time.Minute})
	if at := tr.Attempts[0]; at.Outcome != trace.ConnectError {
		t.Errorf("nothing listening: outcome %s (%q), want connect_error", at.Outcome, at.Error)
	}
}

// The same through the transparent retry: a pooled connection the server
// had closed fails before the request reached it and is retried on a fresh
// one (meta.conn_retries); when the server then takes that request and
// closes without answering, the attempt is no_response too. (Against
// llama.cpp killed mid-run, the requests queued for its one slot were
// retried this way, then cut off: they were recorded as connect_error.)
func TestRetriedRequestSentThenClosedIsNoResponse(t *testing.T) {
	var conns atomic.Int64
	url := rawServerFunc(t, func(c net.Conn) {
		if conns.Add(1) == 1 { // the first connection answers, keeps alive, and closes on the next request
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: keep-alive\r\nContent-Length: "+strconv.Itoa(len(okStream))+"\r\n\r\n"+okStream)
			http.ReadRequest(bufio.NewReader(c))
		}
	})
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Model: "m", Replay: []float64{0, 200}, Timeout: time.Minute})
	if len(tr.Attempts) != 2 || tr.Attempts[0].Outcome != trace.OK {
		t.Fatalf("attempts %+v", tr.Attempts)
	}
	at := tr.Attempts[1]
	if at.Outcome != trace.NoResponse || !strings.Contains(string(at.Meta), `"conn_retries":1`) {
		t.Errorf("outcome %s (%q), meta %s; want no_response after one transparent retry", at.Outcome, at.Error, at.Meta)
	}
}

// A /metrics of 50,000 distinct series (under the byte and line caps) writes at most
// MaxScrapeSeries of them per scrape, the request gauge among them, and records how many it
// left out: the attacker walk's scrapes were ~15 MB each.
func TestMetricsScrapeSeriesCapped(t *testing.T) {
	const n = 50_000
	s := scrapeOnce(t, func(w io.Writer) {
		for i := range n {
			fmt.Fprintf(w, "a_%05d{l=\"%d\"} %d\n", i, i, i)
		}
		fmt.Fprintf(w, "vllm:num_requests_running{model_name=\"m\"} 3\n")
	}, 1<<20)
	if len(s.Values) != loadgen.MaxScrapeSeries || s.Capped != n+1-loadgen.MaxScrapeSeries {
		t.Errorf("%d values, capped %d; want %d, %d", len(s.Values), s.Capped, loadgen.MaxScrapeSeries, n+1-loadgen.MaxScrapeSeries)
	}
	if s.Values[`vllm:num_requests_running{model_name="m"}`] != 3 {
		t.Error("the request gauge was not kept first")
	}
}

// scrapeOnce runs bench once against a server whose /metrics is page and
// returns the one scrape of the sidecar, read back, which must be at most
// maxBytes. The scrape's own timeout is lifted: the properties are the
// caps, not how fast a loaded machine parses the page.
func scrapeOnce(t *testing.T, page func(io.Writer), maxBytes int) trace.Scrape {
	t.Helper()
	defer loadgen.SetScrapeTimeout(10 * time.Minute)()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			w.Header().Set("Content-Type", "text/plain")
			bw := bufio.NewWriter(w)
			page(bw)
			bw.Flush()
			return
		}
		serveOK(w)
	}))
	defer ts.Close()
	var side bytes.Buffer
	run(t, context.Background(), loadgen.Config{URL: ts.URL, Model: "m", Replay: []float64{0},
		MetricsURL: ts.URL + "/metrics", MetricsEvery: time.Hour, MetricsSink: &side})
	if side.Len() > maxBytes {
		t.Errorf("one scrape wrote %d bytes", side.Len())
	}
	ss, err := trace.ReadScrapes(&side, "sidecar")
	if err != nil || len(ss) != 1 {
		t.Fatalf("%d scrapes, %v", len(ss), err)
	}
	return ss[0]
}

// A 200 answer that is a web page, not an event stream, fails with an
// error that names what it was (status, content type and the page's
// title), so a wrong URL reads as one in the trace.
func TestHTMLAnswerNamesItsContentType(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<html><head><title>Sign in &amp; go</title></head><body>login</body></html>"))
	}))
	defer srv.Close()
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: srv.URL, Model: "m", Concurrency: 1, NumRequests: 2, Duration: 5 * time.Second})
	for _, a := range tr.Attempts {
		// The page's title says which page it was (a login page, a
		// proxy's notice), as for an error status's page.
		if a.Outcome != trace.StreamError || !strings.Contains(a.Error, "the response is 200 text/html; charset=utf-8, not an SSE stream") ||
			!strings.Contains(a.Error, `an HTML page titled "Sign in & go"`) {
			t.Errorf("attempt %s: %s %q", a.ID, a.Outcome, a.Error)
		}
	}
}

// A server that takes the request and resets the connection (a crash:
// "read: connection reset by peer") got it as well: no_response, as when
// it closes cleanly (EOF), never connect_error.
func TestRequestSentThenResetIsNoResponse(t *testing.T) {
	url := rawServerFunc(t, func(c net.Conn) { c.(*net.TCPConn).SetLinger(0) }) // RST on close
	for range 20 {
		_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Model: "m", Replay: []float64{0}, Timeout: time.Minute})
		if at := tr.Attempts[0]; at.Outcome != trace.NoResponse || !strings.HasPrefix(at.Error, loadgen.NoResponseText) {
			t.Fatalf("outcome %s, error %q; want no_response %q", at.Outcome, at.Error, loadgen.NoResponseText)
		}
	}
}
