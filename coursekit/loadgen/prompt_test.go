package loadgen_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/sim"
	"github.com/llmperf-course/course/coursekit/trace"
)

// promptRecorder is the simulator behind a handler that keeps the prompt
// of every request it is sent (completions or chat).
type promptRecorder struct {
	mu      sync.Mutex
	prompts []string
}

func startRecorder(t *testing.T) (*promptRecorder, string) {
	t.Helper()
	s := sim.New(fast)
	rec := &promptRecorder{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			var req struct {
				Prompt   string `json:"prompt"`
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(b, &req); err != nil {
				t.Errorf("request body %q: %v", b, err)
			}
			p := req.Prompt
			if len(req.Messages) > 0 {
				p = req.Messages[0].Content
			}
			rec.mu.Lock()
			rec.prompts = append(rec.prompts, p)
			rec.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); ts.Close() })
	return rec, ts.URL
}

func (p *promptRecorder) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.prompts
	p.prompts = nil
	return out
}

// headerFields are the header's prompt_salt and conditions.prefix_reuse.
func headerFields(t *testing.T, tr *trace.Trace) (salt string, reuse any, words int) {
	t.Helper()
	var meta struct {
		Salt string `json:"prompt_salt"`
	}
	var cond struct {
		Reuse any `json:"prefix_reuse"`
		Words int `json:"prompt_tokens"`
	}
	if err := json.Unmarshal(tr.Header.Meta, &meta); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(tr.Header.Conditions, &cond); err != nil {
		t.Fatal(err)
	}
	return meta.Salt, cond.Reuse, cond.Words
}

func promptRun(t *testing.T, url string, cfg loadgen.Config) *trace.Trace {
	t.Helper()
	cfg.URL, cfg.Model, cfg.NumRequests, cfg.Duration = url, "m", 6, time.Minute
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 2
	}
	_, tr, _ := run(t, context.Background(), cfg)
	if len(tr.Attempts) != 6 {
		t.Fatalf("%d attempts, want 6", len(tr.Attempts))
	}
	return tr
}

// The same command twice sends different prompts: each run's salt is
// fresh and the header records it; each prompt starts with a key made
// from it and the request id, so that no two prompts share a first word
// (a prefix cache cannot reuse past it).
func TestFreshPromptsPerRun(t *testing.T) {
	rec, url := startRecorder(t)
	var salts []string
	var firsts []string
	for range 2 {
		tr := promptRun(t, url, loadgen.Config{PromptTokens: 8})
		salt, reuse, words := headerFields(t, tr)
		if salt == "" {
			t.Fatal("no meta.prompt_salt in the header")
		}
		if reuse != "none" || words != 8 {
			t.Errorf("prefix_reuse %v, prompt_tokens %d; want none, 8", reuse, words)
		}
		ps := rec.take()
		if len(ps) != 6 {
			t.Fatalf("server saw %d prompts, want 6", len(ps))
		}
		for _, p := range ps {
			f := strings.Fields(p)
			if len(f) != 8 || !strings.HasPrefix(f[1], "q") || f[0] != loadgen.PromptKey(salt, f[1]) || len(f[0]) != 8 {
				t.Errorf("prompt %q: want 8 words, the request's key from the salt %s first, then the request id", p, salt)
			}
			if p != strings.Join(f, " ") {
				t.Errorf("prompt %q is not single-space words", p)
			}
		}
		if n := sharedWords(ps); n != 0 {
			t.Errorf("the requests of a run share %d leading words: %q", n, ps)
		}
		salts, firsts = append(salts, salt), append(firsts, ps[0])
	}
	if salts[0] == salts[1] || strings.Fields(firsts[0])[0] == strings.Fields(firsts[1])[0] {
		t.Errorf("two runs started their prompts alike: salts %q, first prompts %q", salts, firsts)
	}
}

// A given salt repeats a run's prompts exactly.
func TestGivenSaltRepeatsPrompts(t *testing.T) {
	t.Parallel()
	rec, url := startRecorder(t)
	cfg := loadgen.Config{PromptTokens: 5, PromptSalt: "abc-1", Concurrency: 1}
	var runs [][]string
	for range 2 {
		tr := promptRun(t, url, cfg)
		if salt, _, _ := headerFields(t, tr); salt != "abc-1" {
			t.Errorf("header salt %q, want abc-1", salt)
		}
		runs = append(runs, rec.take())
	}
	want := loadgen.PromptKey("abc-1", "q0") + " q0 hello hello hello"
	if !slices.Contains(runs[0], want) {
		t.Errorf("no prompt %q in %q", want, runs[0])
	}
	slices.Sort(runs[0])
	slices.Sort(runs[1])
	if !slices.Equal(runs[0], runs[1]) {
		t.Errorf("same salt, different prompts:\n%q\n%q", runs[0], runs[1])
	}
}

