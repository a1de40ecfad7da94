package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// The roster swaps alice's and bob's lms_id. Each Moodle folder carries
// its learner's own name and their own signed notebook: the work is each
// one's own, graded as theirs; the instructor is told of a roster
// mismatch, and nobody gets a copy finding (no record came from two
// accounts). The warning says what docs/grading-safety.md promises: what
// counted for both learners, that the two files look swapped, and to
// check both learners' lms_id; before, it said "graded as alice's; check
// the roster's lms_id column", nothing about bob's row.
func TestGradeCLIRosterTypoAccusesNobody(t *testing.T) {
	c := newClassroom(t, "id,name,lms_id\nalice,Zhang Min,10002\nbob,Wang Qiang,10001\ncarol,Li Na,10003\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。"},
		"bob":   {CounterEvidence: "GPU 很忙。"},
		"carol": {CounterEvidence: "超时。"},
	})
	out, e := gradeAccusesNobody(t, c, threeMoodleFolders(t, c))
	checkTypoWarnings(t, e, out, [2]string{"alice", "bob"}, map[string]string{
		"alice": "Zhang Min_10001_assignsubmission_file_/06-deliverable.ipynb",
		"bob":   "Wang Qiang_10002_assignsubmission_file_/06-deliverable.ipynb",
	})
	if !strings.Contains(e, "roster") || !strings.Contains(e, "lms_id") || !strings.Contains(e, "alice") {
		t.Errorf("no roster-mismatch warning:\n%s", e)
	}
	sum, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if !strings.Contains(string(sum), "名单") || !strings.Contains(string(sum), "alice") {
		t.Errorf("summary.md does not report the roster mismatch:\n%s", sum)
	}
	for _, id := range []string{"alice", "bob"} {
		fb, _ := os.ReadFile(filepath.Join(out, "feedback", id+".md"))
		if strings.Contains(string(fb), "没有计分") || strings.Contains(string(fb), "发放记录不是") {
			t.Errorf("%s's feedback:\n%.600s", id, fb)
		}
	}
}

// Two learners of one name (李娜), their lms_ids swapped in the roster:
// the LMS name fits both, so only the roster's lms_id says whose each
// account is, and an lms_id typed into a roster accuses nobody. Each
// record came in once: each is graded as its own learner's work, with
// the roster-mismatch warning, and each one's feedback names the file
// without saying its name is not theirs. Before, both were "not own
// submission" with copy findings, and the warnings said each one's
// "own" file counted.
func TestGradeCLIRosterTypoSameNameAccusesNobody(t *testing.T) {
	c := newClassroom(t, "id,name,lms_id\ns05,李娜,1015\ns15,李娜,1005\ns07,陈静,1007\n", map[string]*card.Card{
		"s05": {CounterEvidence: "排队：有请求在首字前等待超时。"},
		"s15": {CounterEvidence: "GPU 很忙。"},
		"s07": {CounterEvidence: "超时。"},
	})
	z := filepath.Join(c.dir, "moodle.zip")
	files := map[string]string{
		"s05": "李娜_1005_assignsubmission_file_/06-deliverable.ipynb",
		"s15": "李娜_1015_assignsubmission_file_/06-deliverable.ipynb",
	}
	canvasZip(t, z, map[string][]byte{
		files["s05"]: c.handedIn(t, "s05"),
		files["s15"]: c.handedIn(t, "s15"),
		"陈静_1007_assignsubmission_file_/06-deliverable.ipynb": c.handedIn(t, "s07"),
	})
	out, e := gradeAccusesNobody(t, c, z)
	checkTypoWarnings(t, e, out, [2]string{"s05", "s15"}, files)
	// Each learner's feedback names their file truthfully: its LMS name
	// is theirs, so never "handed in under a name that is not yours".
	for _, id := range []string{"s05", "s15"} {
		fb, _ := os.ReadFile(filepath.Join(out, "feedback", id+".md"))
		if strings.Contains(string(fb), "名字不是你的") || !strings.Contains(string(fb), "从 LMS 交上来的那份笔记本") {
			t.Errorf("%s's feedback names the file as not theirs:\n%.400s", id, fb)
		}
	}
}

// checkTypoWarnings checks the warnings of a swapped pair's lms_ids: one
// per file, each saying it is graded as its record's learner's work, not
// as a copy, what counted for both, that the two look swapped, and to
// check both learners' lms_id (canvas leaves both rows out until then);
// none says "not own" or "no submission". summary.md says the same in
// Chinese.
func checkTypoWarnings(t *testing.T, stderr, out string, pair [2]string, files map[string]string) {
	t.Helper()
	for i, owner := range pair {
		other := pair[1-i]
		var w string
		for _, b := range warningBlocks(stderr) {
			if strings.HasPrefix(b, "grade: warning: roster mismatch: moodle.zip:"+files[owner]+" ") && strings.Contains(b, "lms_id") {
				w = b
			}
		}
		if w == "" {
			t.Errorf("no roster-mismatch warning for %s's file %s:\n%s", owner, files[owner], stderr)
			continue
		}
		for _, want := range []string{
			"graded as " + owner + "'s work, not as a copy",
			"it counts for " + owner,
			other + "'s row counts " + "moodle.zip:" + files[other],
			"the two files look swapped",
			"check the lms_id of " + owner + " and " + other,
			"--export canvas leaves both rows out",
		} {
			if !strings.Contains(w, want) {
				t.Errorf("%s's warning lacks %q:\n%s", owner, want, w)
			}
		}
		for _, never := range []string{"no own submission", "no submission", "copy finding for"} {
			if strings.Contains(w, never) {
				t.Errorf("%s's warning says %q:\n%s", owner, never, w)
			}
		}
	}
	shortWarningLines(t, stderr)
	sum, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if !strings.Contains(string(sum), "两个文件像是互换了") || !strings.Contains(string(sum), "名单可能有误") {
		t.Errorf("summary.md does not say the two look swapped:\n%s", sum)
	}
}

// gradeAccusesNobody grades the LMS download z of class c into c.dir/graded
// and checks that every learner's row is graded and no file has a copy
// finding; it returns OUT and stderr.
func gradeAccusesNobody(t *testing.T, c *classroom, z string) (out, stderr string) {
	t.Helper()
	out = filepath.Join(c.dir, "graded")
	code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, z)
	if code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	for _, r := range g[1:] {
		if !strings.HasPrefix(r[gc["status"]], "graded") {
			t.Errorf("%s: %s", r[gc["id"]], r[gc["status"]])
		}
	}
	for _, s := range gradedSubs(t, out) {
		if hasCopyFinding(s) {
			t.Errorf("%s has a copy finding from a roster typo", s.Learner)
		}
	}
	return out, e
}
