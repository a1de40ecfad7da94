package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmperf-course/course/coursekit/loadgen"
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
// with the same prompt salt against the same server: this run then sends
// the same prompts again, and a prompt cache can answer them.
func warnRepeat(stderr io.Writer, path string, cfg loadgen.Config) {
	if cfg.PromptSalt == "" {
		return
	}
	salt, url, ok := traceSalt(path)
	if !ok || salt != cfg.PromptSalt || (url != "" && serverBase(url) != serverBase(cfg.URL)) {
		return
	}
	where := "against " + url
	if url == "" {
		where = "(its header names no URL, so it may have been this server)"
	}
	fmt.Fprintf(stderr, "coursekit bench: warning: %s is a run with the same --prompt-salt %s %s: this run sends the same prompts again, so the server's prompt cache can answer them and TTFT measures the cache, not the prefill (leave --prompt-salt out for fresh prompts)\n",
		path, cfg.PromptSalt, where)
}

// traceSalt reads meta.prompt_salt and meta.url from the header line of
// the trace at path; ok is false when there is no such file or header.
func traceSalt(path string) (salt, url string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 1<<16).ReadSlice('\n')
	if err != nil && err != io.EOF {
		return "", "", false
	}
	var h struct {
		Meta struct {
			Salt string `json:"prompt_salt"`
			URL  string `json:"url"`
		} `json:"meta"`
	}
	if json.Unmarshal(line, &h) != nil || h.Meta.Salt == "" {
		return "", "", false
	}
	return h.Meta.Salt, h.Meta.URL, true
}

// serverBase is a base URL without a trailing / or /v1, as bench takes it.
func serverBase(u string) string {
	return strings.TrimSuffix(strings.TrimRight(u, "/"), "/v1")
}

// saltLine tells how to send a run's prompts again.
func saltLine(stderr io.Writer, res *loadgen.Result, cfg loadgen.Config) {
	if res.PromptSalt == "" {
		return
	}
	fmt.Fprintf(stderr, "coursekit bench: prompts: salt %s, --prompt-reuse %s (header meta.prompt_salt; --prompt-salt %s sends the same prompts again)\n",
		res.PromptSalt, cfg.PromptReuse, res.PromptSalt)
}
