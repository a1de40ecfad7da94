package sim_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/sim"
)

// fast is an engine quick enough that a test runs in milliseconds.
var fast = sim.Config{MaxBatch: 8, DecodeStep: time.Millisecond, DecodePerSeq: 100 * time.Microsecond, DefaultMaxTokens: 8}

func start(t *testing.T, cfg sim.Config) (*sim.Server, *httptest.Server) {
	t.Helper()
	s := sim.New(cfg)
	ts := httptest.NewServer(s) // 127.0.0.1:0
	t.Cleanup(func() { s.Close(); ts.Close() })
	return s, ts
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readSSEStrict reads a whole stream and fails on anything but
// "data: PAYLOAD\n\n" messages, ending with exactly one "data: [DONE]".
func readSSEStrict(t *testing.T, r io.Reader) []string {
	t.Helper()
	br := bufio.NewReader(r)
	var msgs []string
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && line == "" {
			break
		}
		if err != nil {
			t.Fatalf("stream cut inside a line %q: %v", line, err)
		}
		payload, ok := strings.CutPrefix(line, "data: ")
		if !ok || !strings.HasSuffix(payload, "\n") {
			t.Fatalf("not a data line: %q", line)
		}
		if blank, err := br.ReadString('\n'); err != nil || blank != "\n" {
			t.Fatalf("message %q not followed by a blank line: %q %v", payload, blank, err)
		}
		msgs = append(msgs, strings.TrimSuffix(payload, "\n"))
	}
	if len(msgs) == 0 || msgs[len(msgs)-1] != "[DONE]" {
		t.Fatalf("stream does not end in [DONE]: %q", msgs)
	}
	for _, m := range msgs[:len(msgs)-1] {
		if m == "[DONE]" {
			t.Fatalf("[DONE] before the end: %q", msgs)
		}
	}
	return msgs[:len(msgs)-1]
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// chunk is every field an OpenAI streaming chunk may carry; decoding with
// DisallowUnknownFields catches any extra or misspelt field.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int     `json:"index"`
		Text  *string `json:"text"`
		Delta *struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		Logprobs     any     `json:"logprobs"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

func decodeStrict(t *testing.T, s string) chunk {
	t.Helper()
	var c chunk
	d := json.NewDecoder(strings.NewReader(s))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		t.Fatalf("chunk %q: %v", s, err)
	}
	return c
}

// A completions stream has the shape clients expect: text chunks, the
// finish_reason on the last one, then a usage-only chunk and [DONE].
func TestCompletionsStreamShape(t *testing.T) {
	_, ts := start(t, fast)
	resp := post(t, ts.URL+"/v1/completions", `{"model":"m1","prompt":"one two three","max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	msgs := readSSEStrict(t, resp.Body)
	if len(msgs) != 6 {
		t.Fatalf("want 5 token chunks and 1 usage chunk, got %d: %q", len(msgs), msgs)
	}
	var text strings.Builder
	for i, m := range msgs[:5] {
		c := decodeStrict(t, m)
		if c.Object != "text_completion" || c.Model != "m1" || !strings.HasPrefix(c.ID, "cmpl-") || len(c.Choices) != 1 || c.Choices[0].Text == nil {
			t.Fatalf("chunk %d: %+v", i, c)
		}
		text.WriteString(*c.Choices[0].Text)
		if fr := c.Choices[0].FinishReason; (i == 4) != (fr != nil) || (fr != nil && *fr != "length") {
			t.Errorf("chunk %d finish_reason %v", i, fr)
		}
	}
	if text.String() != " the quick brown fox jumps" {
		t.Errorf("text %q", text.String())
	}
	u := decodeStrict(t, msgs[5])
	if len(u.Choices) != 0 || u.Usage == nil || *u.Usage != (usage{3, 5, 8}) {
		t.Errorf("usage chunk %q", msgs[5])
	}
}

// A chat stream puts the role in the first delta; with
// continuous_usage_stats every chunk carries the running usage, which is
// how a client learns that one event carried k tokens.
func TestChatStreamMultiTokenEvents(t *testing.T) {
	cfg := fast
	cfg.TokensPerEvent = 3
	_, ts := start(t, cfg)
	resp := post(t, ts.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi there"}],"max_tokens":7,"stream":true,
		"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`)
	defer resp.Body.Close()
	msgs := readSSEStrict(t, resp.Body)
	if len(msgs) != 4 { // 3 + 3 + 1 tokens, then usage
		t.Fatalf("got %d messages: %q", len(msgs), msgs)
	}
	want := []int{3, 6, 7}
	for i, m := range msgs[:3] {
		c := decodeStrict(t, m)
		d := c.Choices[0].Delta
		if c.Object != "chat.completion.chunk" || c.Model != "sim-model" || d == nil || d.Content == nil || (i == 0) != (d.Role == "assistant") {
			t.Fatalf("chunk %d: %s", i, m)
		}
		if c.Usage == nil || c.Usage.CompletionTokens != want[i] || c.Usage.PromptTokens != 2 {
			t.Errorf("chunk %d usage %+v", i, c.Usage)
		}
	}
}

// Without stream, the whole answer comes as one JSON body with usage.
func TestNonStreaming(t *testing.T) {
	_, ts := start(t, fast)
	for _, c := range []struct{ path, body, object string }{
		{"/v1/completions", `{"prompt":"a b","max_tokens":3}`, "text_completion"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":[{"type":"text","text":"a b"}]}],"max_tokens":3}`, "chat.completion"},
	} {
		resp := post(t, ts.URL+c.path, c.body)
		var out struct {
			Object  string `json:"object"`
			Choices []struct {
				Text    string                   `json:"text"`
				Message struct{ Content string } `json:"message"`
				Finish  string                   `json:"finish_reason"`
			} `json:"choices"`
			Usage usage `json:"usage"`
		}
		json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if out.Object != c.object || len(out.Choices) != 1 || out.Choices[0].Text+out.Choices[0].Message.Content != " the quick brown" ||
			out.Choices[0].Finish != "length" || out.Usage != (usage{2, 3, 5}) {
			t.Errorf("%s: %+v", c.path, out)
		}
	}
}

// MinOutput draws shorter answers that end with finish_reason "stop".
func TestOutputLengthDistribution(t *testing.T) {
	cfg := fast
	cfg.MinOutput = 2
	_, ts := start(t, cfg)
	seen := map[int]bool{}
	for range 30 {
		resp := post(t, ts.URL+"/v1/completions", `{"prompt":"x","max_tokens":6,"stream":true}`)
		msgs := readSSEStrict(t, resp.Body)
		resp.Body.Close()
		n := len(msgs)
		last := decodeStrict(t, msgs[n-1]).Choices[0].FinishReason
		if n < 2 || n > 6 || (n < 6) != (*last == "stop") {
			t.Fatalf("%d tokens, finish %q", n, *last)
		}
		seen[n] = true
	}
	if len(seen) < 3 {
		t.Errorf("lengths barely vary: %v", seen)
	}
}

func TestBadRequests(t *testing.T) {
	_, ts := start(t, fast)
	for _, body := range []string{`{"prompt":`, `{"prompt":"x","max_tokens":0}`} {
		resp := post(t, ts.URL+"/v1/completions", body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(b), `"error"`) {
			t.Errorf("%s: %d %s", body, resp.StatusCode, b)
		}
	}
}

// The truth log has, per request, the server's own times: the client's
// error is measured against it.
func TestTruth(t *testing.T) {
	s, ts := start(t, fast)
	req, _ := http.NewRequest("POST", ts.URL+"/v1/completions", strings.NewReader(`{"prompt":"x","max_tokens":4,"stream":true}`))
	req.Header.Set("X-Request-Id", "A1")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readSSEStrict(t, resp.Body)
	resp.Body.Close()
	var tr []sim.Truth
	for deadline := time.Now().Add(2 * time.Second); len(tr) == 0 && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		tr = s.Truths()
	}
	if len(tr) != 1 {
		t.Fatalf("truths: %+v", tr)
	}
	x := tr[0]
	ttft, ok := x.TTFT()
	if x.ID != "A1" || x.Outcome != "ok" || x.Status != 200 || len(x.Events) != 4 || !ok || ttft <= 0 ||
		x.FirstByteMS < x.ReceivedMS || x.Events[0].MS < x.FirstByteMS || x.EndMS < x.Events[3].MS || x.OutputTokens != 4 {
		t.Errorf("truth %+v", x)
	}
	resp, _ = http.Get(ts.URL + "/debug/truth")
	var dbg struct {
		Requests []sim.Truth `json:"requests"`
	}
	json.NewDecoder(resp.Body).Decode(&dbg)
	resp.Body.Close()
	if len(dbg.Requests) != 1 || dbg.Requests[0].ID != "A1" {
		t.Errorf("/debug/truth: %+v", dbg)
	}

	// DELETE empties the log (one log per benchmark run); the wall-clock
	// origin lets a client's Unix timestamps be lined up with it.
	req, _ = http.NewRequest("DELETE", ts.URL+"/debug/truth", nil)
	if resp, err = http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE /debug/truth: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, _ = http.Get(ts.URL + "/debug/truth")
	var dbg2 struct {
		StartUnixMS float64     `json:"start_unix_ms"`
		Requests    []sim.Truth `json:"requests"`
	}
	json.NewDecoder(resp.Body).Decode(&dbg2)
	resp.Body.Close()
	if now := float64(time.Now().UnixNano()) / 1e6; len(dbg2.Requests) != 0 || dbg2.StartUnixMS > now || dbg2.StartUnixMS < now-60e3 {
		t.Errorf("after DELETE: %+v", dbg2)
	}
}

// scrape reads one unlabelled sample from /metrics.
func scrape(t *testing.T, url, name string) float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no %s in /metrics:\n%s", name, b)
	return 0
}

// waitFor polls cond until it holds; the deadline is there only so that a
// broken server fails the test instead of hanging it.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// done counts the requests the server has finished.
func done(s *sim.Server) int {
	n := 0
	for _, x := range s.Truths() {
		if x.Done {
			n++
		}
	}
	return n
}

// Under overload the device is busy nearly all the time while the queue
// keeps growing: busy is not fast. The test waits for states, not for
// times: the batch is full while anyone queues, the device has been busy
// for a whole busy window, and a second wave lengthens the queue while the
// device is slowed so much that nobody can leave it meanwhile.
func TestOverloadBusyButQueueGrows(t *testing.T) {
	cfg := sim.Config{MaxBatch: 2, DecodeStep: 5 * time.Millisecond, DefaultMaxTokens: 20, BusyWindow: 300 * time.Millisecond}
	s, ts := start(t, cfg)
	if b := scrape(t, ts.URL, "sim_device_busy_ratio"); b != 0 {
		t.Errorf("idle server busy %g", b)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1000}}
	var wg sync.WaitGroup
	wave := func(n int) {
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := client.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","stream":true}`))
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
	}
	// queued reports whether all n requests sent so far are in the engine:
	// waiting, in the batch or finished.
	queued := func(n int) func() bool {
		return func() bool { st := s.Stats(); return st.QueueDepth+st.BatchSize+done(s) == n }
	}
	// 40 requests at once against a batch of 2 that takes 20 × 5 ms each:
	// at least 2 s of work.
	wave(40)
	waitFor(t, "40 requests in the engine", queued(40))
	tokens := func() float64 { return scrape(t, ts.URL, "sim_generated_tokens_total") }
	t0 := tokens()
	// 2 × 61 tokens = 61 full steps of ≥ 5 ms: a whole busy window.
	waitFor(t, "a busy window of steps", func() bool { return tokens() >= t0+2*61 })
	q1 := scrape(t, ts.URL, "sim_queue_depth")
	busy := scrape(t, ts.URL, "sim_device_busy_ratio")
	batch := scrape(t, ts.URL, "sim_batch_size")
	// A step now takes 50 s: at most the step under way ends before the
	// second wave is in, so at most 2 requests leave the queue.
	s.SetSlowdown(10000)
	d1 := done(s)
	wave(20)
	waitFor(t, "60 requests in the engine", queued(60))
	q2 := scrape(t, ts.URL, "sim_queue_depth")
	t.Logf("queue %g → %g, busy %.3f, batch %g; %d then %d finished", q1, q2, busy, batch, d1, done(s))
	if busy < 0.9 || batch != 2 || q1 < 1 || q2 < q1+18 {
		t.Errorf("overload: queue %g → %g, busy %.3f, batch %g", q1, q2, busy, batch)
	}
	if st := s.Stats(); st.QueueDepth != int(q2) || st.BatchSize != 2 {
		t.Errorf("stats %+v, /metrics queue %g", st, q2)
	}
	s.Close() // releases the queued requests
	wg.Wait()
}

