package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/review"
)

// A roster's name with ESC and U+202E (which reorders what a viewer shows
// after it) reaches neither grades.csv nor the Canvas import raw: both
// are escaped as every other text of a learner's is (safetext).
func TestGradeCSVRosterNamesEscaped(t *testing.T) {
	c := newClassroom(t, "id,name\nalice,\x1b[31mAl\u202eice\nbob,Bob\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。"}, "bob": {CounterEvidence: "GPU 很忙。"},
	})
	out := filepath.Join(c.dir, "graded")
	canvas := filepath.Join(c.dir, "canvas.csv")
	if code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, "--export", "canvas="+canvas, c.sub); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	for _, f := range []string{filepath.Join(out, "grades.csv"), canvas} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.ContainsAny(b, "\x1b\u202e") || !bytes.Contains(b, []byte("Al")) {
			t.Errorf("%s holds the roster's control codes raw (or no name):\n%q", f, b)
		}
	}
}

// A comment the instructor typed into manual-review.csv that a
// spreadsheet would run as a formula is written back as text ('=…).
func TestGradeManualCommentFormulaNeutralised(t *testing.T) {
	_, out, args := gradedClass(t)
	p := filepath.Join(out, review.ManualFile)
	b, _ := os.ReadFile(p)
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %v, %d rows", p, err, len(rows))
	}
	col := -1
	for i, h := range rows[0] {
		if strings.HasPrefix(h, "comment") {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no comment column in %q", rows[0])
	}
	const formula = `=HYPERLINK("http://127.0.0.1/x","看这里")`
	rows[1][col] = formula
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.WriteAll(rows)
	os.WriteFile(p, buf.Bytes(), 0o644)
	if code, o, e := runCLI(t, args...); code != 0 {
		t.Fatalf("grade again: exit %d\n%s%s", code, o, e)
	}
	b, _ = os.ReadFile(p)
	again, _ := csv.NewReader(bytes.NewReader(b)).ReadAll()
	found := false
	for _, r := range again {
		for _, cell := range r {
			if strings.Contains(cell, "HYPERLINK") {
				found = true
				if !strings.HasPrefix(cell, "'") {
					t.Errorf("the typed comment is written back as a formula: %q", cell)
				}
			}
		}
	}
	if !found {
		t.Errorf("the typed comment is lost:\n%s", b)
	}
}
