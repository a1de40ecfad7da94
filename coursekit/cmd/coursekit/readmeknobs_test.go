package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// README's "Bench knobs an engineer reaches for" names flags of bench:
// every one of them is a flag bench defines (it listed --lang en, which
// bench does not take).
func TestReadmeBenchKnobsAreBenchFlags(t *testing.T) {
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "Bench knobs an engineer reaches for")
	if i < 0 {
		t.Fatal("README has no \"Bench knobs an engineer reaches for\"")
	}
	para, _, _ := strings.Cut(text[i:], "\n\n")
	flags := regexp.MustCompile("`(--[a-z0-9-]+)").FindAllStringSubmatch(para, -1)
	if len(flags) < 5 {
		t.Fatalf("only %d flags found in:\n%s", len(flags), para)
	}
	for _, f := range flags {
		if _, err := benchFlagsOf([]string{f[1]}); err != nil && strings.Contains(err.Error(), "not defined") {
			t.Errorf("README lists %s among bench's knobs, but bench has no such flag: %v", f[1], err)
		}
	}
}
