package metrics

import (
	"bytes"
	"encoding/json"

	"github.com/llmperf-course/course/coursekit/trace"
)

// PromptCache is what the server said about its prompt cache, from the
// attempts' meta.cached_tokens (OpenAI-style usage.prompt_tokens_details.
// cached_tokens, e.g. vLLM with prefix caching), over complete successes.
// A card shows it when no attempt carried server timings: with llama.cpp's
// timings the ServerSplit already counts cache_n.
type PromptCache struct {
	// Reported counts complete successes whose server reported cached
	// tokens (0 included); Hits those with more than 0.
	Reported     int64 `json:"reported"`
	Hits         int64 `json:"hits"`
	CachedTokens int64 `json:"cached_tokens"`
}

var cachedTokensKey = []byte(`"cached_tokens"`)

// cacheAcc accumulates a PromptCache.
type cacheAcc struct{ reported, hits, cached int64 }

func (c *cacheAcc) add(a *trace.Attempt) {
	if !bytes.Contains(a.Meta, cachedTokensKey) {
		return
	}
	var m struct {
		Cached *int64 `json:"cached_tokens"`
	}
	if json.Unmarshal(a.Meta, &m) != nil || m.Cached == nil || *m.Cached < 0 {
		return
	}
	c.reported++
	if *m.Cached > 0 {
		c.hits++
		c.cached += *m.Cached
	}
}

func (c *cacheAcc) merge(o *cacheAcc) {
	c.reported += o.reported
	c.hits += o.hits
	c.cached += o.cached
}

// promptCache is the PromptCache when some attempt reported cached tokens
// and none carried server timings (which the ServerSplit covers); else nil.
func (s *serverAcc) promptCache() *PromptCache {
	if s.with > 0 || s.bad > 0 || s.cache.reported == 0 {
		return nil
	}
	return &PromptCache{Reported: s.cache.reported, Hits: s.cache.hits, CachedTokens: s.cache.cached}
}
