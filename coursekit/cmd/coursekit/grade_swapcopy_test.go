package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
)

// walkNames are the class of the instructor walk: s01–s08 hand in on
// Moodle, s09–s16 on Canvas.
var walkNames = []string{"Li Na", "Wang Fang", "Zhang Wei", "Liu Yang", "Chen Jing", "Yang Min", "Zhao Lei", "Huang Li",
	"Zhou Jie", "Xu Ming", "Zhou Tao", "Wu Xia", "Sun Li", "Ma Jun", "Hu Bin", "Guo Hua"}

// walkClass is a released class of 16 with rosters whose lms_id are right
// and whose lms_id of s11 and s12 are swapped, and the LMS downloads the
// walk graded: subs/moodle.zip (s01–s08, Moodle folders), subs/canvas.zip
// (s09–s16; s12 hands in s11's notebook from their own account, a copy)
// and late/canvas-late.zip (s16's second, late file). It returns the
// classroom, both rosters and the three zips.
func walkClass(t *testing.T) (c *classroom, right, swapped string, zips []string) {
	t.Helper()
	roster := func(swap bool) string {
		var b strings.Builder
		b.WriteString("id,name,email,lms_id\n")
		for i, n := range walkNames {
			id, acct := fmt.Sprintf("s%02d", i+1), 1001+i
			if swap && id == "s11" {
				acct = 1012
			} else if swap && id == "s12" {
				acct = 1011
			}
			fmt.Fprintf(&b, "%s,%s,%s@x.edu,%d\n", id, n, id, acct)
		}
		return b.String()
	}
	cards := map[string]*card.Card{}
	for i := range walkNames {
		id := fmt.Sprintf("s%02d", i+1)
		cards[id] = &card.Card{Clock: "client", Attempts: 10 + i, CounterEvidence: fmt.Sprintf("排队：有请求在首字前等待超时（%s 的答案）。", id)}
	}
	cards["s11"].PercentileMethod = "nearest-rank" // s11 scores apart from s12
	c = newClassroom(t, roster(false), cards)
	right, swapped = c.roster, filepath.Join(c.dir, "roster-swap.csv")
	os.WriteFile(swapped, []byte(roster(true)), 0o644)
	moodle, canvas := map[string][]byte{}, map[string][]byte{}
	for i, n := range walkNames {
		id, acct := fmt.Sprintf("s%02d", i+1), 1001+i
		if i < 8 {
			moodle[fmt.Sprintf("%s_%d_assignsubmission_file_/06-deliverable.ipynb", n, acct)] = c.handedIn(t, id)
			continue
		}
		from := id
		if id == "s12" {
			from = "s11" // the copy
		}
		canvas[fmt.Sprintf("%s_%d_5%04d_06-deliverable.ipynb", strings.ToLower(strings.ReplaceAll(n, " ", "")), acct, acct)] = c.handedIn(t, from)
	}
	os.MkdirAll(filepath.Join(c.dir, "subs"), 0o755)
	os.MkdirAll(filepath.Join(c.dir, "late"), 0o755)
	zips = []string{filepath.Join(c.dir, "subs", "moodle.zip"), filepath.Join(c.dir, "subs", "canvas.zip"), filepath.Join(c.dir, "late", "canvas-late.zip")}
	canvasZip(t, zips[0], moodle)
	canvasZip(t, zips[1], canvas)
	canvasZip(t, zips[2], map[string][]byte{"guohua_LATE_1016_61016_06-deliverable.ipynb": c.handedIn(t, "s16")})
	return c, right, swapped, zips
}

