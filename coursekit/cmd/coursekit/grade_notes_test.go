package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/review"
)

// grade's own note in manual-review.csv is written once per run, never
// appended to itself ("…; no score was changed; no score was changed"),
// in Chinese like summary.md and class.html, marked as grade's. An
// earlier coursekit's English note is replaced; the instructor's own
// text in the note column is kept.
func TestGradeCLIOwnNoteDoesNotGrow(t *testing.T) {
	same := "删掉失败的请求后只在成功请求里数失败，分母错了，应是全部十次尝试。"
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{
		"alice": {DenominatorError: same}, "bob": {DenominatorError: same},
	})
	out := filepath.Join(c.dir, "graded")
	manual := filepath.Join(out, review.ManualFile)
	for run := 1; run <= 3; run++ {
		if code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, c.sub); code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", run, code, o, e)
		}
		m, col := manualByLearner(t, manual)
		note := m["alice/text.denominator"][col["note"]]
		if strings.Count(note, review.GradeNoteMark) != 1 || !strings.Contains(note, "与 bob 的答案相同") || strings.Contains(note, "no score") {
			t.Errorf("run %d: alice's note %q", run, note)
		}
		if run == 3 && !strings.Contains(note, "TA：已核对") {
			t.Errorf("run %d: the typed note is gone: %q", run, note)
		}
		if run == 1 {
			setManual(t, manual, "alice", "text.denominator", "note", "same answer as bob (whitespace ignored): check for a copy; no score was changed; no score was changed; TA：已核对")
		}
	}
}
