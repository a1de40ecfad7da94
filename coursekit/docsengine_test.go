package coursekit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The prompt-cache figures of docs/engineers.md are measured on the default
// engine, the one `make engine` starts (docker/engine.mk's ENGINE_THREADS
// and ENGINE_PARALLEL): a figure from another engine (2 slots) did not
// reproduce on it. The paragraph that says how they were measured names
// the default's threads and slots, sets neither knob, and names the target
// that measures them, whose script starts the engine with the same defaults.
func TestPromptCacheFiguresOnTheDefaultEngine(t *testing.T) {
	mk := readRepo(t, "docker/engine.mk")
	def := func(knob string) string {
		m := regexp.MustCompile(`(?m)^` + knob + `\s*\?=\s*(\d+)`).FindStringSubmatch(mk)
		if m == nil {
			t.Fatalf("docker/engine.mk sets no default %s", knob)
		}
		return m[1]
	}
	threads, slots := def("ENGINE_THREADS"), def("ENGINE_PARALLEL")
	doc := readRepo(t, "docs/engineers.md")
	i := strings.Index(doc, "### Prompt cache")
	if i < 0 {
		t.Fatal("docs/engineers.md has no prompt-cache section")
	}
	sec := doc[i:]
	if j := strings.Index(sec[4:], "\n### "); j >= 0 {
		sec = sec[:j+4]
	}
	k := strings.Index(sec, "\nMeasured against")
	if k < 0 {
		t.Fatal("the prompt-cache section does not say how its figures were measured")
	}
	how := sec[k+1:]
	how = how[:strings.Index(how, "\n\n")]
	plural := func(n, word string) string {
		if n == "1" {
			return n + " " + word
		}
		return n + " " + word + "s"
	}
	for _, want := range []string{"`make engine`", plural(threads, "thread"), plural(slots, "slot"), "`make bench-prompt-cache`"} {
		if !strings.Contains(strings.Join(strings.Fields(how), " "), want) {
			t.Errorf("the measurement paragraph lacks %q:\n%s", want, how)
		}
	}
	if strings.Contains(how, "ENGINE_PARALLEL=") || strings.Contains(how, "ENGINE_THREADS=") {
		t.Errorf("the figures were measured on an engine other than the default:\n%s", how)
	}
	script := readRepo(t, "coursekit/bench/promptcache/run.sh")
	for _, want := range []string{"${ENGINE_PARALLEL:-" + slots + "}", "${ENGINE_THREADS:-" + threads + "}"} {
		if !strings.Contains(script, want) {
			t.Errorf("coursekit/bench/promptcache/run.sh does not default to %s", want)
		}
	}
}

func readRepo(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile("../" + path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The prompt-cache table's "whole prompt cached" count is not on the card
// (its prefix-cache line counts any cached token): the docs say so and give
// the jq line that counts it from a trace, by the rule of the script that
// measured the table (complete successes with prompt_n ≤ 2; an attempt
// without server_timings is not counted). Where jq is installed, the line
// runs on a small trace.
func TestWholePromptCachedCountHasARecipe(t *testing.T) {
	doc := readRepo(t, "docs/engineers.md")
	i := strings.Index(doc, `"Whole prompt cached" counts`)
	if i < 0 {
		t.Fatal("docs/engineers.md no longer says what \"whole prompt cached\" counts")
	}
	para := doc[i:]
	para = para[:strings.Index(para, "\nRead the cache by that count")]
	m := regexp.MustCompile(`(?m)^    (jq .*prompt_n.*)$`).FindStringSubmatch(para)
	if m == nil {
		t.Fatalf("the docs do not say how to count whole-prompt hits (a jq line over the trace):\n%s", para)
	}
	line := m[1]
	for _, want := range []string{`.outcome == "ok"`, `(.meta.server_timings.prompt_n // 99) <= 2`} {
		if !strings.Contains(line, want) {
			t.Errorf("the jq line lacks %q: %s", want, line)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(para), " "), "card does not give this count") {
		t.Errorf("the docs do not say the card lacks the count:\n%s", para)
	}
	py := readRepo(t, "coursekit/bench/promptcache/table.py")
	for _, want := range []string{`a["outcome"] != "ok"`, `st.get("prompt_n", 99) <= 2`} {
		if !strings.Contains(py, want) {
			t.Errorf("table.py's rule changed (%q missing): the docs' jq line follows it", want)
		}
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Log("jq not installed: the line's text was checked, not run")
		return
	}
	tr := `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000}}
{"attempt":"a","start_ms":1,"outcome":"ok","end_ms":2,"meta":{"server_timings":{"cache_n":44,"prompt_n":1}}}
{"attempt":"b","start_ms":1,"outcome":"ok","end_ms":2,"meta":{"server_timings":{"cache_n":24,"prompt_n":45}}}
{"attempt":"c","start_ms":1,"outcome":"ok","end_ms":2}
{"attempt":"d","start_ms":1,"outcome":"stream_error","end_ms":2,"meta":{"server_timings":{"cache_n":44,"prompt_n":1}}}
`
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, []byte(tr), 0o644); err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(line, "jq "), " run.jsonl"))
	if len(args) < 2 || args[0] != "-n" {
		t.Fatalf("unexpected jq line: %s", line)
	}
	filter := strings.TrimSuffix(strings.TrimPrefix(strings.Join(args[1:], " "), "'"), "'")
	out, err := exec.Command(jq, "-n", filter, path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Errorf("the docs' jq line counts %q (err %v), want 1 (only attempt a)", out, err)
	}
}
