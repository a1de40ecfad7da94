package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// An edit to a file grade wrote (a line added to feedback/alice.md, a
// score typed into grades.csv) survives any number of re-grades: the run
// after the edit writes the file anew and keeps the edited version in
// OUT/edited/ (named in the warning), which no run writes or deletes,
// while OUT.bak-N rotates after 5. A second edit of the same file is kept
// beside the first.
func TestGradeCLIEditedOutputsOutliveBackups(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。"}, "bob": {CounterEvidence: "GPU 很忙。"},
	})
	out := filepath.Join(c.dir, "graded")
	grade := func() string {
		t.Helper()
		code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, c.sub)
		if code != 0 {
			t.Fatalf("grade: exit %d\n%s%s", code, o, e)
		}
		return e
	}
	appendTo := func(rel, text string) {
		p := filepath.Join(out, rel)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, append(b, text...), 0o644)
	}
	grade()
	appendTo("feedback/alice.md", "\n老师补充：做得好。\n")
	appendTo("grades.csv", "alice,typed here,99\n")
	e := grade()
	for _, f := range []string{"feedback/alice.md", "grades.csv"} {
		kept := filepath.Join(out, "edited", filepath.FromSlash(f))
		if !strings.Contains(e, kept) {
			t.Errorf("the warning does not name %s:\n%s", kept, e)
		}
	}
	appendTo("feedback/alice.md", "\n第二次补充。\n")
	if e := grade(); !strings.Contains(e, filepath.Join(out, "edited", "feedback", "alice.edit-2.md")) {
		t.Errorf("the second edit is not kept beside the first:\n%s", e)
	}
	for i := 0; i < 6; i++ {
		if e := grade(); strings.Contains(e, "was changed after grade wrote it") {
			t.Errorf("re-grade %d warns again about an edit that is kept:\n%s", i, e)
		}
	}
	if _, err := os.Stat(out + ".bak-2"); err == nil {
		t.Fatalf("premise: the backups holding the edits were rotated away, but %s.bak-2 is there", out)
	}
	for f, want := range map[string]string{"feedback/alice.md": "老师补充", "feedback/alice.edit-2.md": "第二次补充", "grades.csv": "typed here"} {
		b, err := os.ReadFile(filepath.Join(out, "edited", filepath.FromSlash(f)))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("edited/%s after 8 re-grades: %v %.100q", f, err, b)
		}
	}
}
