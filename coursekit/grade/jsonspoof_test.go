package grade

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/report"
)

// spoofing are characters JSON may hold raw but a terminal or a viewer
// acts on: a C1 CSI, NEL, a right-to-left override and an isolate.
var spoofing = []string{"\u009b", "\u0085", "\u202e", "\u2066"}

// rawSpoofing names the first spoofing character b holds raw, or "".
func rawSpoofing(b []byte) string {
	for _, c := range spoofing {
		if bytes.Contains(b, []byte(c)) {
			return c
		}
	}
	return ""
}

// A learner's answers with C1 controls and bidi overrides: grades.json,
// results/NAME.json and Gradescope's results.json write them as \u escapes.
func TestGradeJSONEscapesSpoofingCharacters(t *testing.T) {
	f := newFixture(t, "alice")
	c := correctCard(t, f.variants["alice"])
	c.CounterEvidence += "\u009b2J\u0085\u202e\u2066"
	c.Clock = "client\u202e"
	nb := f.submitted(t, "alice", c)
	s := f.g.Grade("alice.ipynb", nb)
	out := t.TempDir()
	if err := report.Write(batch.NewBatch(f.roster, f.g.Points(), []*grader.Submission{s}), out); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"grades.json", filepath.Join("results", "alice.json")} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if c := rawSpoofing(b); c != "" {
			t.Errorf("%s holds %q raw", name, c)
		}
	}
	g, _ := gsGrader(t)
	for _, files := range []map[string][]byte{
		{"06-deliverable.ipynb": nb},
		{"06\u202e\u009b.ipynb": []byte("{")},      // the reason names the file
		{"a\u2066.ipynb": nb, "b\u0085.ipynb": nb}, // the reason lists both
	} {
		root := gsRoot(t, gsMeta("alice", ""), files)
		run, err := gradescope.RunGradescope(g, root)
		if err != nil {
			t.Fatal(err)
		}
		if c := rawSpoofing(run.Results); c != "" {
			t.Errorf("Gradescope's results.json holds %q raw:\n%s", c, run.Results)
		}
	}
}
