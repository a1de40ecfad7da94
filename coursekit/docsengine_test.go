package coursekit_test

import (
	"os"
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