// Every injected fault answers as designed at rate 1.
func TestFaultShapes(t *testing.T) {
	for _, c := range []struct {
		name string
		f    sim.Faults
		want func(t *testing.T, resp *http.Response, err error)
	}{
		{"429", sim.Faults{HTTP429: 1}, func(t *testing.T, resp *http.Response, err error) {
			if err != nil || resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
				t.Errorf("%v %v", resp, err)
			}
		}},
		{"503", sim.Faults{HTTP503: 1}, func(t *testing.T, resp *http.Response, err error) {
			if err != nil || resp.StatusCode != 503 {
				t.Errorf("%v %v", resp, err)
			}
		}},
		{"reset", sim.Faults{Reset: 1}, func(t *testing.T, resp *http.Response, err error) {
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%v %v", resp, err)
			}
			b, err := io.ReadAll(resp.Body)
			if err == nil || !bytes.Contains(b, []byte(`"text"`)) || bytes.Contains(b, []byte("[DONE]")) {
				t.Errorf("want some events then a broken connection; got %q, %v", b, err)
			}
		}},
		{"malformed", sim.Faults{Malformed: 1}, func(t *testing.T, resp *http.Response, err error) {
			b, _ := io.ReadAll(resp.Body)
			bad := 0
			for _, m := range strings.Split(strings.TrimSpace(string(b)), "\n\n") {
				if p := strings.TrimPrefix(m, "data: "); p != "[DONE]" && !json.Valid([]byte(p)) {
					bad++
				}
			}
			if bad != 1 {
				t.Errorf("want one malformed message, got %d in %q", bad, b)
			}
		}},
		{"no first token", sim.Faults{NoFirstToken: 1}, func(t *testing.T, resp *http.Response, err error) {
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%v %v", resp, err)
			}
			done := make(chan []byte)
			go func() { b, _ := io.ReadAll(resp.Body); done <- b }()
			select {
			case b := <-done:
				t.Errorf("stream ended: %q", b)
			case <-time.After(150 * time.Millisecond):
			}
			resp.Body.Close()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := fast
			cfg.Faults = c.f
			_, ts := start(t, cfg)
			resp, err := http.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":6,"stream":true}`))
			c.want(t, resp, err)
			if resp != nil {
				resp.Body.Close()
			}
		})
	}
}

