package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/llmperf-course/course/coursekit/trace"
)

// ServerSplit sets the client's TTFT beside the server's own timings, for
// the complete successes whose attempt carries them (meta.server_timings,
// llama.cpp's "timings" object exactly as the server sent it; vLLM and the
// simulator send none).
//
// The server's prompt_ms is a duration on the server's clock, TTFT one on
// the client's: durations from two clocks may be compared, timestamps may
// not be subtracted. TTFT − prompt_ms is what the client waited beyond the
// server's prefill: queueing for a slot, the HTTP path, the network.
//
// Timings that are not an object, lack prompt_ms or carry a value that is
// not a non-negative number are counted as bad and left out whole: never a
// guess, never a crash.
type ServerSplit struct {
	// WithTimings counts complete successes whose timings were used.
	WithTimings int64 `json:"with_timings"`
	// WithoutTimings counts complete successes with no server_timings.
	WithoutTimings int64 `json:"without_timings"`
	// Bad counts complete successes whose timings were unusable;
	// BadExamples names up to three ("attempt R7: prompt_ms is -3").
	Bad         int64    `json:"bad"`
	BadExamples []string `json:"bad_examples,omitempty"`
	// PromptMS is the server's prompt (prefill) time.
	PromptMS Dist `json:"server_prompt_ms"`
	// ClientOverPromptMS is TTFT − prompt_ms per attempt.
	ClientOverPromptMS Dist `json:"ttft_minus_prompt_ms"`
	// TTFTBelowPrompt counts attempts whose TTFT was shorter than the
	// server's prompt_ms, which cannot happen for one request on sound
	// clocks; they are left out of ClientOverPromptMS.
	TTFTBelowPrompt int64 `json:"ttft_below_prompt_ms"`
	// DecodePerTokenMS is the server's time per decode step, by
	// DecodeDefinition: predicted_ms / (predicted_n − 1), for attempts
	// that report both with predicted_n ≥ 2. llama.cpp starts predicted_ms
	// when it samples the first token, at the end of the prefill (that
	// token comes from the prompt's last batch), and stops it at the last
	// one: it spans predicted_n − 1 decode steps, the gaps a client sees
	// between the tokens' events. predicted_ms / predicted_n reads 1/n low
	// (4 % at 24 tokens, 25 % at 4).
	DecodePerTokenMS Dist `json:"server_decode_ms_per_token"`
	// DecodeDefinition is how DecodePerTokenMS is computed.
	DecodeDefinition string `json:"server_decode_definition"`
	// NoDecodeStep counts attempts with timings whose predicted_n < 2: one
	// token (or none) has no decode step to time, and is left out of
	// DecodePerTokenMS.
	NoDecodeStep int64 `json:"server_no_decode_step"`
	// CacheHits counts attempts with cache_n > 0: prompt tokens the server
	// reused from its prompt cache instead of computing them.
	CacheHits    int64 `json:"cache_hits"`
	CachedTokens int64 `json:"cached_tokens"`
	PromptTokens int64 `json:"prompt_tokens"` // prompt_n summed: the tokens the server did compute
}

// DecodeDefinition is the definition of ServerSplit.DecodePerTokenMS.
const DecodeDefinition = "predicted_ms / (predicted_n - 1)"

// maxBadExamples is how many bad timings a card names.
const maxBadExamples = 3

// serverAcc accumulates a ServerSplit.
type serverAcc struct {
	with, without, bad, below int64
	noStep                    int64 // timings with predicted_n < 2
	hits, cached, promptN     int64
	examples                  []string
	prompt, over, decode      samples
	cache                     cacheAcc // meta.cached_tokens, for servers without timings
}

var serverTimingsKey = []byte(`"server_timings"`)

