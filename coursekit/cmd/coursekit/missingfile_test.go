package main

import (
	"path/filepath"
	"testing"
)

// A file that is not there: the error names the command and the file as
// given, "coursekit card: x.jsonl: no such file" (walk 35e saw
// "coursekit: stat nosuch.jsonl: no such file or directory"), exit 2.
func TestMissingFileErrorNamesCommandAndFile(t *testing.T) {
	dir := t.TempDir()
	nosuch := filepath.Join(dir, "nosuch.jsonl")
	for _, args := range [][]string{
		{"card", nosuch},
		{"report", nosuch, "-o", filepath.Join(dir, "r.html")},
		{"csv", nosuch},
		{"compare", unitTrace, nosuch},
		{"import", "--from", "aiperf", nosuch, "-o", filepath.Join(dir, "t.jsonl")},
	} {
		code, out, errs := runCLI(t, args...)
		if want := "coursekit " + args[0] + ": " + nosuch + ": no such file\n"; code != 2 || out != "" || errs != want {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", args, code, errs, want)
		}
	}
}