// The walk's worst finding. The roster swaps the lms_id of s11 and s12,
// and s12 hands in s11's notebook from their own Canvas account: s11's
// record comes from account 1011 (LMS name zhoutao, s12's by the roster)
// and from 1012 (wuxia, s11's by the roster). The LMS names contradict
// the roster on both accounts, so grade makes no ruling on whose upload
// is a copy: nobody gets a copy finding or "not own submission"; s11's
// row counts the upload from the account whose LMS name is s11's, with
// the score the right roster gives; s12's row holds the other upload,
// not graded; both files get a private roster-mismatch finding; one
// warning says what counted for both and to check both lms_id; the
// Canvas export leaves both rows out, saying so; no learner's feedback
// shows another account's file name (each is shown a neutral name for
// their own file). Before, the warning said "s12 handed in
// zhoutao_1011…, which is s11's notebook", s11's row counted the copy,
// and the Canvas file put 40 on the copier's account. Once the roster is
// fixed, the copy is judged as such. Graded twice, as an instructor
// would.
func TestGradeCLISwappedRosterAndCopy(t *testing.T) {
	c, right, swapped, zips := walkClass(t)
	want, wc := csvRows(t, gradeWalk(t, c, right, filepath.Join(c.dir, "graded-right"), "", zips))
	rightTotal := map[string]string{}
	for _, r := range want[1:] {
		rightTotal[r[wc["id"]]] = r[wc["total"]]
	}
	out, export := filepath.Join(c.dir, "graded-swap"), filepath.Join(c.dir, "c3.csv")
	for run := 1; run <= 2; run++ {
		var e string
		g, gc := csvRows(t, gradeWalk(t, c, swapped, out, export, zips, &e))
		for _, r := range g[1:] {
			id, status := r[gc["id"]], r[gc["status"]]
			switch id {
			case "s11":
				if !strings.HasPrefix(status, "graded") || r[gc["total"]] != rightTotal["s11"] {
					t.Errorf("run %d: s11: total %q (%s), want %q as with the right roster", run, r[gc["total"]], status, rightTotal["s11"])
				}
			case "s12":
				if strings.HasPrefix(status, "graded") || strings.Contains(status, grader.ReasonNotOwn) || !strings.Contains(status, grader.ReasonRosterHeld) {
					t.Errorf("run %d: s12's row: %q, want the upload held", run, status)
				}
			}
		}
		for _, s := range gradedSubs(t, out) {
			if hasCopyFinding(s) || s.ReasonCode == grader.ReasonNotOwn {
				t.Errorf("run %d: %s (%s) is accused while the roster contradicts the LMS: %s %+v", run, s.Learner, s.Name, s.ReasonCode, s.Integrity)
			}
			mismatch := slices.ContainsFunc(s.Integrity, func(f integrity.Finding) bool { return f.Code == grader.FindRosterMismatch && f.Private })
			if mismatch != (s.Learner == "s11" || s.Learner == "s12") {
				t.Errorf("run %d: %s (%s): roster-mismatch finding %v", run, s.Learner, s.Name, mismatch)
			}
			if s.Learner == "s11" && (!strings.Contains(s.Name, "zhoutao_1011") || s.SupersededBy != "") {
				t.Errorf("run %d: s11's row counts %s (superseded by %q), not s11's own upload zhoutao_1011", run, s.Name, s.SupersededBy)
			}
		}
		var w []string
		for _, b := range warningBlocks(e) {
			if strings.Contains(b, "s11") {
				w = append(w, b)
			}
		}
		shortWarningLines(t, e)
		all := strings.Join(w, "\n")
		for _, want := range []string{"1011", "1012", "check the lms_id of s11 and s12", "counts for s11", "LEFT OUT 2 rows, s11, s12"} {
			if !strings.Contains(all, want) {
				t.Errorf("run %d: the warnings about s11 lack %q:\n%s", run, want, all)
			}
		}
		for _, bad := range []string{"which is s11's notebook", "copy finding for", "came in only in this file", "no own submission"} {
			if strings.Contains(all, bad) {
				t.Errorf("run %d: a warning says %q:\n%s", run, bad, all)
			}
		}
		noClassmate(t, out, map[string][]string{
			"s11": {"s12", "1011", "1012", "wuxia", "Wu Xia", "zhoutao"},
			"s12": {"s11", "1011", "1012", "zhoutao", "Zhou Tao", "wuxia"},
		})
		x, xc := csvRows(t, export)
		var ids []string
		for _, r := range x[2:] {
			ids = append(ids, r[xc["SIS User ID"]])
		}
		if slices.Contains(ids, "s11") || slices.Contains(ids, "s12") || len(ids) != 14 {
			t.Errorf("run %d: the Canvas export's rows %v, want all but s11 and s12", run, ids)
		}
	}
	// The roster fixed: the copy is judged, and both rows are exported.
	var e string
	g, gc := csvRows(t, gradeWalk(t, c, right, out, export, zips, &e))
	for _, r := range g[1:] {
		if r[gc["id"]] == "s12" && !strings.Contains(r[gc["status"]], grader.ReasonNotOwn) {
			t.Errorf("fixed roster: s12's row %q, want not own", r[gc["status"]])
		}
	}
	if !strings.Contains(e, "s12 handed in subs/canvas.zip:wuxia_1012") && !strings.Contains(e, "s12 handed in canvas.zip:wuxia_1012") {
		t.Errorf("fixed roster: no warning that s12 handed in s11's notebook:\n%s", e)
	}
}

