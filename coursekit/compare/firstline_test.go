package compare_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/compare"
)

// The third fresh walk: a trace whose first line is blank read
// "nl.jsonl:1: blank line: every line after the header must be one
// attempt", and an HTML chart given as a trace "not valid JSON". Each
// says what it is: the header missing, an HTML page.
func TestFirstLineSaysWhatTheFileIs(t *testing.T) {
	good := coursekit.Data("unit01/practice.jsonl")
	body, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	_, attempts, _ := strings.Cut(string(body), "\n")
	dir := t.TempDir()
	for _, c := range []struct{ name, content, want string }{
		{"nl.jsonl", "\n" + attempts, "nl.jsonl:1: blank first line: the header is missing"},
		{"chart.html", "<!DOCTYPE html>\n<html><body></body></html>\n", "chart.html:1: looks like an HTML page"},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, sides := range [][2]string{{p, good}, {good, p}} {
			_, err := compare.Files([]string{sides[0]}, []string{sides[1]}, compare.Options{Resamples: 100})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.want)
			}
		}
	}
}
