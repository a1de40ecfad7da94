package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"reflect"

	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/trace"
)

// promptFlags are bench's --prompt-salt and --prompt-reuse.
type promptFlags struct {
	salt, reuse *string
}

func (p *promptFlags) register(fs *flag.FlagSet) {
	p.salt = fs.String("prompt-salt", "", "first word of every generated prompt, recorded as the header's meta.prompt_salt: give an earlier run's salt to send its prompts again (default: a fresh random salt per run, so that no run is served from an earlier run's prompt cache)")
	p.reuse = fs.String("prompt-reuse", "none", "what the generated prompts of the run share, recorded as conditions.prefix_reuse: none (the salt, then the request id), shared-prefix:N (the salt and N words, then the id) or same (one identical prompt)")
}

// apply puts the flags into cfg; set names the flags given.
func (p *promptFlags) apply(cfg *loadgen.Config, set map[string]bool) error {
	r, err := loadgen.ParsePromptReuse(*p.reuse)
	if err != nil {
		return usagef("bench: --prompt-reuse %v", err)
	}
	if cfg.Dataset != nil && (set["prompt-salt"] || r.Mode != loadgen.ReuseNone) {
		return usagef("bench: --prompt-salt and --prompt-reuse apply to generated prompts; --dataset prompts are sent as written")
	}
	if set["prompt-salt"] && *p.salt == "" {
		return usagef("bench: --prompt-salt is empty (leave it out for a fresh random salt)")
	}
	if err := loadgen.CheckPromptSalt(*p.salt); err != nil {
		return usagef("bench: --prompt-salt: %v", err)
	}
	cfg.PromptSalt, cfg.PromptReuse = *p.salt, r
	return nil
}

// warnRepeat warns when the trace about to be replaced at path was a run
// that sent the same prompts to the same server: the same prompt salt, or
// the same (unsalted) dataset. A prompt cache can then answer this run.
func warnRepeat(stderr io.Writer, path string, cfg loadgen.Config) {
	old, ok := readPromptHeader(path)
	if !ok || (old.URL != "" && loadgen.Endpoint(old.URL, "") != loadgen.Endpoint(cfg.URL, "")) {
		return
	}
	where := "against " + old.URL
	if old.URL == "" {
		where = "(its header names no URL, so it may have been this server)"
	}
	switch {
	case cfg.PromptSalt != "" && old.Salt == cfg.PromptSalt:
		fmt.Fprintf(stderr, "coursekit bench: warning: %s is a run with the same --prompt-salt %s %s: this run sends the same prompts again, so the server's prompt cache can answer them and TTFT measures the cache, not the prefill (leave --prompt-salt out for fresh prompts)\n",
			path, cfg.PromptSalt, where)
	case cfg.Dataset != nil && old.Dataset != nil && sameJSON(old.Dataset, cfg.Dataset.Conditions()):
		fmt.Fprintf(stderr, "coursekit bench: warning: %s is a run of the same dataset %s %s: dataset prompts are sent as written, so the server's prompt cache can answer this run's prompts and TTFT measures the cache (restart the server, or turn its prompt cache off, for a cold prefill)\n",
			path, cfg.Dataset.Name, where)
	}
}

// promptHeader is what warnRepeat reads of an earlier trace's header.
type promptHeader struct {
	Salt, URL string
	Dataset   any // conditions.dataset, decoded
}

// readPromptHeader reads the header line of the trace at path; ok is
// false when there is no such file or header.
func readPromptHeader(path string) (promptHeader, bool) {
	f, err := trace.OpenFile(path) // a FIFO given as --out is written, not read
	if err != nil {
		return promptHeader{}, false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 1<<16).ReadSlice('\n')
	if err != nil && err != io.EOF {
		return promptHeader{}, false
	}
	var h struct {
		Meta struct {
			Salt string `json:"prompt_salt"`
			URL  string `json:"url"`
		} `json:"meta"`
		Conditions json.RawMessage `json:"conditions"`
	}
	if json.Unmarshal(line, &h) != nil {
		return promptHeader{}, false
	}
	p := promptHeader{Salt: h.Meta.Salt, URL: h.Meta.URL}
	if c, err := (&trace.Header{Conditions: h.Conditions}).ReadConditions(); err == nil && c.Dataset != nil {
		json.Unmarshal(c.Dataset, &p.Dataset)
	}
	return p, true
}

// sameJSON compares a decoded JSON value with v as JSON would write it.
func sameJSON(decoded, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var w any
	return json.Unmarshal(b, &w) == nil && reflect.DeepEqual(decoded, w)
}

// saltLine tells how to send a run's prompts again.
func saltLine(stderr io.Writer, res *loadgen.Result, cfg loadgen.Config) {
	if res.PromptSalt == "" {
		return
	}
	fmt.Fprintf(stderr, "coursekit bench: prompts: salt %s, --prompt-reuse %s (header meta.prompt_salt; --prompt-salt %s sends the same prompts again)\n",
		res.PromptSalt, cfg.PromptReuse, res.PromptSalt)
}