// shared-prefix:N: every request shares the salt and exactly N words,
// then differs at its id; same: every request sends one prompt.
func TestPromptReuseModes(t *testing.T) {
	t.Parallel()
	rec, url := startRecorder(t)
	for _, api := range []string{"completions", "chat"} {
		tr := promptRun(t, url, loadgen.Config{API: api, PromptTokens: 10, PromptReuse: loadgen.PromptReuse{Mode: "shared-prefix", SharedWords: 4}})
		salt, reuse, words := headerFields(t, tr)
		m, _ := reuse.(map[string]any)
		if m["mode"] != "shared-prefix" || m["shared_words"] != 4.0 || words != 10 {
			t.Errorf("%s: prefix_reuse %v, prompt_tokens %d", api, reuse, words)
		}
		ps := rec.take()
		for _, p := range ps {
			f := strings.Fields(p)
			if len(f) != 10 || f[0] != salt {
				t.Errorf("%s: prompt %q: want 10 words from the salt %s", api, p, salt)
			}
		}
		if n := sharedWords(ps); n != 1+4 {
			t.Errorf("%s: the prompts share %d leading words, want the salt and 4: %q", api, n, ps)
		}

		tr = promptRun(t, url, loadgen.Config{API: api, PromptTokens: 7, PromptReuse: loadgen.PromptReuse{Mode: "same"}})
		salt, reuse, _ = headerFields(t, tr)
		if m, _ := reuse.(map[string]any); m["mode"] != "same" {
			t.Errorf("%s: prefix_reuse %v, want mode same", api, reuse)
		}
		ps = rec.take()
		for _, p := range ps {
			if p != ps[0] || len(strings.Fields(p)) != 7 || !strings.HasPrefix(p, salt+" ") {
				t.Errorf("%s: same: prompt %q, first %q, salt %s", api, p, ps[0], salt)
			}
		}
	}
}

// sharedWords is how many leading words all prompts have in common.
func sharedWords(ps []string) int {
	first := strings.Fields(ps[0])
	n := len(first)
	for _, p := range ps[1:] {
		f := strings.Fields(p)
		i := 0
		for i < min(n, len(f)) && f[i] == first[i] {
			i++
		}
		n = i
	}
	return n
}

// A dataset's prompts go as written: no salt, and the header says so.
func TestDatasetPromptsNotSalted(t *testing.T) {
	rec, url := startRecorder(t)
	set := &dataset.Set{Name: "two", Items: []dataset.Item{{Prompt: "What is 1+1?", Ref: "two:1"}, {Prompt: "Name a colour.", Ref: "two:2"}}}
	tr := promptRun(t, url, loadgen.Config{Dataset: set})
	salt, reuse, _ := headerFields(t, tr)
	if m, _ := reuse.(map[string]any); salt != "" || m["mode"] != "dataset" || m["salted"] != false {
		t.Errorf("salt %q, prefix_reuse %v", salt, reuse)
	}
	for _, p := range rec.take() {
		if p != "What is 1+1?" && p != "Name a colour." {
			t.Errorf("dataset prompt sent as %q", p)
		}
	}
}

func TestPromptReuseErrors(t *testing.T) {
	for _, s := range []string{"shared", "shared-prefix:", "shared-prefix:0", "shared-prefix:-2", "shared-prefix:x", "some", "Same"} {
		if _, err := loadgen.ParsePromptReuse(s); err == nil {
			t.Errorf("ParsePromptReuse(%q) accepted", s)
		}
	}
	for s, want := range map[string]loadgen.PromptReuse{"none": {Mode: "none"}, "same": {Mode: "same"}, "shared-prefix:12": {Mode: "shared-prefix", SharedWords: 12}} {
		if got, err := loadgen.ParsePromptReuse(s); err != nil || got != want || got.String() != s {
			t.Errorf("ParsePromptReuse(%q) = %v, %v", s, got, err)
		}
	}
	base := loadgen.Config{URL: "http://127.0.0.1:1", Rate: 1, Duration: time.Second}
	set := &dataset.Set{Name: "one", Items: []dataset.Item{{Prompt: "hi"}}}
	for name, c := range map[string]loadgen.Config{
		"salt with a space":       {PromptSalt: "a b"},
		"salt with a quote":       {PromptSalt: `a"b`},
		"long salt":               {PromptSalt: strings.Repeat("a", 65)},
		"shared prefix too long":  {PromptTokens: 5, PromptReuse: loadgen.PromptReuse{Mode: "shared-prefix", SharedWords: 4}},
		"shared > default length": {PromptReuse: loadgen.PromptReuse{Mode: "shared-prefix", SharedWords: 31}},
		"unknown mode":            {PromptReuse: loadgen.PromptReuse{Mode: "some"}},
		"salt with a dataset":     {PromptSalt: "x", Dataset: set},
		"reuse with a dataset":    {PromptReuse: loadgen.PromptReuse{Mode: "same"}, Dataset: set},
	} {
		c.URL, c.Rate, c.Duration = base.URL, base.Rate, base.Duration
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestPromptKey(t *testing.T) {
	// The key is the first 4 bytes of SHA-256("salt/id") in hex.
	k := loadgen.PromptKey("s", "q0")
	if len(k) != 8 || k == loadgen.PromptKey("s", "q1") || k == loadgen.PromptKey("t", "q0") || k != loadgen.PromptKey("s", "q0") {
		t.Errorf("keys %s %s %s", k, loadgen.PromptKey("s", "q1"), loadgen.PromptKey("t", "q0"))
	}
	sum := sha256.Sum256([]byte("s/q0"))
	if want := hex.EncodeToString(sum[:4]); k != want {
		t.Errorf("PromptKey(s, q0) = %s, want %s", k, want)
	}
}
