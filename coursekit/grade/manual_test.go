package grade

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/report"
	"github.com/llmperf-course/course/coursekit/grade/review"
)

// gradedBatch grades alice (right card) and bob (typical mistakes) and
// writes the outputs to a temp dir; it returns the submissions and dir.
func gradedBatch(t *testing.T, f *fixture) ([]*grader.Submission, string) {
	t.Helper()
	subs := []*grader.Submission{
		f.g.Grade("alice.ipynb", f.submitted(t, "alice", correctCard(t, f.variants["alice"]))),
		f.g.Grade("bob.ipynb", f.submitted(t, "bob", mistakenCard(t, f.variants["bob"]))),
	}
	dir := t.TempDir()
	if err := report.Write(batch.NewBatch(f.roster, nil, subs), dir); err != nil {
		t.Fatal(err)
	}
	return subs, dir
}

// fillScores reads the manual-review file in dir, sets the score of each
// (learner, criterion) in scores, and returns the CSV.
func fillScores(t *testing.T, dir string, scores map[[2]string]string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, review.ManualFile))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	last := slices.Index(rows[0], "score")
	if last < 0 || rows[0][last-3] != "text_sha256" || rows[0][len(rows[0])-1] != "comment" {
		t.Fatalf("header %v", rows[0])
	}
	for _, r := range rows[1:] {
		if v, ok := scores[[2]string{r[0], r[1]}]; ok {
			r[last] = v
		}
	}
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	w.WriteAll(rows)
	return sb.String()
}

// A person's scores go into the total, grades.csv, results.json and the
// feedback; blank ones stay pending.
func TestManualScoresMergeBack(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	subs, dir := gradedBatch(t, f)
	alice0 := *subs[0]
	filled := fillScores(t, dir, map[[2]string]string{
		{"alice", "text.counter_evidence"}: "2",
		{"alice", "text.denominator"}:      "1.5",
		{"bob", "text.outputs"}:            "0",
	})
	ms, err := review.ReadManualCSV(strings.NewReader(filled), review.ManualFile, f.roster, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms.Rows) != 3 || ms.Blank != 6 {
		t.Fatalf("%d scored rows, %d blank", len(ms.Rows), ms.Blank)
	}
	// Grade again (the re-run) and merge.
	subs, _ = gradedBatch(t, f)
	if w := review.ApplyManual(subs, ms); len(w) != 0 {
		t.Fatalf("warnings: %v", w)
	}
	alice := subs[0]
	if alice.Total != alice0.Total+3.5 || alice.Pending != alice0.Pending-4 {
		t.Errorf("alice total %v pending %v; before %v, %v", alice.Total, alice.Pending, alice0.Total, alice0.Pending)
	}
	if x, _ := alice.Score("text.denominator"); x.Pending || x.Points != 1.5 || x.Status != "fail" || !strings.Contains(x.Message, "老师已阅读评分：1.5/2 分") {
		t.Errorf("text.denominator %+v", x)
	}
	if x, _ := alice.Score("text.counter_evidence"); x.Status != "pass" {
		t.Errorf("full marks: %+v", x)
	}
	if !strings.HasPrefix(alice.StatusLine, "得分 43.5/48 分（其中文字题由老师评 3.5 分）；") {
		t.Errorf("status line %q", alice.StatusLine)
	}

	out := t.TempDir()
	b := batch.NewBatch(f.roster, nil, subs)
	if err := report.Write(b, out); err != nil {
		t.Fatal(err)
	}
	grades, _ := csv.NewReader(strings.NewReader(read(t, out, "grades.csv"))).ReadAll()
	col := map[string]int{}
	for i, h := range grades[0] {
		col[h] = i
	}
	if r := grades[1]; r[col["total"]] != "43.5" || r[col["text.denominator"]] != "1.5" || r[col["text.counter_evidence"]] != "2" || r[col["text.outputs"]] != "" || r[col["pending"]] != "4" {
		t.Errorf("alice's row %v", r)
	}
	if r := grades[2]; r[col["text.outputs"]] != "0" {
		t.Errorf("bob's row %v", r)
	}
	var gs gradescope.GSResults
	json.Unmarshal([]byte(read(t, out, "results", "alice.json")), &gs)
	if *gs.Score != 43.5 {
		t.Errorf("results.json score %v", *gs.Score)
	}
	for _, x := range gs.Tests {
		if strings.Contains(x.Name, "[text.denominator]") && (x.Score == nil || *x.Score != 1.5 || *x.MaxScore != 2) {
			t.Errorf("results.json test %+v", x)
		}
	}
	if md := read(t, out, "feedback", "alice.md"); !strings.Contains(md, "| 1.5/2 |") || !strings.Contains(md, "老师已阅读评分") {
		t.Errorf("feedback:\n%s", md)
	}
	// The rewritten manual-review file keeps the scores and queues the rest.
	again := read(t, out, review.ManualFile)
	if !strings.Contains(again, ",1.5,\n") || len(report.ManualQueue(b)) != 6 {
		t.Errorf("manual-review.csv after merge (%d queued):\n%s", len(report.ManualQueue(b)), again)
	}
	if sum := read(t, out, "summary.md"); !strings.Contains(sum, "人工阅读队列（6 条") {
		t.Errorf("summary.md queue:\n%s", sum)
	}
}