// gradeWalk grades zips with roster into out (exporting to Canvas when
// export is not ""), fails on a non-zero exit, puts stderr in *stderr
// when given, and returns grades.csv's path.
func gradeWalk(t *testing.T, c *classroom, roster, out, export string, zips []string, stderr ...*string) string {
	t.Helper()
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", roster, "--out", out}
	if export != "" {
		args = append(args, "--export", "canvas="+export)
	}
	code, o, e := runCLI(t, append(args, zips...)...)
	if code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	if len(stderr) > 0 {
		*stderr[0] = e
	}
	return filepath.Join(out, "grades.csv")
}

// The warnings of a swap run agree. The roster swaps the lms_id of s11
// and s12, each hands in their own notebook from their own account (a
// swap without a copy), and s13 hands in s11's notebook from their own
// account, which the roster has right (a copy). s11's roster-mismatch
// warning must not say that s11's record "came in only in this file" or
// that nobody gets a copy finding, while the next warning says s13
// handed in s11's notebook with a copy finding for both: it names the
// copy instead. s12's warning still says the two files look swapped.
func TestGradeCLISwapWarningsAgreeWithACopy(t *testing.T) {
	c, _, swapped, zips := walkClass(t)
	canvas := map[string][]byte{
		"zhoutao_1011_51011_06-deliverable.ipynb": c.handedIn(t, "s11"),
		"wuxia_1012_51012_06-deliverable.ipynb":   c.handedIn(t, "s12"),
		"sunli_1013_51013_06-deliverable.ipynb":   c.handedIn(t, "s11"),
	}
	canvasZip(t, zips[1], canvas)
	var e string
	out := filepath.Join(c.dir, "graded")
	gradeWalk(t, c, swapped, out, "", zips[:2], &e)
	var s11, copyWarn string
	for _, b := range warningBlocks(e) {
		switch {
		case strings.Contains(b, "canvas.zip:zhoutao_1011_51011_06-deliverable.ipynb is graded") && strings.Contains(b, "lms_id"):
			s11 = b
		case strings.Contains(b, "s13 handed in canvas.zip:sunli_1013"):
			copyWarn = b
		}
	}
	if s11 == "" || copyWarn == "" {
		t.Fatalf("premise: no roster-mismatch warning for s11's file or no copy warning:\n%s", e)
	}
	for _, bad := range []string{"came in only in this file", "nobody gets a copy finding"} {
		if strings.Contains(s11, bad) {
			t.Errorf("s11's warning says %q while another says s13 handed in s11's notebook:\n%s\n%s", bad, s11, copyWarn)
		}
	}
	if !strings.Contains(s11, "also came in as canvas.zip:sunli_1013") || !strings.Contains(s11, "it counts for s11") {
		t.Errorf("s11's warning does not name the copy:\n%s", s11)
	}
	if !strings.Contains(e, "the two files look swapped") {
		t.Errorf("no warning says s11's and s12's files look swapped:\n%s", e)
	}
}
