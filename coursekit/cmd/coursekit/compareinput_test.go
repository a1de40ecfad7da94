package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare's input errors say they are compare's: a missing file is
// "coursekit compare: …" (the walk saw a bare "coursekit: stat
// nope.jsonl: …"), and a card's JSON given as a trace is named a card
// (coursekit card --format json output), and compare's own JSON a
// comparison, not "not valid JSON".
func TestCompareNamesBadInputs(t *testing.T) {
	dir := t.TempDir()
	card := filepath.Join(dir, "card.json")
	code, out, errs := runCLI(t, "card", unitTrace, "--format", "json")
	if code != 0 {
		t.Fatalf("card: %s", errs)
	}
	if err := os.WriteFile(card, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	// compare's own JSON fed back as a trace is named a comparison.
	ab := filepath.Join(dir, "ab.json")
	code, out, errs = runCLI(t, "compare", unitTrace, unitTrace, "--format", "json")
	if code != 0 {
		t.Fatalf("compare: %s", errs)
	}
	if err := os.WriteFile(ab, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"compare", unitTrace, filepath.Join(dir, "nope.jsonl")}, []string{"coursekit compare: ", "nope.jsonl: no such file"}},
		{[]string{"compare", unitTrace, card}, []string{"coursekit compare: ", card, "looks like a card", "coursekit card --format json"}},
		{[]string{"compare", ab, unitTrace}, []string{"coursekit compare: ", ab, "looks like a comparison", "coursekit compare --format json"}},
		{[]string{"card", ab}, []string{ab, "looks like a comparison"}},
		// card and report read the trace through the same summary, and say the same.
		{[]string{"card", card}, []string{card, "looks like a card", "coursekit card --format json"}},
		{[]string{"report", card, "-o", filepath.Join(dir, "r.html")}, []string{card, "looks like a card"}},
	} {
		code, out, errs := runCLI(t, c.args...)
		for _, w := range c.want {
			if code != 2 || out != "" || !strings.Contains(errs, w) {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args[1:], code, errs, w)
			}
		}
		if strings.Contains(errs, "not valid JSON") {
			t.Errorf("%v: %q", c.args[1:], errs)
		}
	}
}
