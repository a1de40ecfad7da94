package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fifth engineer walk's command-line findings: every one is bad input,
// exit 2, with a message that names what is wrong.
func TestCompareRefusesWhatTheWalkFound(t *testing.T) {
	dir := t.TempDir()
	g := genTraces(t, "2", "3", "4")
	header, err := os.ReadFile(unitTrace)
	if err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "header-only.jsonl")
	if err := os.WriteFile(empty, []byte(strings.SplitAfter(string(header), "\n")[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	withStdin(t, header)
	for _, c := range []struct {
		args []string
		want string
	}{
		// A run that measured nothing is refused, naming it (not a run of
		// zero throughput).
		{[]string{g[0], empty}, empty + ": no attempt in the measured window"},
		{[]string{g[0], g[1], "--", empty}, empty + ": no attempt"},
		// A second -- is no third side.
		{[]string{g[0], "--", g[1], "--", g[2]}, "a second --"},
		// A folder or a device is no trace.
		{[]string{g[0], dir}, dir},
		{[]string{g[0], os.DevNull}, os.DevNull},
		// Standard input once a run.
		{[]string{"-", "-"}, "standard input (-) given twice"},
		// A run on both sides, but not the same runs on both.
		{[]string{g[0], g[1], "--", g[0], g[2]}, "on both sides"},
	} {
		code, out, errs := runCLI(t, append([]string{"compare"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errs, c.want)
		}
	}
	// The same runs on both sides are the A/A check, as one run a side is.
	if code, _, errs := runCLI(t, "compare", g[0], g[1], "--", g[1], g[0], "--format", "json"); code != 0 {
		t.Errorf("the A/A check with two runs a side: exit %d, %s", code, errs)
	}
}
