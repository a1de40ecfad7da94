package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The line that says where --chart went is in the command's language
// (walk: "coursekit capacity: chart written to …" under zh).
func TestChartWrittenLineInTheCommandsLanguage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ lang, want string }{
		{"zh", "coursekit compare: 图已写到 "},
		{"en", "coursekit compare: chart written to "},
	} {
		page := filepath.Join(dir, c.lang+".html")
		code, _, errs := runCLI(t, "compare", "--lang", c.lang, "--resamples", "100", "--chart", page, unitTrace, unitTrace)
		if code != 0 || !strings.Contains(errs, c.want+page+"\n") {
			t.Errorf("--lang %s: exit %d, stderr %q; want %q", c.lang, code, errs, c.want+page)
		}
	}
}
