package main

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every duration flag of every command refuses a value that is not a
// duration with the hint card's --slo-ttft gives, not the flag package's
// bare "parse error" (issue 35: bench --duration abc).
func TestEveryDurationFlagHints(t *testing.T) {
	n := 0
	for _, d := range docs {
		fs := flagSetOf(d.name)
		if fs == nil {
			continue
		}
		fs.VisitAll(func(f *flag.Flag) {
			g, ok := f.Value.(flag.Getter)
			if !ok {
				return
			}
			if _, isDur := g.Get().(time.Duration); !isDur {
				return
			}
			n++
			code, _, errs := runCLI(t, d.name, "--"+f.Name, "abc")
			want := "coursekit " + d.name + `: invalid value "abc" for flag --` + f.Name + `: "abc" is not a duration (write 1s or 500ms)` + "\n"
			if code != 2 || !strings.HasPrefix(errs, want) {
				t.Errorf("%s --%s abc: exit %d, stderr %q\nwant exit 2 and %q", d.name, f.Name, code, errs, want)
			}
		})
	}
	if n < 10 { // bench, capacity, sim and grade have them
		t.Fatalf("found %d duration flags", n)
	}
	// A number flag keeps the flag package's own words.
	if _, _, errs := runCLI(t, "bench", "--rate", "x"); strings.Contains(errs, "duration") {
		t.Errorf("bench --rate x: %q", errs)
	}
}

// A command's errors all begin "coursekit CMD: ", as its flag errors, its
// missing files and its progress lines do: not "coursekit: CMD: " (an
// error that names its command) nor a bare "coursekit: FILE:…" (issue 35).
func TestErrorsNameTheirCommand(t *testing.T) {
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.jsonl")
	writeFile(t, cut, `{"trace":"llm-serving/v1","clock":"cl`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"card", "--lang", "fr", unitTrace}, `coursekit card: --lang: unknown language "fr"`},
		{[]string{"card", cut}, "coursekit card: " + cut + ":1: not valid JSON (truncated"},
		{[]string{"import", "--from", "aiperf", cut}, "coursekit import: " + cut + ":1: "},
		{[]string{"bench", "--duration", "1x"}, "coursekit bench: invalid value"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || !strings.HasPrefix(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q\nwant it to begin %q", c.args, code, errs, c.want)
		}
	}
	if _, _, errs := runCLI(t, "nosuch"); !strings.HasPrefix(errs, "coursekit: ") {
		t.Errorf("unknown command: %q", errs)
	}
}
