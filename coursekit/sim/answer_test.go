package sim_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/sim"
)

// streamText posts one streaming request and returns the concatenated
// text of its chunks, its finish reason and the number of token messages.
func streamText(t *testing.T, url, body string) (text, finish string, events int) {
	text, finish, pieces := streamPieces(t, url, body)
	return text, finish, len(pieces)
}

// streamPieces is streamText with the text of each token message.
func streamPieces(t *testing.T, url, body string) (text, finish string, pieces []string) {
	t.Helper()
	resp := post(t, url, body)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for _, m := range readSSEStrict(t, resp.Body) {
		var c struct {
			Choices []struct {
				Text  string `json:"text"`
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(m), &c); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		for _, ch := range c.Choices {
			pieces = append(pieces, ch.Text+ch.Delta.Content)
			text += ch.Text + ch.Delta.Content
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	return text, finish, pieces
}

func completion(prompt string, maxTokens int) string {
	b, _ := json.Marshal(map[string]any{"prompt": prompt, "max_tokens": maxTokens, "stream": true})
	return string(b)
}

// An arith question is answered right, streamed as number tokens, and
// stops early; a chat question too; other prompts get the filler words.
func TestArithAnswers(t *testing.T) {
	s, ts := start(t, fast)
	for _, it := range dataset.Arith(1, 40).Items {
		want, _ := dataset.SolveArith(it.Prompt)
		text, finish, pieces := streamPieces(t, ts.URL+"/v1/completions", completion(it.Prompt, 64))
		if text != strconv.FormatInt(want, 10) || finish != "stop" {
			t.Fatalf("%q: %q (%s), want %d", it.Prompt, text, finish, want)
		}
		// Number tokens: a sign alone, then groups of three digits from the left.
		for k, p := range pieces {
			full := p == "-" || len(p) == 3 || k == len(pieces)-1
			if len(p) == 0 || len(p) > 3 || !full {
				t.Fatalf("%q: tokens %q", it.Prompt, pieces)
			}
		}
		if v := it.Judge.Judge(text); !v.Pass {
			t.Fatalf("%q: the judge says %+v", it.Prompt, v)
		}
	}
	chat, _ := json.Marshal(map[string]any{"stream": true, "messages": []map[string]any{
		{"role": "system", "content": "You are terse."},
		{"role": "user", "content": []map[string]string{{"type": "text", "text": "What is 99 * 99? Reply with the number only."}}},
	}})
	if text, finish, _ := streamText(t, ts.URL+"/v1/chat/completions", string(chat)); text != "9801" || finish != "stop" {
		t.Errorf("chat: %q %s", text, finish)
	}
	if text, _, events := streamText(t, ts.URL+"/v1/completions", completion("hello there", 5)); events != 5 || !strings.HasPrefix(text, " the quick") {
		t.Errorf("filler: %q, %d events", text, events)
	}
	// max_tokens shorter than the answer cuts it, as a real server would.
	if text, finish, _ := streamText(t, ts.URL+"/v1/completions", completion("What is 99 * 99?", 1)); text != "980" || finish != "length" {
		t.Errorf("cut answer: %q %s", text, finish)
	}
	var truth []sim.Truth
	for _, tr := range s.Truths() {
		if tr.Answer != "" {
			truth = append(truth, tr)
		}
	}
	if len(truth) != 42 || truth[0].WrongOnPurpose {
		t.Errorf("%d truth records with an answer: %+v", len(truth), truth[:1])
	}
}

// At a wrong-answer rate of 0.2, about a fifth of the questions are
// answered wrong, each by a small amount, and the truth log says which.
func TestWrongAnswerRate(t *testing.T) {
	cfg := fast
	cfg.WrongAnswerRate = 0.2
	cfg.Seed = 7
	s, ts := start(t, cfg)
	items := dataset.Arith(2, 400).Items
	wrong := 0
	for _, it := range items {
		right, _ := dataset.SolveArith(it.Prompt)
		text, _, _ := streamText(t, ts.URL+"/v1/completions", completion(it.Prompt, 16))
		got, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			t.Fatalf("%q: answer %q is not a number", it.Prompt, text)
		}
		if got != right {
			wrong++
			if d := got - right; d < -9 || d > 9 {
				t.Errorf("%q: %d is off by %d", it.Prompt, got, d)
			}
		}
		if it.Judge.Judge(text).Pass != (got == right) {
			t.Errorf("%q: judge and truth disagree on %q", it.Prompt, text)
		}
	}
	marked := 0
	for _, tr := range s.Truths() {
		if tr.WrongOnPurpose {
			marked++
		}
	}
	if marked != wrong || wrong < 50 || wrong > 110 {
		t.Errorf("%d of %d answers wrong, %d marked in the truth log; want about 80", wrong, len(items), marked)
	}
}

// Under overload (every batch slot taken) the overload rate applies: with
// one slot and a slow step, a question that arrives while another request
// holds the slot is answered wrong; one sent to an idle server is answered
// right.
//
// The server decides an answer when the request arrives, from the queue
// and batch it sees then. The interleaving this test once lost to:
//
//	filler: headers flushed  →  client's Do returns
//	question: arrives, engine idle (filler not yet submitted) → right answer
//	filler: submitted, admitted behind the question
//
// so "the questions are queued" did not mean "they were decided under
// overload". The test now orders the events itself: it reads the filler's
// first token, which the engine only emits once the filler holds the slot,
// before it sends a question; the slot stays taken until the filler's
// client leaves, which is after all three questions are queued. Each
// question is then judged by the server's own truth log, which must agree
// with what the client received.
func TestWrongAnswersUnderOverload(t *testing.T) {
	cfg := sim.Config{MaxBatch: 1, DecodeStep: 5 * time.Millisecond, OverloadWrongAnswerRate: 1}
	s, ts := start(t, cfg)
	q := "What is 10 + 20? Reply with the number only."
	if text, _, _ := streamText(t, ts.URL+"/v1/completions", completion(q, 8)); text != "30" {
		t.Fatalf("idle server: %q", text)
	}
	// An endless filler answer takes the only slot: its first token proves it.
	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/v1/completions", strings.NewReader(completion("keep busy", 1<<20)))
	req.Header.Set("X-Request-Id", "filler")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("filler's first token: %q %v", line, err)
	}
	if st := s.Stats(); st.BatchSize != 1 || st.QueueDepth != 0 {
		t.Fatalf("filler running, want batch 1 and queue 0: %+v", st)
	}
	// Three questions queue behind it; only then does its client leave.
	var wg sync.WaitGroup
	answers := make([]string, 3)
	for i := range answers {
		wg.Go(func() {
			body := completion(q, 8)
			r, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/completions", strings.NewReader(body))
			r.Header.Set("X-Request-Id", "q"+strconv.Itoa(i))
			r.Header.Set("Content-Type", "application/json")
			answers[i] = streamRequest(t, r)
		})
	}
	for s.Stats().QueueDepth < len(answers) {
		time.Sleep(time.Millisecond)
	}
	leave()
	wg.Wait()
	for _, a := range answers {
		if a == "30" || a == "" {
			t.Errorf("answered right (or not at all) under overload: %q", answers)
		}
	}
	// The server's truth log says the same, for each question.
	truth := map[string]sim.Truth{}
	for deadline := time.Now().Add(10 * time.Second); len(truth) < len(answers) && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		for _, tr := range s.Truths() {
			if strings.HasPrefix(tr.ID, "q") {
				truth[tr.ID] = tr
			}
		}
	}
	for i, a := range answers {
		tr, ok := truth["q"+strconv.Itoa(i)]
		if !ok || !tr.WrongOnPurpose || tr.Answer != a {
			t.Errorf("question %d: client got %q, truth log %+v (found %v)", i, a, tr, ok)
		}
	}
}

// streamRequest sends a prepared streaming request and returns its text.
func streamRequest(t *testing.T, r *http.Request) string {
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Error(err)
		return ""
	}
	defer resp.Body.Close()
	var text strings.Builder
	for _, m := range readSSEStrict(t, resp.Body) {
		var c struct {
			Choices []struct {
				Text string `json:"text"`
			} `json:"choices"`
		}
		if m != "[DONE]" && json.Unmarshal([]byte(m), &c) == nil {
			for _, ch := range c.Choices {
				text.WriteString(ch.Text)
			}
		}
	}
	return text.String()
}
