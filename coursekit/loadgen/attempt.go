package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// bodyTemplate builds the request JSON once, split around the request id
// (with prompt reuse none: the request's key and id, which start the
// prompt): a request's body is then a few appends instead of a reflective
// json.Marshal of a map per request. With prompt reuse same there is no
// id: the whole body is head.
func (r *runner) bodyTemplate() (head, tail []byte) {
	c := r.cfg
	const mark = `\u0000ID\u0000` // how json.Marshal writes the placeholder
	h, t, withID, keyed := c.promptParts()
	r.keyed = keyed
	prompt := h + t
	if withID {
		prompt = h + "\x00ID\x00" + t
	}
	m := map[string]any{"model": c.Model, "max_tokens": c.MaxTokens, "stream": true}
	m["stream_options"] = r.streamOptions()
	if c.IgnoreEOS {
		m["ignore_eos"] = true
	}
	if r.chat {
		m["messages"] = []map[string]string{{"role": "user", "content": prompt}}
	} else {
		m["prompt"] = prompt
	}
	b, _ := json.Marshal(m)
	i := bytes.Index(b, []byte(mark))
	if i < 0 { // the same prompt for every request: no id to insert
		r.noID = true
		return b, nil
	}
	return b[:i], b[i+len(mark):]
}

func (r *runner) streamOptions() map[string]any {
	so := map[string]any{"include_usage": true}
	if r.cfg.ContinuousUsage {
		so["continuous_usage_stats"] = true
	}
	return so
}

// body is the request JSON for one business request (ids are made of
// letters, digits and dots, which JSON strings take as they are).
func (r *runner) body(id string) []byte {
	b := make([]byte, 0, len(r.bodyHead)+promptKeyLen+1+len(id)+len(r.bodyTail))
	b = append(b, r.bodyHead...)
	if r.keyed {
		b = appendPromptKey(b, r.cfg.PromptSalt, id)
		b = append(b, ' ')
	}
	if !r.noID {
		b = append(b, id...)
	}
	return append(b, r.bodyTail...)
}

