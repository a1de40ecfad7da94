package main

import (
	"path/filepath"
	"testing"
)

// An output or input in a folder that does not exist names that folder,
// not "no such file" for a file the command was about to create (issue 35:
// bench --out /nonexistent/x.jsonl). A missing file in a folder that
// exists is still "no such file".
func TestMissingFolderIsNamed(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "gone")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--rate", "1", "--duration", "1s", "--url", "http://127.0.0.1:1", "--out", filepath.Join(gone, "x.jsonl")},
			"coursekit bench: --out: " + filepath.Join(gone, "x.jsonl") + ": the folder " + gone + " does not exist\n"},
		{[]string{"gen", "-o", filepath.Join(gone, "x.jsonl")},
			"coursekit gen: " + filepath.Join(gone, "x.jsonl") + ": the folder " + gone + " does not exist\n"},
		{[]string{"report", unitTrace, "-o", filepath.Join(gone, "deeper", "r.html")},
			"coursekit report: -o: " + filepath.Join(gone, "deeper", "r.html") + ": the folder " + gone + " does not exist\n"},
		{[]string{"card", filepath.Join(gone, "x.jsonl")},
			"coursekit card: " + filepath.Join(gone, "x.jsonl") + ": the folder " + gone + " does not exist\n"},
		{[]string{"card", filepath.Join(dir, "x.jsonl")},
			"coursekit card: " + filepath.Join(dir, "x.jsonl") + ": no such file\n"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || errs != c.want {
			t.Errorf("%v: exit %d, stderr %q\nwant exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}
