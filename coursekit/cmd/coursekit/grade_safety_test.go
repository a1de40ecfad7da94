package main

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/review"
)

// fillManual types score into every row of OUT/manual-review.csv whose
// learner is id, as an instructor does in a spreadsheet, and returns the
// number of rows filled.
func fillManual(t *testing.T, path, id, score string) int {
	t.Helper()
	rows, col := csvRows(t, path)
	n := 0
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	for i, r := range rows {
		if i > 0 && r[col["id"]] == id {
			r[col["score"]] = score
			n++
		}
		w.Write(r)
	}
	w.Flush()
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

// manualByLearner is OUT/manual-review.csv's rows keyed by
// learner/criterion.
func manualByLearner(t *testing.T, path string) (map[string][]string, map[string]int) {
	t.Helper()
	rows, col := csvRows(t, path)
	m := map[string][]string{}
	for _, r := range rows[1:] {
		m[r[col["id"]]+"/"+r[col["criterion"]]] = r
	}
	return m, col
}

// Grading again into the same OUT, without --manual, keeps every score a
// person typed into OUT/manual-review.csv; a score whose answer changed is
// kept next to the new answer for re-reading; a subset re-run replaces OUT
// as a whole (no stale feedback) and still keeps the typed scores of the
// learners it did not grade.
func TestGradeCLIRegradeKeepsManualScores(t *testing.T) {
	c := newClassroom(t, "id,name\nalice,A\nbob,B\ncarol,C\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。", DenominatorError: "分母应是全部尝试。"},
		"bob":   {CounterEvidence: "GPU 很忙，所以没问题。", DenominatorError: "删掉失败请求。"},
		"carol": {CounterEvidence: "队列很长。"},
	})
	out := filepath.Join(c.dir, "graded")
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out}
	if code, o, e := runCLI(t, append(args, c.sub)...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	manual := filepath.Join(out, review.ManualFile)
	typed := fillManual(t, manual, "bob", "0.5") + fillManual(t, manual, "alice", "1")
	if typed < 4 {
		t.Fatalf("filled only %d rows", typed)
	}

	// 1. The same command again, no --manual: every typed score survives.
	code, o, e := runCLI(t, append(args, c.sub)...)
	if code != 0 || !strings.Contains(o, "carried forward") {
		t.Fatalf("re-grade: exit %d\n%s%s", code, o, e)
	}
	m, col := manualByLearner(t, manual)
	n := 0
	for k, r := range m {
		if strings.HasPrefix(k, "bob/") || strings.HasPrefix(k, "alice/") {
			if r[col["score"]] == "" {
				t.Errorf("re-grade lost the typed score of %s: %v", k, r)
			}
			n++
		}
	}
	if n != typed {
		t.Errorf("re-grade kept %d of %d typed rows", n, typed)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	if g[2][gc["id"]] != "bob" || g[2][gc["text.counter_evidence"]] != "0.5" {
		t.Errorf("grades.csv lost bob's typed score: %v", g[2])
	}

	// 2. Bob changes an answer: the old score is not applied, and not
	// dropped either: it stands next to the new answer, to be re-read.
	c.submit(t, "bob", &card.Card{CounterEvidence: "重写：排队和超时。", DenominatorError: "删掉失败请求。"})
	code, o, e = runCLI(t, append(args, c.sub)...)
	if code != 0 || !strings.Contains(e, "changed since it was scored") {
		t.Fatalf("changed answer: exit %d\n%s%s", code, o, e)
	}
	m, col = manualByLearner(t, manual)
	r := m["bob/text.counter_evidence"]
	if r == nil || r[col["score"]] != "" || r[col["previous_score"]] != "0.5" || !strings.Contains(r[col["note"]], "请重新阅读") {
		t.Errorf("changed answer's row: %v (columns %v)", r, col)
	}
	if r := m["bob/text.denominator"]; r == nil || r[col["score"]] != "0.5" {
		t.Errorf("bob's unchanged answer lost its score: %v", r)
	}
	// Graded a third time before anyone re-read it: the old score is still there.
	if code, o, e := runCLI(t, append(args, c.sub)...); code != 0 {
		t.Fatalf("third grade: exit %d\n%s%s", code, o, e)
	}
	m, col = manualByLearner(t, manual)
	if r := m["bob/text.counter_evidence"]; r == nil || r[col["previous_score"]] != "0.5" {
		t.Errorf("third grade lost the previous score: %v", r)
	}

	// 3. A subset re-run (only carol's folder) with --replace: the class
	// in OUT is replaced, so alice's and bob's old feedback is gone (it is
	// in the backup), but their typed scores are kept in manual-review.csv
	// for the next full run. (Without --replace the run is refused:
	// TestGradeCLIPartialRunKeepsTheClass.)
	if _, err := os.Stat(filepath.Join(out, "feedback", "bob.md")); err != nil {
		t.Fatal(err)
	}
	code, o, e = runCLI(t, append(args, "--replace", filepath.Join(c.sub, "carol"))...)
	if code != 0 {
		t.Fatalf("subset: exit %d\n%s%s", code, o, e)
	}
	for _, f := range []string{"feedback/bob.md", "feedback/alice.html", "results/alice.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("subset re-run left stale %s", f)
		}
	}
	m, col = manualByLearner(t, manual)
	if r := m["alice/text.counter_evidence"]; r == nil || r[col["score"]] != "1" {
		t.Errorf("subset re-run dropped alice's typed score: %v", r)
	}
	if r := m["bob/text.denominator"]; r == nil || r[col["score"]] != "0.5" {
		t.Errorf("subset re-run dropped bob's typed score: %v", r)
	}
	// ... and the next full run applies them again.
	if code, o, e := runCLI(t, append(args, c.sub)...); code != 0 {
		t.Fatalf("full again: exit %d\n%s%s", code, o, e)
	}
	g, gc = csvRows(t, filepath.Join(out, "grades.csv"))
	if g[1][gc["text.counter_evidence"]] != "1" || g[2][gc["text.denominator"]] != "0.5" {
		t.Errorf("typed scores not applied after the subset run: %v / %v", g[1], g[2])
	}
	entries, _ := os.ReadDir(c.dir)
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), ".graded") {
			t.Errorf("left a staging folder %s", en.Name())
		}
	}
}

