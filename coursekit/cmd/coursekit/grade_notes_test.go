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

// What the instructor types in a note cell is kept verbatim around
// grade's own note, whatever separates them: after it (" | 老师：…", a
// space, a new line, "。"), before it, or both; a note of grade's that
// no longer holds is removed and the typed text stays; one grade wrote
// before notes were closed (no end mark) is still found and replaced.
func TestGradeCLITypedNoteAroundGradeNote(t *testing.T) {
	same := "删掉失败的请求后只在成功请求里数失败，分母错了，应是全部十次尝试。"
	c := newClassroom(t, "id\nalice\nbob\ncarol\ndave\n", map[string]*card.Card{
		"alice": {DenominatorError: same}, "bob": {DenominatorError: same}, "carol": {DenominatorError: same}, "dave": {DenominatorError: same},
	})
	out := filepath.Join(c.dir, "graded")
	manual := filepath.Join(out, review.ManualFile)
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, c.sub}
	if code, o, e := runCLI(t, args...); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	m, col := manualByLearner(t, manual)
	note := m["alice/text.denominator"][col["note"]]
	if !strings.HasPrefix(note, review.GradeNoteMark) || !strings.HasSuffix(note, review.GradeNoteEnd) {
		t.Fatalf("premise: grade's note %q", note)
	}
	// An earlier coursekit's note: no end mark.
	legacy := strings.TrimSuffix(note, review.GradeNoteEnd)
	typed := map[string]string{
		"alice": legacy + " | 老师：面谈后判定独立完成",
		"bob":   legacy + "。老师：面谈后判定独立完成",
		"carol": "老师：先看这里\n" + note + "\n第二行也是我写的",
		"dave":  legacy + " 老师：已核对",
	}
	for id, v := range typed {
		setManual(t, manual, id, "text.denominator", "note", v)
	}
	want := func(id string) string {
		m, col := manualByLearner(t, manual)
		return m[id+"/text.denominator"][col["note"]]
	}
	for run := 1; run <= 2; run++ {
		if code, o, e := runCLI(t, args...); code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", run, code, o, e)
		}
		for id, tail := range map[string]string{"alice": " | 老师：面谈后判定独立完成", "bob": "。老师：面谈后判定独立完成", "dave": " 老师：已核对"} {
			if got := want(id); !strings.HasPrefix(got, review.GradeNoteMark) || !strings.HasSuffix(got, review.GradeNoteEnd+tail) || strings.Count(got, review.GradeNoteMark) != 1 {
				t.Errorf("run %d: %s's note %q, want grade's note then %q", run, id, got, tail)
			}
		}
		if got := want("carol"); !strings.HasPrefix(got, "老师：先看这里\n"+review.GradeNoteMark) || !strings.HasSuffix(got, review.GradeNoteEnd+"\n第二行也是我写的") || strings.Count(got, review.GradeNoteMark) != 1 {
			t.Errorf("run %d: carol's note %q", run, got)
		}
	}
	// Every answer now differs: grade's note goes, the typed text stays.
	for i, id := range []string{"alice", "bob", "carol", "dave"} {
		c.submit(t, id, &card.Card{DenominatorError: same + strings.Repeat("另", i+1)})
	}
	for run := 1; run <= 2; run++ {
		if code, o, e := runCLI(t, args...); code != 0 {
			t.Fatalf("resubmitted run %d: exit %d\n%s%s", run, code, o, e)
		}
		for id, w := range map[string]string{"alice": "老师：面谈后判定独立完成", "bob": "。老师：面谈后判定独立完成", "carol": "老师：先看这里\n\n第二行也是我写的", "dave": "老师：已核对"} {
			if got := want(id); got != w {
				t.Errorf("resubmitted run %d: %s's note %q, want %q", run, id, got, w)
			}
		}
	}
}