// A score typed for an answer the learner has since changed is not
// applied: a warning, and the criterion stays pending. So is a score for a
// learner without a gradable submission.
func TestManualScoreForChangedAnswerStaysPending(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	_, dir := gradedBatch(t, f)
	filled := fillScores(t, dir, map[[2]string]string{{"alice", "text.counter_evidence"}: "2", {"bob", "text.outputs"}: "1"})
	ms, err := review.ReadManualCSV(strings.NewReader(filled), review.ManualFile, f.roster, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := correctCard(t, f.variants["alice"])
	c.CounterEvidence = "重新写过的答案：排队和超时说明用户在等待。"
	alice := f.g.Grade("alice.ipynb", f.submitted(t, "alice", c))
	before := *alice
	w := review.ApplyManual([]*grader.Submission{alice}, ms)
	if len(w) != 2 || !strings.Contains(w[0].Text, "changed since it was scored") || !strings.Contains(w[0].Text, review.ManualFile+":") || !strings.Contains(w[1].Text, "bob has no gradable submission") || !strings.Contains(w[1].Zh, "bob 在这批提交里没有可评分的笔记本") {
		t.Errorf("warnings %q", w)
	}
	if x, _ := alice.Score("text.counter_evidence"); !x.Pending || alice.Total != before.Total || alice.Pending != before.Pending {
		t.Errorf("applied anyway: %+v, total %v", x, alice.Total)
	}
	b := batch.NewBatch(f.roster, nil, []*grader.Submission{alice})
	b.Warnings = w
	if sm := report.Summarize(b).Markdown(); !strings.Contains(sm, "没有应用的人工评分") || !strings.Contains(sm, "评分之后改过") {
		t.Errorf("summary does not list the warnings:\n%s", sm)
	}
}

// Every problem in a filled-in file is reported with its line, before
// anything is graded.
func TestManualCSVErrors(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	head := "id,criterion,title,max,keyword_assist,keywords_found,text,text_sha256,score\n"
	sha := review.TextSHA("x")
	cases := []struct{ name, csv, want string }{
		{"not a learner id", head + "mal lory,text.outputs,t,2,0,,x," + sha + ",1\n", `manual-review.csv:2: learner id "mal lory"`},
		{"unknown criterion", head + "alice,text.poetry,t,2,0,,x," + sha + ",1\n", `manual-review.csv:2: criterion "text.poetry" is not a free-text criterion`},
		{"automatic criterion", head + "alice,figures.p95,t,2,0,,x," + sha + ",1\n", `criterion "figures.p95" is not a free-text criterion`},
		{"not a number", head + "alice,text.outputs,t,2,0,,x," + sha + ",one\n", `manual-review.csv:2: alice text.outputs: score "one" is not a number`},
		{"extra field", head + "alice,text.outputs,t,2,0,,x," + sha + ",1,5\n", "manual-review.csv:2: 10 fields, the header has 9"},
		{"comma decimal", head + "alice,text.outputs,t,2,0,,x," + sha + ",\"1,5\"\n", `score "1,5" is not a number`},
		{"NaN", head + "alice,text.outputs,t,2,0,,x," + sha + ",NaN\n", `score "NaN" is not a number`},
		{"negative", head + "alice,text.outputs,t,2,0,,x," + sha + ",-1\n", "score -1 is negative"},
		{"above max", head + "alice,text.outputs,t,2,0,,x," + sha + ",3\n", "score 3 is above the maximum 2"},
		{"above max of the rubric", head + "alice,stream.aggregation,t,5,0,,x," + sha + ",2\n", "score 2 is above the maximum 1"},
		{"duplicate", head + "alice,text.outputs,t,2,0,,x," + sha + ",1\nbob,text.outputs,t,2,0,,x," + sha + ",\nalice,text.outputs,t,2,0,,x," + sha + ",\n", "manual-review.csv:4: alice text.outputs appears twice (first on line 2)"},
		{"no hash on a scored row", head + "alice,text.outputs,t,2,0,,x,,1\n", "manual-review.csv:2: alice text.outputs: no text_sha256"},
		{"old file without the hash column", "id,criterion,title,max,keyword_assist,keywords_found,text,score\nalice,text.outputs,t,2,0,,x,1\n", "manual-review.csv:1: no text_sha256 column"},
		{"multi-line answer, error after it", head + "alice,text.outputs,t,2,0,,\"line 1\nline 2\"," + sha + ",1\nbob,text.outputs,t,2,0,,x," + sha + ",abc\n", "manual-review.csv:4: bob text.outputs: score \"abc\""},
		{"empty", "", "manual-review.csv: empty"},
		{"a column equal to score but for case", strings.TrimSuffix(head, "\n") + ",Score\nalice,text.outputs,t,2,0,,x," + sha + ",1,0\n", `manual-review.csv:1: columns "score" (column 9) and "Score" (column 10) differ only in case`},
		{"id twice", strings.TrimSuffix(head, "\n") + ",id\nalice,text.outputs,t,2,0,,x," + sha + ",1,bob\n", `manual-review.csv:1: column "id" appears twice (columns 1 and 10)`},
	}
	for _, c := range cases {
		_, err := review.ReadManualCSV(strings.NewReader(c.csv), review.ManualFile, f.roster, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// Two problems: both reported.
	_, err := review.ReadManualCSV(strings.NewReader(head+"alice,text.outputs,t,2,0,,x,"+sha+",9\nz d,text.outputs,t,2,0,,x,"+sha+",1\n"), review.ManualFile, f.roster, nil)
	if err == nil || !strings.Contains(err.Error(), ":2:") || !strings.Contains(err.Error(), ":3:") {
		t.Errorf("two problems: %v", err)
	}
	// Blank scores are fine: still pending.
	ms, err := review.ReadManualCSV(strings.NewReader(head+"alice,text.outputs,t,2,0,,x,"+sha+",\n"), review.ManualFile, f.roster, nil)
	if err != nil || len(ms.Rows) != 0 || ms.Blank != 1 {
		t.Errorf("blank: %+v, %v", ms, err)
	}
}

// A score typed for the answer in a learner's counted file is applied
// with no warning about their other file, which has no such answer (an
// older try with the question left blank): the warning said "score not
// applied" of a score that was applied.
func TestManualScoreNoWarningForTheOtherFile(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	_, dir := gradedBatch(t, f)
	filled := fillScores(t, dir, map[[2]string]string{{"alice", "text.counter_evidence"}: "2"})
	ms, err := review.ReadManualCSV(strings.NewReader(filled), review.ManualFile, f.roster, nil)
	if err != nil {
		t.Fatal(err)
	}
	blank := correctCard(t, f.variants["alice"])
	blank.CounterEvidence = ""
	subs := []*grader.Submission{
		f.g.Grade("alice.ipynb", f.submitted(t, "alice", correctCard(t, f.variants["alice"]))),
		f.g.Grade("alice/first-try.ipynb", checkedAt(t, f.submitted(t, "alice", blank), "2026-11-29T08:00:00Z")),
	}
	for _, w := range review.ApplyManual(subs, ms) {
		if strings.Contains(w.Text, "not applied") {
			t.Errorf("warning for a score that was applied: %s", w.Text)
		}
	}
	if x, _ := subs[0].Score("text.counter_evidence"); x.Pending || x.Points != 2 {
		t.Errorf("the score was not applied: %+v", x)
	}
}