// An OUT that holds files coursekit grade did not write is never replaced;
// a --manual file other than OUT's own is refused while OUT holds typed
// scores (--force discards them).
func TestGradeCLIOutSafety(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队。"}, "bob": {CounterEvidence: "GPU 很忙。"},
	})
	foreign := filepath.Join(c.dir, "mine")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "thesis.tex"), []byte("x"), 0o644)
	code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", foreign, c.sub)
	if code != 2 || !strings.Contains(e, "thesis.tex") {
		t.Errorf("foreign OUT: exit %d\n%s%s", code, o, e)
	}
	if _, err := os.Stat(filepath.Join(foreign, "thesis.tex")); err != nil {
		t.Errorf("foreign OUT touched: %v", err)
	}

	out := filepath.Join(c.dir, "graded")
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out}
	if code, o, e := runCLI(t, append(args, c.sub)...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	fillManual(t, filepath.Join(out, review.ManualFile), "bob", "1")
	other := filepath.Join(c.dir, "other.csv")
	b, _ := os.ReadFile(filepath.Join(out, review.ManualFile))
	os.WriteFile(other, []byte(strings.ReplaceAll(string(b), ",1,", ",,")), 0o644)
	code, o, e = runCLI(t, append(append(args, "--manual", other), c.sub)...)
	if code != 2 || !strings.Contains(e, "typed scores") {
		t.Errorf("--manual over typed scores: exit %d\n%s%s", code, o, e)
	}
	if m, col := manualByLearner(t, filepath.Join(out, review.ManualFile)); m["bob/text.counter_evidence"][col["score"]] != "1" {
		t.Errorf("refused run still changed OUT")
	}
	if code, o, e := runCLI(t, append(append(args, "--manual", other, "--force"), c.sub)...); code != 0 {
		t.Errorf("--force: exit %d\n%s%s", code, o, e)
	}
}

