package metrics

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// A server that reports cached tokens in usage only (vLLM with prefix
// caching) still gets its cache counted; with llama.cpp's timings the
// server split counts it instead.
func TestPromptCacheFromUsage(t *testing.T) {
	tr := &trace.Trace{
		Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}},
		Attempts: []trace.Attempt{
			att("V1", 0, 100, `{"cached_tokens":0}`),
			att("V2", 100, 20, `{"cached_tokens":48}`),
			att("V3", 200, 20, `{"cached_tokens":16,"stream":{"role_only":1}}`),
			att("V4", 300, 100, ""), // not reported
			att("V5", 400, 100, `{"cached_tokens":-3}`),
			{ID: "F1", StartMS: 500, Outcome: trace.Timeout, EndMS: 3000, HasEnd: true, Meta: []byte(`{"cached_tokens":99}`)},
		},
	}
	s := Summarize(tr, Options{})
	if s.Server != nil {
		t.Fatalf("server split %+v without timings", s.Server)
	}
	if pc := s.PromptCache; pc == nil || *pc != (PromptCache{Reported: 3, Hits: 2, CachedTokens: 64}) {
		t.Errorf("prompt cache %+v, want 3 reported, 2 hits, 64 tokens", pc)
	}
	if s := Summarize(serverTrace(), Options{}); s.PromptCache != nil {
		t.Errorf("prompt cache %+v beside server timings", s.PromptCache)
	}
	tr.Attempts = tr.Attempts[3:4]
	if s := Summarize(tr, Options{}); s.PromptCache != nil {
		t.Errorf("prompt cache %+v when no attempt reported one", s.PromptCache)
	}
}
