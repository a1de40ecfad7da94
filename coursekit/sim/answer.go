package sim

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/dataset"
)

// answer is what the simulator says to a prompt holding an arith question
// (coursekit bench --dataset arith): the right number, or a wrong one at
// the configured rates, drawn from the seeded generator. The number is
// split into tokens of at most three digits, as BPE tokenizers split
// numbers, and streamed like any answer. ok is false for any other prompt,
// which gets the usual filler words.
//
// A wrong answer is off by 1 to 9, about as long as the right one, so the
// load, the busy gauge and the TTFT hardly change with the wrong-answer
// rate: only the quality does.
func (s *Server) answer(prompt string) (tokens []string, wrong, ok bool) {
	right, ok := dataset.SolveArith(prompt)
	if !ok {
		return nil, false, false
	}
	rate := s.cfg.WrongAnswerRate
	if e := s.exec; s.cfg.OverloadWrongAnswerRate > rate && (e.queueLen.Load() > 0 || e.batchLen.Load() >= int64(s.cfg.MaxBatch)) {
		rate = s.cfg.OverloadWrongAnswerRate // every batch slot taken: overloaded
	}
	v := right
	if u, n := s.draw(1, 18); u < rate {
		wrong = true
		if n <= 9 {
			v += int64(n)
		} else {
			v -= int64(n - 9)
		}
	}
	return numberTokens(v), wrong, true
}

// numberTokens splits a decimal number into a sign and groups of up to
// three digits from the left: 12345 → "123", "45".
func numberTokens(v int64) []string {
	s := strconv.FormatInt(v, 10)
	var t []string
	if s[0] == '-' {
		t, s = append(t, "-"), s[1:]
	}
	for len(s) > 3 {
		t, s = append(t, s[:3]), s[3:]
	}
	return append(t, s)
}

// promptText is the text a question would be found in: the completions
// prompt (a string, or a list whose first element is one), or the last
// user message of a chat.
func promptText(req *genRequest, chat bool) string {
	if chat {
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if m := req.Messages[i]; m.Role == "user" {
				return contentText(m.Content)
			}
		}
		return ""
	}
	return contentText(req.Prompt)
}

// contentText reads a string, a list of strings, or chat content parts
// ({"type":"text","text":…}).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return ""
	}
	var b strings.Builder
	for _, x := range list {
		var part struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(x, &s) == nil {
			b.WriteString(s)
		} else if json.Unmarshal(x, &part) == nil {
			b.WriteString(part.Text)
		}
	}
	return b.String()
}