// canvasZip writes a Canvas-style bulk download: NAME_LMSID_SUBID_FILE per
// entry.
func canvasZip(t *testing.T, path string, entries map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range entries {
		w, _ := zw.Create(name)
		w.Write(b)
	}
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A class released to alice, bob and carol, graded with a roster that lost
// carol and gained dave, from a Canvas zip with one stray notebook: every
// roster learner and every signed record has a row in grades.csv, with the
// roster's 姓名 and email columns; carol is graded by her record and
// flagged as a stale roster, not blamed; the stray file has its own row.
func TestGradeCLIEveryLearnerHasARow(t *testing.T) {
	c := newClassroom(t, "id,姓名,email,lms_id\nalice,张敏,a@x.edu,10001\nbob,王强,b@x.edu,10002\ncarol,李娜,c@x.edu,10003\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队。"}, "bob": {CounterEvidence: "GPU 很忙。"}, "carol": {CounterEvidence: "超时。"},
	})
	read := func(id string) []byte {
		b, err := os.ReadFile(filepath.Join(c.sub, id, "06-deliverable.ipynb"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	z := filepath.Join(c.dir, "canvas.zip")
	stray, _ := json.Marshal(map[string]any{"cells": []any{}, "metadata": map[string]any{}, "nbformat": 4, "nbformat_minor": 5})
	canvasZip(t, z, map[string][]byte{
		"zhangmin_10001_90001_06-deliverable.ipynb":  read("alice"),
		"wangqiang_10002_90002_06-deliverable.ipynb": read("bob"),
		"lina_10003_90003_06-deliverable.ipynb":      read("carol"),
		"someone_10009_90009_06-deliverable.ipynb":   stray,
	})
	stale := filepath.Join(c.dir, "roster-now.csv")
	os.WriteFile(stale, []byte("id,姓名,email,lms_id\nalice,张敏,a@x.edu,10001\nbob,王强,b@x.edu,10002\ndave,赵磊,d@x.edu,10004\n"), 0o644)
	out := filepath.Join(c.dir, "graded")
	code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", stale, "--out", out, z)
	if code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	for _, h := range []string{"姓名", "email", "lms_id"} {
		if _, ok := gc[h]; !ok {
			t.Errorf("grades.csv has no %s column: %v", h, g[0])
		}
	}
	rows := map[string][]string{}
	for _, r := range g[1:] {
		rows[r[gc["id"]]] = r
	}
	if r := rows["alice"]; r == nil || r[gc["姓名"]] != "张敏" || r[gc["email"]] != "a@x.edu" || !strings.HasPrefix(r[gc["status"]], "graded") {
		t.Errorf("alice's row: %v", r)
	}
	if r := rows["dave"]; r == nil || r[gc["姓名"]] != "赵磊" || r[gc["status"]] != "no submission" {
		t.Errorf("dave's row: %v", r)
	}
	if r := rows["carol"]; r == nil || r[gc["total"]] == "" || !strings.Contains(r[gc["status"]], "名单可能过期") {
		t.Errorf("carol (signed record, not on the roster) has no graded row: %v", r)
	}
	if r := rows[""]; r == nil || !strings.Contains(r[gc["status"]], "someone_10009_90009_06-deliverable.ipynb") {
		t.Errorf("the stray file has no row: %v", g)
	}
	if len(g) != 1+5 {
		t.Errorf("grades.csv has %d rows, want 5 (alice, bob, dave, carol, the stray file):\n%v", len(g)-1, g)
	}
	fb, err := os.ReadFile(filepath.Join(out, "feedback", "carol.md"))
	if err != nil || strings.Contains(string(fb), "文件名或所在文件夹应当是学习者 id") || !strings.Contains(string(fb), "名单可能过期") {
		t.Errorf("carol's feedback (%v):\n%.800s", err, fb)
	}
	if !strings.Contains(e, "carol is not on the roster") {
		t.Errorf("no stale-roster warning on stderr:\n%s", e)
	}
}

// s010 hands in s001's executed notebook from their own LMS account. The
// record decides: s001 keeps their own file (one submission, graded), s010
// has no own submission, both get the copy finding. Gradescope, given the
// same copied notebook from s010's account, gives the same score as the
// batch.
func TestGradeCLIRecordDecidesWhoseWork(t *testing.T) {
	c := newClassroom(t, "id,name,email,lms_id\ns001,A,s001@x.edu,1001\ns010,B,s010@x.edu,1010\n", map[string]*card.Card{
		"s001": {CounterEvidence: "排队：有请求在首字前等待超时。"},
	})
	own, _ := os.ReadFile(filepath.Join(c.sub, "s001", "06-deliverable.ipynb"))
	z := filepath.Join(c.dir, "canvas.zip")
	canvasZip(t, z, map[string][]byte{
		"aaa_1001_5001_06-deliverable.ipynb": own,
		"bbb_1010_5010_06-deliverable.ipynb": own, // the copy, newer by name order
	})
	out, batchScore := gradeCopiedRecord(t, c, z)
	fb, _ := os.ReadFile(filepath.Join(out, "feedback", "s001.md"))
	if strings.Contains(string(fb), "没有计分") || strings.Contains(string(fb), "一共提交了 2 份") {
		t.Errorf("s001's feedback:\n%.600s", fb)
	}

	sameOnGradescope(t, c, own, "s010", batchScore)
}

// gradeCopiedRecord grades input, where s001's signed notebook is also
// handed in as s010's, and checks the record-decides rule on the batch:
// s001's row is graded by their own file alone, s010's row is "no own
// submission", every file has the copy finding. It returns OUT and each
// learner's batch total.
func gradeCopiedRecord(t *testing.T, c *classroom, input string) (string, map[string]float64) {
	t.Helper()
	out := filepath.Join(c.dir, "graded")
	code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, input)
	if code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	if g[1][gc["id"]] != "s001" || !strings.HasPrefix(g[1][gc["status"]], "graded") || strings.Contains(g[1][gc["status"]], "also handed in") {
		t.Errorf("s001's row: %v", g[1])
	}
	if g[2][gc["id"]] != "s010" || g[2][gc["status"]] != "ungradable: "+grader.ReasonNotOwn {
		t.Errorf("s010's row: %v", g[2])
	}
	total := map[string]float64{}
	for _, s := range gradedSubs(t, out) {
		if !hasCopyFinding(s) {
			t.Errorf("%s (%s) has no copy finding: %+v", s.Learner, s.Name, s.Integrity)
		}
		total[s.Learner] = s.Total
	}
	return out, total
}

// gradedSubs is OUT/grades.json.
func gradedSubs(t *testing.T, out string) []grader.Submission {
	t.Helper()
	var subs []grader.Submission
	b, err := os.ReadFile(filepath.Join(out, "grades.json"))
	if err == nil {
		err = json.Unmarshal(b, &subs)
	}
	if err != nil {
		t.Fatal(err)
	}
	return subs
}

func hasCopyFinding(s grader.Submission) bool {
	return slices.ContainsFunc(s.Integrity, func(f integrity.Finding) bool { return f.Code == grader.FindRecordCopied })
}

// sameOnGradescope runs the Gradescope autograder on nb handed in from
// account id and checks that it scores what the batch gave id.
func sameOnGradescope(t *testing.T, c *classroom, nb []byte, id string, batch map[string]float64) {
	t.Helper()
	meta := `{"id": 1, "users": [{"email": "` + id + `@x.edu", "name": "X", "sid": "` + id + `"}]}`
	root := gsFakeRoot(t, &classroom{key: c.key, roster: c.roster}, nb, meta)
	if code, o, e := runCLI(t, "grade", "--gradescope", root); code != 0 {
		t.Fatalf("gradescope: exit %d\n%s%s", code, o, e)
	}
	r, raw := gsResults(t, root)
	if r.Score == nil || *r.Score != batch[id] {
		var got any = "no score"
		if r.Score != nil {
			got = *r.Score
		}
		t.Errorf("the file handed in by %s: Gradescope %v, the batch %v:\n%.600s", id, got, batch[id], raw)
	}
}

// The wrong key stops the batch before a single score line is printed;
// the untouched release (self-check never run) exits non-zero with a hint
// about --execute; --execute names a missing engine.
func TestGradeCLILoudFailures(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{"alice": {}, "bob": {}})
	wrong := filepath.Join(c.dir, "WRONG")
	os.WriteFile(wrong, []byte("another-key-0123456789abcdef-xyz\n"), 0o600)
	code, o, e := runCLI(t, "grade", "--key-file", wrong, "--roster", c.roster, "--out", filepath.Join(c.dir, "w"), c.sub)
	if code != 2 || !strings.Contains(e, "verifies 0 of 2") || strings.Contains(e, "grade: [") {
		t.Errorf("wrong key: exit %d, score lines before the key check:\n%s%s", code, o, e)
	}

	code, o, e = runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", filepath.Join(c.dir, "r"), c.rel)
	if code == 0 || !strings.Contains(e, "nothing gradable") || !strings.Contains(e, "--execute") || !strings.Contains(e, "untouched release") {
		t.Errorf("untouched release: exit %d\n%s%s", code, o, e)
	}

	code, o, e = runCLI(t, "grade", "--quiet", "--execute", "--engine", "no-such-engine-i22", "--key-file", c.key, "--roster", c.roster, "--out", filepath.Join(c.dir, "x"), c.sub)
	if code != 2 || !strings.Contains(e, "no-such-engine-i22 is not installed") || strings.Contains(e, "make test-image") {
		t.Errorf("missing engine: exit %d\n%s%s", code, o, e)
	}
}

