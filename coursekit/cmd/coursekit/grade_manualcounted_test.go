package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// One learner, two files: sub1/s03.ipynb (graded, an answer scored), then
// a newer sub2/s03.ipynb with a new answer, graded as the docs' late-file
// flow says (the previous inputs and the new folder). A typed score
// follows the file that counts: the score typed for the old answer is not
// applied to the new one and moves to previous_score with a note, as when
// a file is simply replaced; the score typed for the new answer counts in
// grades.csv, feedback/s03.md (the counted file's) and results/s03.json
// alike, with no warning about a changed answer. Graded twice.
func TestGradeCLIManualScoreFollowsCountedFile(t *testing.T) {
	c := newClassroom(t, "id,name\ns03,李华\ns12,郑强\n", map[string]*card.Card{
		"s03": {Clock: "client", CounterEvidence: "排队：有请求在首字前等待超时。"},
		"s12": {Clock: "client", CounterEvidence: "GPU 很忙。"},
	})
	sub1 := plainFolder(t, c, "sub1", map[string]string{"s03": "s03", "s12": "s12"})
	c.submit(t, "s03", &card.Card{Clock: "client", CounterEvidence: "重写：排队，首字前超时的请求说明用户在等。"})
	sub2 := plainFolder(t, c, "sub2", map[string]string{"s03": "s03"})
	out := filepath.Join(c.dir, "graded")
	manual := filepath.Join(out, "manual-review.csv")
	grade := func(in ...string) string {
		t.Helper()
		code, o, e := runCLI(t, append([]string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out}, in...)...)
		if code != 0 {
			t.Fatalf("grade %v: exit %d\n%s%s", in, code, o, e)
		}
		return e
	}
	grade(sub1)
	setScore(t, manual, "s03", "text.counter_evidence", "1")
	e := grade(sub1, sub2)
	if !strings.Contains(e, "changed since it was scored") {
		t.Errorf("no warning that the counted file's answer changed:\n%s", e)
	}
	m, col := manualByLearner(t, manual)
	if r := m["s03/text.counter_evidence"]; r == nil || r[col["score"]] != "" || r[col["previous_score"]] != "1" || !strings.Contains(r[col["note"]], "答案在评分之后改过") || !strings.Contains(r[col["text"]], "重写") {
		t.Errorf("the old score did not move to previous_score next to the new answer: %v", r)
	}
	agree(t, out, "s03", "")

	setScore(t, manual, "s03", "text.counter_evidence", "1.5")
	for run := 1; run <= 2; run++ {
		e := grade(sub1, sub2)
		if strings.Contains(e, "changed since it was scored") {
			t.Errorf("run %d: a warning compares the score with the file that does not count:\n%s", run, e)
		}
		agree(t, out, "s03", "1.5")
		m, col := manualByLearner(t, manual)
		if r := m["s03/text.counter_evidence"]; r == nil || r[col["score"]] != "1.5" {
			t.Errorf("run %d: manual-review.csv lost the score: %v", run, r)
		}
	}
}

// setScore types score into OUT's manual-review.csv for one learner and
// criterion.
func setScore(t *testing.T, path, id, crit, score string) {
	t.Helper()
	rows, col := csvRows(t, path)
	found := false
	for _, r := range rows[1:] {
		if r[col["id"]] == id && r[col["criterion"]] == crit {
			r[col["score"]], found = score, true
		}
	}
	if !found {
		t.Fatalf("no row %s %s in %s", id, crit, path)
	}
	writeCSV(t, path, rows)
}

// writeCSV writes rows as a CSV file (as a spreadsheet saves it: no BOM).
func writeCSV(t *testing.T, path string, rows [][]string) {
	t.Helper()
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	w.WriteAll(rows)
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// agree checks that grades.csv, results/ID.json and feedback/ID.md agree
// on learner id's text.counter_evidence: typed score want ("" pending),
// and on the total.
func agree(t *testing.T, out, id, want string) {
	t.Helper()
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	var row []string
	for _, r := range g[1:] {
		if r[gc["id"]] == id {
			row = r
		}
	}
	if row == nil || row[gc["text.counter_evidence"]] != want {
		t.Errorf("grades.csv: %s's text.counter_evidence %q, want %q", id, row[gc["text.counter_evidence"]], want)
	}
	var res struct {
		Score float64 `json:"score"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "results", id+".json"))
	json.Unmarshal(b, &res)
	if fmt.Sprint(res.Score) != row[gc["total"]] {
		t.Errorf("results/%s.json scores %v, grades.csv %s", id, res.Score, row[gc["total"]])
	}
	fb, _ := os.ReadFile(filepath.Join(out, "feedback", id+".md"))
	if typed := strings.Contains(string(fb), "老师已阅读评分："+want+"/2"); typed != (want != "") {
		t.Errorf("feedback/%s.md: typed score %q shown %v:\n%s", id, want, typed, fb)
	}
	if !strings.Contains(string(fb), "重写") {
		t.Errorf("feedback/%s.md is not the counted (newer) file's", id)
	}
}
