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
// accounts).
func TestGradeCLIRosterTypoAccusesNobody(t *testing.T) {
	c := newClassroom(t, "id,name,lms_id\nalice,Zhang Min,10002\nbob,Wang Qiang,10001\ncarol,Li Na,10003\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。"},
		"bob":   {CounterEvidence: "GPU 很忙。"},
		"carol": {CounterEvidence: "超时。"},
	})
	z := threeMoodleFolders(t, c)
	out := filepath.Join(c.dir, "graded")
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