// assign refuses to write over a release made with another key (unless
// --force); `coursekit key new` refuses to overwrite a key.
func TestAssignAndKeyNeverOverwrite(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", nil)
	before, _ := os.ReadFile(filepath.Join(c.rel, "alice", "06-deliverable.ipynb"))
	other := filepath.Join(c.dir, "OTHER")
	if code, o, e := runCLI(t, "key", "new", other); code != 0 || !strings.Contains(o, "wrote a new key") {
		t.Fatalf("key new: exit %d\n%s%s", code, o, e)
	}
	k, _ := os.ReadFile(other)
	if code, _, e := runCLI(t, "key", "new", other); code != 2 || !strings.Contains(e, "already exists") {
		t.Errorf("key new over a key: exit %d %s", code, e)
	}
	if k2, _ := os.ReadFile(other); string(k2) != string(k) {
		t.Error("key new overwrote the key")
	}
	code, o, e := runCLI(t, "assign", "--roster", c.roster, "--key-file", other, "--out", c.rel, "--notebook", deliverable)
	if code != 2 || !strings.Contains(e, "another key") {
		t.Errorf("assign with another key: exit %d\n%s%s", code, o, e)
	}
	if after, _ := os.ReadFile(filepath.Join(c.rel, "alice", "06-deliverable.ipynb")); string(after) != string(before) {
		t.Error("assign with another key overwrote alice's notebook")
	}
	// The same key again is fine (e.g. a learner added to the roster).
	if code, o, e := runCLI(t, "assign", "--roster", c.roster, "--key-file", c.key, "--out", c.rel, "--notebook", deliverable); code != 0 {
		t.Errorf("assign again with the same key: exit %d\n%s%s", code, o, e)
	}
	// A release from before the marker: the notebooks' records decide.
	os.Remove(filepath.Join(c.rel, assign.ReleaseMarker))
	if code, _, e := runCLI(t, "assign", "--roster", c.roster, "--key-file", other, "--out", c.rel, "--notebook", deliverable); code != 2 || !strings.Contains(e, "another key") {
		t.Errorf("assign over an unmarked release: exit %d %s", code, e)
	}
	if code, o, e := runCLI(t, "assign", "--force", "--roster", c.roster, "--key-file", other, "--out", c.rel, "--notebook", deliverable); code != 0 {
		t.Errorf("--force: exit %d\n%s%s", code, o, e)
	}
}