// add counts one complete success with client TTFT ttft.
func (s *serverAcc) add(a *trace.Attempt, ttft float64) {
	s.cache.add(a)
	if !bytes.Contains(a.Meta, serverTimingsKey) {
		s.without++
		return
	}
	var m struct {
		ST json.RawMessage `json:"server_timings"`
	}
	if err := json.Unmarshal(a.Meta, &m); err != nil || len(m.ST) == 0 || string(m.ST) == "null" {
		s.without++
		return
	}
	t, err := parseTimings(m.ST)
	if err != nil {
		s.bad++
		s.examples = append(s.examples, fmt.Sprintf("attempt %s: %v", a.ID, err))
		s.trimExamples()
		return
	}
	s.with++
	s.prompt.add(t.promptMS)
	if d := ttft - t.promptMS; d >= 0 {
		s.over.add(d)
	} else {
		s.below++
	}
	if t.predictedN >= 2 {
		s.decode.add(t.predictedMS / (t.predictedN - 1))
	} else {
		s.noStep++
	}
	if t.cacheN > 0 {
		s.hits++
		s.cached += int64(t.cacheN)
	}
	s.promptN += int64(t.promptN)
}

type timings struct {
	promptMS, predictedMS, predictedN, cacheN, promptN float64
}

// parseTimings reads the fields the split uses; the others are kept in the
// trace but not read.
func parseTimings(raw json.RawMessage) (timings, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return timings{}, fmt.Errorf("server_timings is not an object")
	}
	var t timings
	num := func(key string, dst *float64, required bool) error {
		v, ok := m[key]
		if !ok {
			if required {
				return fmt.Errorf("server_timings has no %s", key)
			}
			return nil
		}
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return fmt.Errorf("server_timings.%s is %s, not a number ≥ 0", key, shortRaw(v))
		}
		*dst = f
		return nil
	}
	for _, f := range []struct {
		key      string
		dst      *float64
		required bool
	}{{"prompt_ms", &t.promptMS, true}, {"predicted_ms", &t.predictedMS, false},
		{"predicted_n", &t.predictedN, false}, {"cache_n", &t.cacheN, false}, {"prompt_n", &t.promptN, false}} {
		if err := num(f.key, f.dst, f.required); err != nil {
			return timings{}, err
		}
	}
	_, hasMS := m["predicted_ms"]
	_, hasN := m["predicted_n"]
	if hasMS != hasN {
		return timings{}, fmt.Errorf("server_timings has only one of predicted_ms and predicted_n")
	}
	return t, nil
}

func shortRaw(v json.RawMessage) string {
	if len(v) > 24 {
		return string(v[:24]) + "…"
	}
	return string(v)
}

// trimExamples keeps the first examples in attempt order of their text, so
// that a card read in parallel names the same ones every time.
func (s *serverAcc) trimExamples() {
	if len(s.examples) > maxBadExamples {
		sort.Strings(s.examples)
		s.examples = s.examples[:maxBadExamples]
	}
}

func (s *serverAcc) merge(o *serverAcc) {
	s.with += o.with
	s.without += o.without
	s.bad += o.bad
	s.below += o.below
	s.noStep += o.noStep
	s.hits += o.hits
	s.cached += o.cached
	s.promptN += o.promptN
	s.cache.merge(&o.cache)
	s.examples = append(s.examples, o.examples...)
	sort.Strings(s.examples)
	s.trimExamples()
	s.prompt.merge(&o.prompt)
	s.over.merge(&o.over)
	s.decode.merge(&o.decode)
}

// split is the ServerSplit, or nil when no complete success carried
// timings, good or bad (the card then says nothing about a server side).
// Its distributions report the summary's chosen levels too (--percentiles),
// as the client's do, so that the rows set side by side show one set
// (walk 35j).
func (s *serverAcc) split(m Method, levels []float64) *ServerSplit {
	if s.with == 0 && s.bad == 0 {
		return nil
	}
	sort.Strings(s.examples)
	return &ServerSplit{
		WithTimings: s.with, WithoutTimings: s.without, Bad: s.bad, BadExamples: s.examples,
		PromptMS:           s.prompt.distAt(m, UnitMS, levels),
		ClientOverPromptMS: s.over.distAt(m, UnitMS, levels),
		TTFTBelowPrompt:    s.below,
		DecodePerTokenMS:   s.decode.distAt(m, UnitMSPerToken, levels),
		DecodeDefinition:   DecodeDefinition,
		NoDecodeStep:       s.noStep,
		CacheHits:          s.hits, CachedTokens: s.cached, PromptTokens: s.promptN,
	}
}