// attempt sends one request and follows its stream to the end. With
// text set (a judged dataset), the generated text is appended to it.
func (r *runner) attempt(id, request string, scheduled float64, item int, text *answer) *trace.Attempt {
	a := &trace.Attempt{ID: id, Request: request}
	// Stamp the start before the deadline is set, so a timeout always lies
	// at least Timeout after start_ms on the trace clock.
	a.StartMS = r.now()
	if r.ctx.Err() != nil {
		// Interrupted before this send: not sent, not recorded. Checked after
		// the stamp, so that every attempt sent started before the run
		// noticed the interrupt, inside the window that ends there.
		return nil
	}
	var ctx context.Context
	var cancel context.CancelFunc // also ends a drain that waits too long
	if r.cfg.Timeout > 0 {
		ctx, cancel = context.WithTimeout(r.ctx, r.cfg.Timeout)
	} else {
		ctx, cancel = context.WithCancel(r.ctx)
	}
	defer cancel()
	body := r.bodies
	var payload []byte
	if body != nil {
		payload = body[item]
	} else {
		payload = r.body(request)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.endpoint, bytes.NewReader(payload))
	if err != nil {
		panic(err) // the endpoint was checked when the run started
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Request-Id", id)
	for k, v := range r.cfg.Header {
		req.Header[k] = v
	}

	r.sent.Add(1)
	if id == request {
		r.arrivals.Add(1) // a retry is not an arrival
	}
	r.inflight.Add(1)
	lag := max(a.StartMS-scheduled, 0)
	a.Meta = strconv.AppendFloat([]byte(`{"scheduled_ms":`), scheduled, 'f', -1, 64)
	a.Meta = append(r.appendPromptRef(a.Meta, item), '}')
	defer func() {
		end := r.now()
		if a.HasEnd {
			end = a.EndMS
		}
		a.Meta = r.late.appendMeta(a.Meta, a.StartMS, end)
		r.inflight.Add(-1)
		r.done.Add(1)
		r.mu.Lock()
		r.lags = append(r.lags, lag)
		if r.live {
			r.lag.RecordValue(int64(lag*1e3) + 1)
			if a.Outcome == trace.OK {
				t, _ := a.TTFT()
				r.ttft.RecordValue(int64(t*1e3) + 1)
			}
		}
		r.mu.Unlock()
		if a.Outcome != trace.OK && a.Outcome != trace.InFlight {
			r.errs.Add(1)
		}
	}()

	var reused, wrote bool
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:      func(i httptrace.GotConnInfo) { reused = i.Reused },
		WroteRequest: func(i httptrace.WroteRequestInfo) { wrote = i.Err == nil },
	}))
	resp, err := r.client.Do(req)
	if err != nil && reused && ctx.Err() == nil {
		// A pooled connection the server had closed (llama.cpp advertises
		// keep-alive, then closes after each stream) fails before any
		// response byte: the request never reached the server. Send it once
		// more on a fresh connection, and say so in meta.conn_retries.
		req2 := req.Clone(req.Context()) // with the trace hooks: WroteRequest tells a request the server got
		req2.Body = io.NopCloser(bytes.NewReader(payload))
		req2.Close = true
		a.Meta = append(a.Meta[:len(a.Meta)-1], `,"conn_retries":1}`...)
		wrote = false
		resp, err = r.fresh.Do(req2)
	}
	if err != nil {
		switch msg, ok := serverFault(err); {
		case ok:
			r.fail(a, ctx, trace.HTTPError, errors.New(msg))
		case wrote:
			// The request went out whole on a working connection, and the
			// connection closed before any response byte: the server got
			// it (and crashed, or dropped it). Not a connect_error.
			r.fail(a, ctx, trace.NoResponse, fmt.Errorf("%s: %w", NoResponseText, err))
		default:
			r.fail(a, ctx, trace.ConnectError, err)
		}
		return a
	}
	defer resp.Body.Close()
	a.HTTPStatus = resp.StatusCode
	if isRedirect(resp.StatusCode) {
		a.Outcome, a.EndMS, a.HasEnd = trace.HTTPError, r.now(), true
		a.Error = redirectError(resp)
		return a
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		a.Outcome, a.EndMS, a.HasEnd = trace.HTTPError, r.now(), true
		// The status line and body are the peer's bytes: control codes and invalid UTF-8 are
		// written escaped, so no terminal, CSV or page that shows the error runs them.
		a.Error = safetext.Name(strings.TrimSpace(resp.Status + ": " + errorBody(resp.Header.Get("Content-Type"), msg)))
		return a
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		a.Outcome, a.EndMS, a.HasEnd = trace.StreamError, r.now(), true
		a.Error = "the response is " + ct + ", not an SSE stream: the server ignored \"stream\": true"
		return a
	}
	var st streamState
	ct := resp.Header.Get("Content-Type")
	src := io.Reader(resp.Body)
	var head bytes.Buffer // the first bytes of an answer that does not say it is a stream
	if !strings.HasPrefix(ct, "text/event-stream") {
		src = io.TeeReader(resp.Body, &limitWriter{w: &head, n: 512})
	}
	r.readStream(ctx, a, src, cancel, text, &st)
	a.Meta = st.appendMeta(a.Meta)
	if a.Outcome == trace.StreamError && len(a.Events) == 0 && !strings.HasPrefix(ct, "text/event-stream") {
		// A stream that never started from an answer that was not one (a
		// web page, a proxy's message): say what it was, and a page by
		// its title, as an error status's page is.
		shown := ct
		if shown == "" {
			shown = "without a Content-Type"
		}
		a.Error = fmt.Sprintf("the response is %d %s, not an SSE stream (text/event-stream): %s", resp.StatusCode, safetext.Name(shown), a.Error)
		if isHTML(ct, head.Bytes()) {
			a.Error += "; " + safetext.Name(errorBody(ct, head.Bytes()))
		}
	}
	return a
}

// limitWriter keeps the first n bytes written to it and drops the rest,
// never failing: it sits beside the stream's reader (io.TeeReader), which
// must not stop on it.
type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// fail ends a with the outcome an error means: in_flight when the run
// was interrupted (the user stopped it, the server did not fail; the
// events that arrived are kept), timeout when the attempt's own deadline
// passed, else def.
func (r *runner) fail(a *trace.Attempt, ctx context.Context, def trace.Outcome, err error) {
	a.EndMS, a.HasEnd = r.now(), true
	switch {
	case r.ctx.Err() != nil:
		a.Outcome, a.HasEnd, a.EndMS = trace.InFlight, false, 0
		a.Error = "still running when the run was interrupted"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		a.Outcome = trace.Timeout
		if len(a.Events) == 0 {
			a.Error = fmt.Sprintf("no first token within the %s timeout", r.cfg.Timeout)
		} else {
			a.Error = fmt.Sprintf("stream not finished within the %s timeout", r.cfg.Timeout)
		}
	default:
		a.Outcome = def
		a.Error = redactErr(err)
	}
}

// readers recycles the stream readers: a fresh 32 KiB buffer per request
// was the client's largest allocation.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}