// The same rule when the folder or the file name says who handed it in:
// s001's signed notebook in folder s010/ (or named s010.ipynb) is not
// s010's work. s010 has no own submission, s001 keeps their own file, both
// get the copy finding, and Gradescope gives the copy from s010's account
// the score the batch gives s010, and s001's own file the score the batch
// gives s001.
func TestGradeCLIRecordDecidesOverFolderAndFileName(t *testing.T) {
	for _, where := range []string{filepath.Join("s010", "06-deliverable.ipynb"), "s010.ipynb"} {
		t.Run(filepath.ToSlash(where), func(t *testing.T) {
			c := newClassroom(t, "id,name,email\ns001,A,s001@x.edu\ns010,B,s010@x.edu\n", map[string]*card.Card{
				"s001": {Clock: "client", Attempts: 10, CounterEvidence: "排队：有请求在首字前等待超时。"},
			})
			own, _ := os.ReadFile(filepath.Join(c.sub, "s001", "06-deliverable.ipynb"))
			os.MkdirAll(filepath.Join(c.sub, "s010"), 0o755)
			if err := os.WriteFile(filepath.Join(c.sub, where), own, 0o644); err != nil {
				t.Fatal(err)
			}
			_, batchScore := gradeCopiedRecord(t, c, c.sub)
			if batchScore["s001"] == 0 {
				t.Fatalf("premise: s001 scores 0 (%v)", batchScore)
			}
			sameOnGradescope(t, c, own, "s010", batchScore)
			sameOnGradescope(t, c, own, "s001", batchScore)
		})
	}
}
