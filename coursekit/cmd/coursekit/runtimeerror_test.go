package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hint to read the command's help follows a usage error only (a flag or
// an argument as typed). A run stopped by what it found (a server that does
// not answer, a file that is not what it should be, a folder that is not
// there) keeps its exit code 2 and its message, which says what to do,
// without "Run 'coursekit help CMD' for usage." (walk: capacity's
// pre-flight printed it; bench's did not).
func TestRuntimeErrorsDoNotPointAtTheHelp(t *testing.T) {
	dir := t.TempDir()
	html := webPage(t)
	missing := filepath.Join(dir, "nosuch", "x")
	notJSON := filepath.Join(dir, "prev.json")
	if err := os.WriteFile(notJSON, []byte("<html></html>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "course.key")
	if code, _, errs := runCLI(t, "key", "new", key); code != 0 {
		t.Fatalf("key new: exit %d, %s", code, errs)
	}
	empty := t.TempDir()
	t.Setenv("COURSEKIT_TEST_UNSET_KEY", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"capacity", "--url", html.URL, "--slo-e2e", "5s", "--out", filepath.Join(dir, "s1")}, "pre-flight:"},
		{[]string{"capacity", "--url", html.URL, "--slo-e2e", "5s", "--out", filepath.Join(dir, "s2"), "--previous", notJSON}, "not a capacity search's JSON"},
		{[]string{"capacity", "--url", html.URL, "--slo-e2e", "5s", "--out", filepath.Join(dir, "s3"), "--chart", missing}, "--chart: "},
		{[]string{"bench", "--url", html.URL, "--rate", "1", "--duration", "1s", "--api-key-env", "COURSEKIT_TEST_UNSET_KEY"}, "the variable is empty or unset"},
		{[]string{"report", unitTrace, "-o", missing}, "report: -o: "},
		{[]string{"compare", unitTrace, unitTrace, "--chart", missing}, "compare: --chart: "},
		{[]string{"key", "new", key}, "already exists"},
		{[]string{"collect", "--dirs", empty, "--out", filepath.Join(dir, "c")}, "no learner volume or directory matches"},
		{[]string{"collect", "--dirs", missing, "--out", filepath.Join(dir, "c")}, "collect: "},
		{[]string{"assign", "--roster", notJSON, "--key-file", missing, "--out", filepath.Join(dir, "a")}, "assign: "},
		{[]string{"grade", "--roster", notJSON, "--key-file", missing, "--out", filepath.Join(dir, "g"), empty}, "grade: "},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "coursekit help") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2, %q and no pointer to the help", c.args, code, errs, c.want)
		}
	}
	// A usage error still points at the help.
	for _, args := range [][]string{
		{"card"},
		{"capacity", "--url", "ftp://x", "--out", filepath.Join(dir, "s4")},
		{"report", unitTrace, "-o", unitTrace},
		{"grade", "--roster", notJSON},
	} {
		if code, _, errs := runCLI(t, args...); code != 2 || !strings.Contains(errs, "Run 'coursekit help "+args[0]+"' for usage.") {
			t.Errorf("%v: exit %d, stderr %q; want the usage hint", args, code, errs)
		}
	}
}
