package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/grader"
)

// namedClass is a released class of five whose notebooks are handed in as
// a plain folder of <id>.ipynb files, each learner's own notebook filled
// with a card of their own.
func namedClass(t *testing.T) *classroom {
	return newClassroom(t, "id,name\ns01,A\ns02,B\ns03,C\ns04,D\ns05,E\n", map[string]*card.Card{
		"s01": {Clock: "client", Attempts: 10, CounterEvidence: "排队：有请求在首字前等待超时。"},
		"s02": {Clock: "client", CounterEvidence: "GPU 很忙，但有请求在首字前超时。"},
		"s03": {Clock: "server", Attempts: 10, CounterEvidence: "首字之前就超时的请求说明在排队。"},
		"s04": {Clock: "client", Attempts: 10, PercentileMethod: "nearest-rank", CounterEvidence: "队列在涨。"},
		"s05": {CounterEvidence: "超时。"},
	})
}

// handedIn is learner id's self-checked notebook (classroom.submit).
func (c *classroom) handedIn(t *testing.T, id string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.sub, id, "06-deliverable.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// plainFolder writes DIR as a folder of <name>.ipynb files: name → the
// learner whose own notebook it holds.
func plainFolder(t *testing.T, c *classroom, dir string, files map[string]string) string {
	t.Helper()
	p := filepath.Join(c.dir, dir)
	os.MkdirAll(p, 0o755)
	for name, id := range files {
		if err := os.WriteFile(filepath.Join(p, name+".ipynb"), c.handedIn(t, id), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// gradeRows grades in into out and returns grades.csv's rows by id (total,
// status) and stderr.
func gradeRows(t *testing.T, c *classroom, out string, in ...string) (map[string][2]string, string) {
	t.Helper()
	code, o, e := runCLI(t, append([]string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out}, in...)...)
	if code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	rows := map[string][2]string{}
	for _, r := range g[1:] {
		rows[r[gc["id"]]] = [2]string{r[gc["total"]], r[gc["status"]]}
	}
	return rows, e
}

// Swapped file names in a plain folder (s01.ipynb holds s02's notebook and
// s02.ipynb s01's) are not a copy: only the names say who handed them in,
// and each signed record came in once. Each notebook is graded as its
// record's learner's, with the score it gets when named right; nobody is
// "not own submission" or gets a copy finding; the warnings say what
// counted for both, and agree with the rows. A learner's only file named
// after another learner (s03.ipynb holds s04's notebook, s04 handed in
// nothing) counts for s04, and s03's row says "no submission" and why.
// The learners' feedback and results never show the other learner's
// name. A re-grade keeps the scores typed for a swapped file.
func TestGradeCLISwappedFileNames(t *testing.T) {
	c := namedClass(t)
	right, _ := gradeRows(t, c, filepath.Join(c.dir, "right"), plainFolder(t, c, "right-in", map[string]string{"s01": "s01", "s02": "s02", "s03": "s03", "s04": "s04", "s05": "s05"}))
	if right["s01"][0] == right["s02"][0] {
		t.Fatalf("premise: s01 and s02 score the same (%v)", right)
	}

	in := plainFolder(t, c, "swapped", map[string]string{"s01": "s02", "s02": "s01", "s03": "s04", "s05": "s05"})
	out := filepath.Join(c.dir, "graded")
	rows, e := gradeRows(t, c, out, in)
	for _, id := range []string{"s01", "s02", "s04"} {
		if rows[id][0] != right[id][0] || !strings.HasPrefix(rows[id][1], "graded") {
			t.Errorf("%s: total %q (%s), want %q as when named right", id, rows[id][0], rows[id][1], right[id][0])
		}
	}
	if rows["s03"][0] != "" || !strings.HasPrefix(rows["s03"][1], "no submission") || !strings.Contains(rows["s03"][1], "s03.ipynb") {
		t.Errorf("s03's row: %v", rows["s03"])
	}
	for id, r := range rows {
		if strings.Contains(r[1], grader.ReasonNotOwn) {
			t.Errorf("%s is accused on a file name alone: %s", id, r[1])
		}
	}
	for _, s := range gradedSubs(t, out) {
		if hasCopyFinding(s) || s.ReasonCode == grader.ReasonNotOwn {
			t.Errorf("%s (%s): a copy finding from a file name alone: %s %+v", s.Learner, s.Name, s.ReasonCode, s.Integrity)
		}
	}
	// The warnings say what counted, as the rows do.
	for _, w := range []string{"s01.ipynb is graded as s02's work, not as a copy\n    it is named after s01", "s02.ipynb is graded as s01's work, not as a copy\n    it is named after s02", "swapped",
		"s03.ipynb is graded as s04's work, not as a copy\n    it is named after s03", `s03's row is "no submission"`} {
		if !strings.Contains(e, w) {
			t.Errorf("stderr lacks %q:\n%s", w, e)
		}
	}
	shortWarningLines(t, e)
	if strings.Contains(e, "keeps their own file") || strings.Contains(e, "no own submission") {
		t.Errorf("a warning contradicts the rows:\n%s", e)
	}
	sum, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if !strings.Contains(string(sum), "- s01.ipynb 按 s02 的作业评分，不算抄袭\n  - 它的名字是 s01 的\n") {
		t.Errorf("summary.md does not tell the instructor:\n%s", sum)
	}
	// Nothing a learner receives names the other learner or a suspicion.
	for id, other := range map[string]string{"s01": "s02", "s02": "s01", "s04": "s03"} {
		for _, f := range []string{"feedback/" + id + ".md", "feedback/" + id + ".html", "results/" + id + ".json"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{other, "抄袭", "不是发给你的"} {
				if strings.Contains(string(b), bad) {
					t.Errorf("%s says %q:\n%.500s", f, bad, b)
				}
			}
		}
	}

	// The instructor reads s01's answers (from s02.ipynb) and grades again.
	if n := fillManual(t, filepath.Join(out, "manual-review.csv"), "s01", "1"); n == 0 {
		t.Fatal("no manual-review rows for s01")
	}
	again, e := gradeRows(t, c, out, in)
	m, col := manualByLearner(t, filepath.Join(out, "manual-review.csv"))
	if r := m["s01/text.counter_evidence"]; r == nil || r[col["score"]] != "1" {
		t.Errorf("the typed score is gone after the re-grade: %v\n%s", r, e)
	}
	if again["s01"][0] == rows["s01"][0] {
		t.Errorf("s01's typed scores did not count: %v then %v", rows["s01"], again["s01"])
	}
}

// A Moodle download graded with a roster that has no lms_id column: each
// folder carries the learner's full name and Moodle's participant number.
// A folder whose name is exactly one roster learner's is that learner's,
// also for a file with no valid release record (a truncated notebook is
// Emma's ungradable file, not an unknown one; an unsigned notebook is
// graded as the learner's), with the name written "Seán O'Brien" in the
// folder (decomposed, as a Mac zips it) and "O'Brien, Seán" in the
// roster. A folder whose name two roster learners share is never guessed:
// the stderr warning names the folder and both learners, a file with no
// record there is a row of its own, and one with a signed record counts
// by the record. The shared name is markup, shown as text in every HTML
// output. A re-grade gives the same rows and keeps typed scores.
func TestGradeCLIMoodleFoldersMatchedByName(t *testing.T) {
	c := newClassroom(t, "id,name\ns01,Emma Smith\ns02,Fang <b>O'Neil\ns03,Fang <b>O'Neil\ns04,\"O'Brien, Seán\"\ns05,Li Na\n", map[string]*card.Card{
		"s01": {Clock: "client", Attempts: 10, CounterEvidence: "排队：有请求在首字前等待超时。"},
		"s02": {Clock: "client", CounterEvidence: "GPU 很忙，但有请求在首字前超时。"},
		"s03": {Clock: "server", Attempts: 10, CounterEvidence: "首字之前就超时的请求说明在排队。"},
		"s04": {Clock: "client", Attempts: 10, PercentileMethod: "nearest-rank", CounterEvidence: "队列在涨。"},
		"s05": {CounterEvidence: "超时的请求也在分母里。"},
	})
	read := func(id string) []byte { return c.handedIn(t, id) }
	const ambiguous = "Fang <b>O'Neil_1020_assignsubmission_file_"
	z := filepath.Join(c.dir, "moodle.zip")
	canvasZip(t, z, map[string][]byte{
		"Emma Smith_1010_assignsubmission_file_/06-deliverable.ipynb":         read("s01")[:200],
		ambiguous + "/06-deliverable.ipynb":                                   unsigned(t, read("s02")),
		"Fang <b>O'Neil_1021_assignsubmission_file_/06-deliverable.ipynb":     read("s03"),
		"Sea\u0301n O'Brien_1014_assignsubmission_file_/06-deliverable.ipynb": unsigned(t, read("s04")),
		"Li Na_1015_assignsubmission_file_/06-deliverable.ipynb":              read("s05"),
	})
	out := filepath.Join(c.dir, "graded")
	rows, e := gradeRows(t, c, out, z)
	want := map[string]string{"s01": "ungradable: truncated_json", "s02": "no submission", "s03": "graded", "s04": "graded", "s05": "graded"}
	for id, status := range want {
		if !strings.HasPrefix(rows[id][1], status) {
			t.Errorf("%s: %q, want %q", id, rows[id][1], status)
		}
	}
	if rows["s01"][0] != "0" {
		t.Errorf("Emma's truncated file scores %q, want 0", rows["s01"][0])
	}
	if r, ok := rows[""]; !ok || !strings.Contains(r[1], ambiguous) {
		t.Errorf("the ambiguous folder's file has no row of its own: %v", rows)
	}
	for _, w := range []string{ambiguous, "s02, s03", "never guesses", "lms_id 1020", "no lms_id column"} {
		if !strings.Contains(e, w) {
			t.Errorf("stderr lacks %q:\n%s", w, e)
		}
	}
	for _, f := range []string{"feedback/unknown-1.md", "feedback/unknown-1.html", "results/unknown-1.json"} {
		b, _ := os.ReadFile(filepath.Join(out, f))
		if strings.Contains(string(b), "s02") || strings.Contains(string(b), "s03") {
			t.Errorf("%s names the learners the folder may be:\n%.400s", f, b)
		}
	}
	if sum, _ := os.ReadFile(filepath.Join(out, "summary.md")); !strings.Contains(string(sum), `填上 lms\_id 1020`) {
		t.Errorf("summary.md does not say which lms_id to add:\n%s", sum)
	}
	for _, f := range []string{"summary.html", "class.html"} {
		b, _ := os.ReadFile(filepath.Join(out, f))
		if !strings.Contains(string(b), "Fang &lt;b&gt;O&#39;Neil_1020") || strings.Contains(string(b), "<b>O'Neil") {
			t.Errorf("%s does not show the folder name as text", f)
		}
	}

	if n := fillManual(t, filepath.Join(out, "manual-review.csv"), "s04", "1"); n == 0 {
		t.Fatal("no manual-review rows for s04")
	}
	again, e2 := gradeRows(t, c, out, z)
	for id := range want {
		if again[id][1] != rows[id][1] {
			t.Errorf("%s: %q, then %q after a re-grade\n%s", id, rows[id][1], again[id][1], e2)
		}
	}
	m, col := manualByLearner(t, filepath.Join(out, "manual-review.csv"))
	if r := m["s04/text.counter_evidence"]; r == nil || r[col["score"]] != "1" {
		t.Errorf("the typed score is gone after the re-grade: %v", r)
	}
}

// Matching by name trusts the roster's name column no more than a file
// name: with alice's and bob's names swapped in a roster without lms_id,
// each Moodle folder (the learner's real name) matches the other learner
// by name, but each signed record came in once: each notebook counts for
// its record's learner, nobody gets a copy finding or "no own submission",
// and the instructor is told to check the roster's names.
func TestGradeCLIRosterNameTypoAccusesNobody(t *testing.T) {
	c := newClassroom(t, "id,name\nalice,Wang Qiang\nbob,Zhang Min\ncarol,Li Na\n", map[string]*card.Card{
		"alice": {Clock: "client", Attempts: 10, CounterEvidence: "排队：有请求在首字前等待超时。"},
		"bob":   {Clock: "client", CounterEvidence: "GPU 很忙。"},
		"carol": {CounterEvidence: "超时。"},
	})
	out := filepath.Join(c.dir, "graded")
	rows, e := gradeRows(t, c, out, threeMoodleFolders(t, c))
	for _, id := range []string{"alice", "bob", "carol"} {
		if !strings.HasPrefix(rows[id][1], "graded") {
			t.Errorf("%s: %v", id, rows[id])
		}
	}
	for _, s := range gradedSubs(t, out) {
		if hasCopyFinding(s) || s.ReasonCode == grader.ReasonNotOwn {
			t.Errorf("%s: accused on the roster's names: %s %+v", s.Learner, s.ReasonCode, s.Integrity)
		}
	}
	if !strings.Contains(e, "roster's names") || strings.Contains(e, "copy finding for") {
		t.Errorf("stderr:\n%s", e)
	}
	for id, other := range map[string]string{"alice": "Wang Qiang", "bob": "Zhang Min"} {
		fb, _ := os.ReadFile(filepath.Join(out, "feedback", id+".md"))
		if strings.Contains(string(fb), other) || strings.Contains(string(fb), "Zhang Min_") {
			t.Errorf("%s's feedback names an LMS account:\n%.400s", id, fb)
		}
	}
}

// threeMoodleFolders is a Moodle download of alice (Zhang Min, participant
// 10001), bob (Wang Qiang, 10002) and carol (Li Na, 10003), each folder
// holding that learner's own notebook; it returns the zip's path.
func threeMoodleFolders(t *testing.T, c *classroom) string {
	t.Helper()
	z := filepath.Join(c.dir, "moodle.zip")
	canvasZip(t, z, map[string][]byte{
		"Zhang Min_10001_assignsubmission_file_/06-deliverable.ipynb":  c.handedIn(t, "alice"),
		"Wang Qiang_10002_assignsubmission_file_/06-deliverable.ipynb": c.handedIn(t, "bob"),
		"Li Na_10003_assignsubmission_file_/06-deliverable.ipynb":      c.handedIn(t, "carol"),
	})
	return z
}
