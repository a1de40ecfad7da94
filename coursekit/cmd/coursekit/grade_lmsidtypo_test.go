package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
)

// An lms_id typo that matches nobody. The roster has s16's lms_id typed
// 1061 instead of 1016; the Canvas upload guohua_1016 (LMS account 1016,
// whose LMS name is s16's) is s16's own signed notebook. It counts for
// s16 (nobody is accused), but the instructor is told of the roster
// mismatch (stderr and a private roster_lms_id_mismatch finding), and
// the Canvas export leaves s16's row out with its reason, as for swapped
// ids. Before, nothing was said and the export put s16's grade on
// account 1061.
func TestGradeCLILMSIDTypoMatchingNobody(t *testing.T) {
	c, right, _, zips := walkClass(t)
	b, _ := os.ReadFile(right)
	typo := filepath.Join(c.dir, "roster-typo.csv")
	os.WriteFile(typo, []byte(strings.Replace(string(b), "s16,Guo Hua,s16@x.edu,1016", "s16,Guo Hua,s16@x.edu,1061", 1)), 0o644)
	want, wc := csvRows(t, gradeWalk(t, c, right, filepath.Join(c.dir, "graded-right"), "", zips))
	out, export := filepath.Join(c.dir, "graded-typo"), filepath.Join(c.dir, "canvas-typo.csv")
	var e string
	g, gc := csvRows(t, gradeWalk(t, c, typo, out, export, zips, &e))
	for i, r := range g[1:] {
		if r[gc["id"]] == "s16" && (r[gc["total"]] != want[i+1][wc["total"]] || !strings.HasPrefix(r[gc["status"]], "graded")) {
			t.Errorf("s16: %q (%s), want %q as with the right roster", r[gc["total"]], r[gc["status"]], want[i+1][wc["total"]])
		}
	}
	for _, s := range gradedSubs(t, out) {
		mismatch := slices.ContainsFunc(s.Integrity, func(f integrity.Finding) bool { return f.Code == grader.FindRosterMismatch && f.Private })
		if s.Learner == "s11" || s.Learner == "s12" {
			continue // s12 hands in s11's notebook: a copy, judged as such
		}
		if mismatch != (s.Learner == "s16") || hasCopyFinding(s) || s.ReasonCode == grader.ReasonNotOwn {
			t.Errorf("%s (%s): roster-mismatch finding %v, copy finding %v, reason %s", s.Learner, s.Name, mismatch, hasCopyFinding(s), s.ReasonCode)
		}
	}
	var w string
	for _, b := range warningBlocks(e) {
		if strings.Contains(b, "canvas.zip:guohua_1016") && strings.Contains(b, "lms_id") {
			w = b
		}
	}
	shortWarningLines(t, e)
	for _, want := range []string{"LMS account 1016", "the roster's lms_id for s16 is 1061", "counts for s16", "check the lms_id of s16"} {
		if !strings.Contains(w, want) {
			t.Errorf("the roster-mismatch warning lacks %q:\n%s", want, e)
		}
	}
	if !strings.Contains(e, "LEFT OUT 1 row, s16") || !strings.Contains(e, "s16 (account 1016") {
		t.Errorf("no note that s16's row is left out of the Canvas export, with why:\n%s", e)
	}
	x, xc := csvRows(t, export)
	for _, r := range x[2:] {
		if r[xc["SIS User ID"]] == "s16" || r[xc["ID"]] == "1061" {
			t.Errorf("the Canvas export has %v", r)
		}
	}
	sum, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if !strings.Contains(string(sum), `名单里 s16 的 lms\_id 是 1061`) {
		t.Errorf("summary.md does not report the roster mismatch:\n%s", sum)
	}
	noClassmate(t, out, map[string][]string{"s16": {"1061"}})
}