// readStream reads SSE messages (data lines joined, a blank line ends a
// message, comments skipped) and stamps each when its blank line arrives,
// before the JSON is parsed.
func (r *runner) readStream(ctx context.Context, a *trace.Attempt, body io.Reader, cancel context.CancelFunc, text *answer, st *streamState) {
	br := readers.Get().(*bufio.Reader)
	br.Reset(body)
	defer func() { br.Reset(nil); readers.Put(br) }()
	var data, long []byte
	has, sawFinish := false, false
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull && len(long) <= MaxSSELineBytes {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(bytes.TrimRight(line, "\r\n")) > MaxSSELineBytes {
			a.Outcome, a.EndMS, a.HasEnd = trace.StreamError, r.now(), true
			a.Error = fmt.Sprintf("SSE line longer than %d bytes (1 MiB): not read further", MaxSSELineBytes)
			return
		}
		if err != nil {
			switch {
			case ctx.Err() != nil:
				r.fail(a, ctx, trace.StreamError, err)
			case err == io.EOF && sawFinish && len(a.Events) > 0:
				a.Outcome, a.EndMS, a.HasEnd = trace.OK, r.now(), true
			case err == io.EOF && sawFinish:
				a.Outcome, a.EndMS, a.HasEnd = trace.EmptyOutput, r.now(), true
				a.Error = "stream ended after a finish_reason without any output text"
			case err == io.EOF:
				a.Outcome, a.EndMS, a.HasEnd = trace.StreamError, r.now(), true
				a.Error = "stream ended before [DONE]"
			case errors.Is(err, io.ErrUnexpectedEOF):
				// The connection closed inside the body (a chunk or the
				// Content-Length not complete): the server died or cut
				// the stream, with or without events before. Go says only
				// "unexpected EOF".
				a.Outcome, a.EndMS, a.HasEnd = trace.StreamError, r.now(), true
				a.Error = CutStreamText + " (unexpected EOF)"
			default:
				r.fail(a, ctx, trace.StreamError, err)
			}
			return
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 {
			if line[0] == ':' {
				continue
			}
			field, value, _ := bytes.Cut(line, []byte{':'})
			if string(field) == "data" {
				value = bytes.TrimPrefix(value, []byte{' '})
				if len(data)+1+len(value) > MaxSSEMessageBytes {
					a.Outcome, a.EndMS, a.HasEnd = trace.StreamError, r.now(), true
					a.Error = fmt.Sprintf("SSE message longer than %d bytes (1 MiB, data lines without a blank line): not read further", MaxSSEMessageBytes)
					return
				}
				if has {
					data = append(data, '\n')
				}
				data = append(data, value...)
				has = true
			}
			continue
		}
		if !has {
			continue
		}
		t := r.now()
		has = false
		if string(data) == "[DONE]" {
			if len(a.Events) == 0 {
				a.Outcome, a.EndMS, a.HasEnd = trace.EmptyOutput, t, true
				a.Error = "[DONE] without any output text"
			} else {
				a.Outcome, a.EndMS, a.HasEnd = trace.OK, t, true
			}
			drain(br, cancel)
			return
		}
		c, err := parseChunk(data)
		if err != nil {
			a.Outcome, a.EndMS, a.HasEnd = trace.StreamError, t, true
			a.Error = "malformed SSE message: " + err.Error() + ": " + shorten(data)
			return
		}
		if c.errEnd > 0 {
			a.Outcome, a.EndMS, a.HasEnd = trace.StreamError, t, true
			a.Error = "error in stream: " + shorten(data[c.errStart:c.errEnd])
			return
		}
		msg := data
		data = data[:0]
		prevUsage := st.usageSeen
		delta := 0
		if c.hasUsage {
			a.InputTokens, a.OutputTokens = c.prompt, c.completed
			delta = c.completed - st.lastCompletion
			st.lastCompletion, st.usageSeen = c.completed, true
		}
		if c.hasCached {
			st.cached, st.hasCached = c.cached, true
		}
		if c.timingsEnd > c.timingsStart {
			st.timings = append(st.timings[:0], msg[c.timingsStart:c.timingsEnd]...)
		}
		if c.finished && !sawFinish {
			// The tokens usage counts beyond the text (an end-of-sequence
			// token, a stop string) arrive by now: TPOT's t_N.
			sawFinish = true
			a.FinishMS, a.HasFinish = t, true
		}
		if !c.hasText() {
			st.count(&c)
			continue
		}
		// Usage is cumulative. Per-chunk usage (vLLM's continuous usage, or
		// usage on the very first event) gives an event its own tokens; a
		// stream's final usage, after events without any, belongs to the
		// stream (output_tokens), not to its last event.
		tokens := 1
		if c.hasUsage && (prevUsage || len(a.Events) == 0) && delta > 1 {
			tokens = delta
		}
		e := trace.Event{TMS: t, Tokens: tokens}
		if st.eventBytes += eventBytes(e); st.eventBytes > maxEventBytes {
			a.Outcome, a.EndMS, a.HasEnd = trace.StreamError, t, true
			a.Error = fmt.Sprintf("more events than one trace line holds (%s, lines are at most %d bytes): not read further", lang.N(lang.EN, len(a.Events), "event", "events"), trace.MaxLineBytes)
			return
		}
		a.Events = append(a.Events, e)
		if text != nil && c.textEnd > c.textStart && !text.capped {
			if len(text.b)+(c.textEnd-c.textStart) > MaxAnswerBytes {
				text.capped = true // not judged: see MaxAnswerBytes
			} else {
				text.b = c.text(text.b, msg) // after the stamp, before the next message reuses msg
			}
		}
	}
}

// streamState is what a stream tells beyond its events, written into the
// attempt's meta when it ends.
type streamState struct {
	usageSeen      bool
	lastCompletion int
	cached         int
	hasCached      bool
	timings        []byte // llama.cpp's timings object, as sent
	eventBytes     int    // the events' length in the trace line
	// Chunks without output text, which are not events.
	roleOnly, empty, finishOnly, noChoices int
}

// count files a chunk that carries no output text.
func (st *streamState) count(c *chunkInfo) {
	switch {
	case c.choices == 0:
		st.noChoices++
	case c.role:
		st.roleOnly++
	case c.finished:
		st.finishOnly++
	default:
		st.empty++
	}
}

// appendMeta adds the stream's findings to an attempt's meta object
// (which ends in '}'): meta.stream, meta.cached_tokens and
// meta.server_timings, each only when there is something to say.
func (st *streamState) appendMeta(meta []byte) []byte {
	if st.roleOnly+st.empty+st.finishOnly+st.noChoices == 0 && !st.hasCached && len(st.timings) == 0 {
		return meta
	}
	m := meta[:len(meta)-1]
	if n := st.roleOnly + st.empty + st.finishOnly + st.noChoices; n > 0 {
		m = append(m, `,"stream":{`...)
		sep := false
		for _, f := range []struct {
			k string
			v int
		}{{"role_only", st.roleOnly}, {"empty", st.empty}, {"finish_only", st.finishOnly}, {"no_choices", st.noChoices}} {
			if f.v == 0 {
				continue
			}
			if sep {
				m = append(m, ',')
			}
			sep = true
			m = append(m, '"')
			m = append(m, f.k...)
			m = append(m, `":`...)
			m = strconv.AppendInt(m, int64(f.v), 10)
		}
		m = append(m, '}')
	}
	if st.hasCached {
		m = append(m, `,"cached_tokens":`...)
		m = strconv.AppendInt(m, int64(st.cached), 10)
	}
	if len(st.timings) > 0 {
		m = appendTimings(m, st.timings)
	}
	return append(m, '}')
}

// appendTimings adds ,"server_timings":… to the open meta object m,
// compacted (a pretty-printed object cannot break the trace's one-line
// records) with its values as sent. Timings the trace reader would refuse
// (nesting past its depth, strings that are not UTF-8), or longer than
// MaxServerTimingsBytes, are left out, and
// ,"server_timings_dropped":"why" says so.
func appendTimings(m, timings []byte) []byte {
	var buf bytes.Buffer
	why := ""
	if err := json.Compact(&buf, timings); err != nil {
		why = "not JSON: " + err.Error()
	} else if buf.Len() > MaxServerTimingsBytes {
		why = fmt.Sprintf("larger than %d bytes (%d)", MaxServerTimingsBytes, buf.Len())
	} else {
		n := len(m)
		m = append(m, `,"server_timings":`...)
		m = append(m, buf.Bytes()...)
		err := trace.CheckMeta(append(m, '}'))
		if err == nil {
			return m
		}
		m = m[:n]
		why = "the trace reader refuses it: " + err.Error()
		var te *trace.Error
		if errors.As(err, &te) {
			why = "the trace reader refuses it: " + te.Msg
		}
	}
	m = append(m, `,"server_timings_dropped":`...)
	b, _ := json.Marshal(cut(why, maxShown))
	return append(m, b...)
}

// drain reads what follows [DONE] (normally only the end of the chunked
// body, already sent) up to EOF, so that the connection goes back to the
// pool: net/http closes a connection whose body is closed before EOF, and
// then every request paid a new TCP handshake, a new server connection and
// two new transport goroutines. The attempt is already stamped; a server
// that keeps the stream open after [DONE] costs drainWait, then the
// connection is dropped.
func drain(br *bufio.Reader, cancel context.CancelFunc) {
	stop := time.AfterFunc(drainWait, cancel)
	io.Copy(io.Discard, io.LimitReader(br, 64<<10))
	stop.Stop()
}

const drainWait = 100 * time.Millisecond

func shorten(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
