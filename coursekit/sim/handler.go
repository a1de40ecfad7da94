package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// genRequest is the part of an OpenAI completions or chat request the
// simulator uses; other fields are accepted and ignored, as engines do.
type genRequest struct {
	Model               string          `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            []chatMessage   `json:"messages"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// countTokens approximates a tokenizer with whitespace-separated words: a
// string, a list of strings, a list of token ids, or chat content parts.
func countTokens(raw json.RawMessage) int {
	if len(raw) == 0 {
		return 0
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return len(strings.Fields(s))
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		n := 0
		for _, x := range list {
			var id float64
			var part struct {
				Text string `json:"text"`
			}
			switch {
			case json.Unmarshal(x, &id) == nil:
				n++
			case json.Unmarshal(x, &part) == nil && part.Text != "":
				n += len(strings.Fields(part.Text))
			default:
				n += countTokens(x)
			}
		}
		return n
	}
	return 0
}

var words = []string{" the", " quick", " brown", " fox", " jumps", " over", " a", " lazy", " dog", "."}

// stream holds what one response needs to write its SSE messages.
type stream struct {
	w         http.ResponseWriter
	fl        http.Flusher
	chat      bool
	prefix    []byte // {"id":…,"object":…,"created":…,"model":…,
	usage     bool   // include_usage
	perChunk  bool   // continuous_usage_stats
	input     int
	sent      int // tokens sent so far
	buf       []byte
	text      []byte
	firstSent bool
	tokens    []string // an arith answer, sent instead of the filler words
}

func (st *stream) appendUsage(b []byte, completion int) []byte {
	b = append(b, `"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(st.input), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(st.input+completion), 10)
	return append(b, '}')
}

// event writes one SSE message carrying k tokens and flushes it. With
// last, the end of the stream (usage chunk, [DONE]) goes in the same write:
// one system call per response less for the server, one wake-up less for
// the client, and nothing changes on the wire but the packet boundaries.
func (st *stream) event(k int, finish string, last bool) error {
	b := append(st.buf[:0], "data: "...)
	b = append(b, st.prefix...)
	b = append(b, `"choices":[{"index":0,`...)
	// The words are plain ASCII with nothing to escape, so the JSON string
	// is written as it is (this runs once per event).
	t := append(st.text[:0], '"')
	for i := range k {
		if st.tokens != nil {
			t = append(t, st.tokens[st.sent+i]...) // digits and '-': nothing to escape
		} else {
			t = append(t, words[(st.sent+i)%len(words)]...)
		}
	}
	t = append(t, '"')
	st.text = t
	if st.chat {
		b = append(b, `"delta":{`...)
		if !st.firstSent {
			b = append(b, `"role":"assistant",`...)
		}
		b = append(b, `"content":`...)
		b = append(b, t...)
		b = append(b, '}')
	} else {
		b = append(b, `"text":`...)
		b = append(b, t...)
	}
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendQuote(b, finish)
	}
	b = append(b, "}]"...)
	st.sent += k
	st.firstSent = true
	switch {
	case st.perChunk:
		b = append(b, ',')
		b = st.appendUsage(b, st.sent)
	case st.usage:
		b = append(b, `,"usage":null`...)
	}
	b = append(b, "}\n\n"...)
	if last {
		b = st.appendFinish(b)
	}
	st.buf = b
	return st.write(b)
}

func (st *stream) write(b []byte) error {
	if _, err := st.w.Write(b); err != nil {
		return err
	}
	st.fl.Flush()
	return nil
}

// finish writes the usage-only chunk (when asked for) and [DONE].
func (st *stream) finish() error {
	st.buf = st.appendFinish(st.buf[:0])
	return st.write(st.buf)
}

func (st *stream) appendFinish(b []byte) []byte {
	if st.usage {
		b = append(b, "data: "...)
		b = append(b, st.prefix...)
		b = append(b, `"choices":[],`...)
		b = st.appendUsage(b, st.sent)
		b = append(b, "}\n\n"...)
	}
	return append(b, "data: [DONE]\n\n"...)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":%q,"code":%d}}`+"\n", msg, http.StatusText(status), status)
}

func (s *Server) serveGenerate(w http.ResponseWriter, r *http.Request, chat bool) {
	t := &Truth{ReceivedMS: s.Since(), FirstByteMS: -1, Endpoint: r.URL.Path}
	n := s.nextID.Add(1)
	t.ResponseID = "cmpl-sim-" + strconv.FormatUint(n, 10)
	if chat {
		t.ResponseID = "chatcmpl-sim-" + strconv.FormatUint(n, 10)
	}
	t.ID = r.Header.Get("X-Request-Id")
	if t.ID == "" {
		t.ID = t.ResponseID
	}
	s.newTruth(t)
	outcome, fault, status := "ok", "", 0
	defer func() {
		s.update(t, func(t *Truth) {
			t.EndMS, t.Done, t.Outcome, t.Fault, t.Status = s.Since(), true, outcome, fault, status
		})
		s.requests.WithLabelValues(outcome).Inc()
	}()

	var req genRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&req); err != nil {
		outcome, status = "bad_request", http.StatusBadRequest
		writeError(w, http.StatusBadRequest, "request body is not valid JSON: "+err.Error())
		return
	}
	input := countTokens(req.Prompt)
	if chat {
		for _, m := range req.Messages {
			input += countTokens(m.Content)
		}
	}
	maxTok := s.cfg.DefaultMaxTokens
	if req.MaxCompletionTokens != nil {
		maxTok = *req.MaxCompletionTokens
	}
	if req.MaxTokens != nil {
		maxTok = *req.MaxTokens
	}
	if maxTok < 1 {
		outcome, status = "bad_request", http.StatusBadRequest
		writeError(w, http.StatusBadRequest, "max_tokens must be at least 1")
		return
	}
	if c := s.cfg.OutputCap; c > 0 {
		maxTok = min(maxTok, c)
	}
	target := maxTok
	if lo := s.cfg.MinOutput; lo > 0 && lo < maxTok {
		_, target = s.draw(lo, maxTok)
	}
	finish := "length"
	if target < maxTok {
		finish = "stop"
	}
	answer, wrong, isQuestion := s.answer(promptText(&req, chat))
	if isQuestion {
		target, finish = min(len(answer), maxTok), "stop"
		if len(answer) > maxTok {
			finish = "length" // cut by max_tokens: the judge will see a wrong number
		}
		s.update(t, func(t *Truth) { t.Answer, t.WrongOnPurpose = strings.Join(answer[:target], ""), wrong })
	}
	model := req.Model
	if model == "" {
		model = s.cfg.Model
	}
	s.update(t, func(t *Truth) { t.Stream, t.InputTokens = req.Stream, input })

	fault = s.pickFault()
	switch fault {
	case "http_429":
		outcome, status = fault, http.StatusTooManyRequests
		writeError(w, http.StatusTooManyRequests, "simulated rate limit")
		s.update(t, func(t *Truth) { t.FirstByteMS = s.Since() })
		return
	case "http_503":
		outcome, status = fault, http.StatusServiceUnavailable
		writeError(w, http.StatusServiceUnavailable, "simulated overload")
		s.update(t, func(t *Truth) { t.FirstByteMS = s.Since() })
		return
	}

	fl, _ := w.(http.Flusher)
	if req.Stream {
		if fl == nil {
			outcome, status = "bad_request", http.StatusInternalServerError
			writeError(w, http.StatusInternalServerError, "this connection cannot stream")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		fl.Flush()
		status = http.StatusOK
		s.update(t, func(t *Truth) { t.FirstByteMS = s.Since() })
	}

	if fault == "no_first_token" {
		outcome = fault
		select {
		case <-r.Context().Done():
		case <-s.quit:
		}
		return
	}

	q := &seq{input: input, target: target, out: make(chan struct{}, target)}
	s.exec.submit(q)
	created := s.start.Unix()
	prefix, _ := json.Marshal(struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		Model   string `json:"model"`
	}{t.ResponseID, map[bool]string{false: "text_completion", true: "chat.completion.chunk"}[chat], created, model})
	prefix = append(prefix[:len(prefix)-1], ',')

	st := &stream{w: w, fl: fl, chat: chat, prefix: prefix, input: input, tokens: answer}
	if o := req.StreamOptions; o != nil {
		st.usage, st.perChunk = o.IncludeUsage, o.ContinuousUsageStats
	}
	k := s.cfg.TokensPerEvent
	events := (target + k - 1) / k
	resetAfter := max(1, events/2)
	produced, pending, written, inline := 0, 0, 0, false
	for produced < target {
		select {
		case <-q.out:
		case <-r.Context().Done():
			s.exec.abandon(q)
			outcome = "client_gone"
			return
		case <-s.quit:
			s.exec.abandon(q)
			outcome = "shutdown"
			return
		}
		produced++
		pending++
		if !req.Stream || (pending < k && produced < target) {
			continue
		}
		fr := ""
		if produced == target {
			fr = finish
		}
		at := s.Since() // just before the bytes are handed to the connection
		// Without a fault the last event carries the end of the stream; a
		// fault writes its own ending after the events.
		inline = fault == "" && produced == target
		if err := st.event(pending, fr, inline); err != nil {
			s.exec.abandon(q)
			outcome = "client_gone"
			return
		}
		tok := pending
		s.update(t, func(t *Truth) { t.Events = append(t.Events, TruthEvent{at, tok}); t.OutputTokens += tok })
		pending = 0
		written++
		if fault == "malformed" && written == 1 {
			st.write([]byte("data: " + string(prefix) + `"choices":[{"index":0,"text":` + "\n\n"))
		}
		if fault == "reset" && written == resetAfter {
			s.exec.abandon(q)
			outcome = fault
			resetConn(w)
			return
		}
	}
	if fault != "" {
		outcome = fault
	}
	if req.Stream {
		if !inline && st.finish() != nil {
			outcome = "client_gone"
		}
		return
	}

	// Non-streaming: one JSON body once everything is generated.
	text := strings.Builder{}
	for i := range target {
		if answer != nil {
			text.WriteString(answer[i])
		} else {
			text.WriteString(words[i%len(words)])
		}
	}
	choice := map[string]any{"index": 0, "logprobs": nil, "finish_reason": finish}
	object := "text_completion"
	if chat {
		object = "chat.completion"
		choice["message"] = map[string]any{"role": "assistant", "content": text.String()}
	} else {
		choice["text"] = text.String()
	}
	body, _ := json.Marshal(map[string]any{
		"id": t.ResponseID, "object": object, "created": created, "model": model,
		"choices": []any{choice},
		"usage":   map[string]int{"prompt_tokens": input, "completion_tokens": target, "total_tokens": input + target},
	})
	if fault == "reset" {
		resetConn(w)
		return
	}
	if fault == "malformed" {
		body = body[:len(body)/2]
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	status = http.StatusOK
	w.Write(append(body, '\n'))
	s.update(t, func(t *Truth) { t.FirstByteMS = s.Since(); t.OutputTokens = target })
}

// resetConn takes the connection over and closes it with SO_LINGER 0, so
// the client sees a TCP reset in the middle of the body.
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// initMetrics registers the /metrics series on a registry of this server's
// own, so that several simulators can run in one process (tests).
func (s *Server) initMetrics() {
	s.reg = prometheus.NewRegistry()
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sim_requests_total",
		Help: "Generation requests by how the server ended them (ok, http_429, http_503, no_first_token, reset, malformed, client_gone, shutdown, bad_request).",
	}, []string{"outcome"})
	s.tokens = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sim_generated_tokens_total",
		Help: "Output tokens produced by the executor.",
	})
	s.reg.MustRegister(s.requests, s.tokens,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "sim_device_busy_ratio",
			Help: "Fraction of the recent window during which the engine held a batch (what a GPU utilization gauge shows). Busy is not fast: check the queue and the TTFT.",
		}, s.exec.busyFraction),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "sim_device_busy_seconds_total",
			Help: "Seconds during which the engine held a batch (steps and the host work between them) since the server started. Its rate over an interval is the busy fraction of exactly that interval, unlike the trailing-window gauge.",
		}, s.exec.busySeconds),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "sim_queue_depth",
			Help: "Requests waiting for a batch slot.",
		}, func() float64 { return float64(s.exec.queueLen.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "sim_batch_size",
			Help: "Sequences in the running batch.",
		}, func() float64 { return float64(s.exec.batchLen.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "sim_max_batch_size",
			Help: "Configured maximum batch size.",
		}, func() float64 { return float64(s.cfg.MaxBatch) }),
	)
	for _, o := range []string{"ok", "http_429", "http_503", "no_first_token", "reset", "malformed", "client_gone"} {
		s.requests.WithLabelValues(o)
	}
}

func (s *Server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{})
}

// Stats is a snapshot of the gauges /metrics exports.
type Stats struct {
	Busy       float64 // device-busy fraction over the recent window
	QueueDepth int
	BatchSize  int
}

// Stats reads the gauges without going through /metrics.
func (s *Server) Stats() Stats {
	return Stats{Busy: s.exec.busyFraction(), QueueDepth: int(s.exec.queueLen.Load()), BatchSize: int(s.exec.batchLen.Load())}
}