// /metrics counts requests by outcome.
func TestMetricsCounters(t *testing.T) {
	cfg := fast
	cfg.Faults.HTTP503 = 0.5
	cfg.Seed = 7
	s, ts := start(t, cfg)
	codes := map[int]int{}
	for range 40 {
		resp := post(t, ts.URL+"/v1/completions", `{"prompt":"x","max_tokens":2,"stream":true}`)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		codes[resp.StatusCode]++
	}
	for deadline := time.Now().Add(2 * time.Second); len(s.Truths()) < 40 && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
	}
	resp, _ := http.Get(ts.URL + "/metrics")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		fmt.Sprintf(`sim_requests_total{outcome="ok"} %d`, codes[200]),
		fmt.Sprintf(`sim_requests_total{outcome="http_503"} %d`, codes[503]),
		"# TYPE sim_device_busy_ratio gauge",
		"# TYPE sim_device_busy_seconds_total counter",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if codes[503] < 10 || codes[200] < 10 {
		t.Errorf("codes %v", codes)
	}
}

// --max-tokens is a default: a request's max_tokens replaces it (bench and
// capacity always send one). --output-cap is a cap: no answer gets more,
// whatever the request asks, and it ends on "length".
func TestOutputCapCapsMaxTokens(t *testing.T) {
	tokens := func(cfg sim.Config, body string) (int, string) {
		_, ts := start(t, cfg)
		resp := post(t, ts.URL+"/v1/completions", body)
		defer resp.Body.Close()
		msgs := readSSEStrict(t, resp.Body)
		return len(msgs), *decodeStrict(t, msgs[len(msgs)-1]).Choices[0].FinishReason
	}
	def := fast
	def.DefaultMaxTokens = 4
	if n, _ := tokens(def, `{"prompt":"x","max_tokens":12,"stream":true}`); n != 12 {
		t.Errorf("--max-tokens 4, a request of max_tokens 12: %d tokens, want 12 (a default, not a cap)", n)
	}
	capped := def
	capped.OutputCap = 5
	if n, finish := tokens(capped, `{"prompt":"x","max_tokens":12,"stream":true}`); n != 5 || finish != "length" {
		t.Errorf("--output-cap 5, a request of max_tokens 12: %d tokens ending %q, want 5 ending length", n, finish)
	}
	if n, _ := tokens(capped, `{"prompt":"x","max_tokens":3,"stream":true}`); n != 3 {
		t.Errorf("--output-cap 5, a request of max_tokens 3: %d tokens, want 3", n)
	}
}
