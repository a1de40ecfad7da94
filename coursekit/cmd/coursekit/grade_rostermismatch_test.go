package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
)

// pinyinClass is a class whose roster has Chinese names, student-number
// emails and s12's and s13's lms_id swapped (a typo), handed in as a
// Canvas zip whose LMS names are pinyin: nothing but the roster's lms_id
// says whose account is whose. It returns the classroom and the zip.
func pinyinClass(t *testing.T) (*classroom, string) {
	t.Helper()
	c := newClassroom(t, "id,name,email,lms_id\n"+
		"s12,郑强,20231201@stu.uni.edu.cn,1013\n"+
		"s13,冯雪,20231301@stu.uni.edu.cn,1012\n"+
		"s14,何伟,20231401@stu.uni.edu.cn,1014\n", map[string]*card.Card{
		"s12": {Clock: "client", Attempts: 10, CounterEvidence: "排队：有请求在首字前等待超时。"},
		"s13": {Clock: "server", CounterEvidence: "GPU 很忙，但有请求在首字前超时。"},
		"s14": {Clock: "client", Attempts: 10, CounterEvidence: "队列在涨。"},
	})
	z := filepath.Join(c.dir, "canvas.zip")
	canvasZip(t, z, map[string][]byte{
		"zhengqiang_1012_5012_06-deliverable.ipynb": c.handedIn(t, "s12"),
		"fengxue_1013_5013_06-deliverable.ipynb":    c.handedIn(t, "s13"),
		"hewei_1014_5014_06-deliverable.ipynb":      c.handedIn(t, "s14"),
	})
	return c, z
}

// A roster typo accuses nobody, also when the LMS names cannot be read as
// the roster's names (pinyin for Chinese names): s12's and s13's lms_id
// are swapped, and each signed record came in once. Both are graded as
// their own work by the signed record, with the scores they get when
// the roster is right; nobody gets "not own submission" or a copy
// finding; the instructor gets a private roster-mismatch finding and a
// warning that says what counted for both; no learner's file names the
// other learner, their account or their LMS file. The Canvas export
// leaves the two rows out, saying so, instead of putting each grade on
// the other learner's account. Graded twice, as an instructor would.
func TestGradeCLIPinyinRosterTypoAccusesNobody(t *testing.T) {
	c, z := pinyinClass(t)
	fixed := filepath.Join(c.dir, "roster-fixed.csv")
	os.WriteFile(fixed, []byte("id,name,email,lms_id\ns12,郑强,20231201@stu.uni.edu.cn,1012\ns13,冯雪,20231301@stu.uni.edu.cn,1013\ns14,何伟,20231401@stu.uni.edu.cn,1014\n"), 0o644)
	right := filepath.Join(c.dir, "right")
	if code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", fixed, "--out", right, z); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	want, wc := csvRows(t, filepath.Join(right, "grades.csv"))

	out := filepath.Join(c.dir, "graded")
	export := filepath.Join(c.dir, "canvas-grades.csv")
	for run := 1; run <= 2; run++ {
		code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, "--export", "canvas="+export, z)
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", run, code, o, e)
		}
		g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
		for i, r := range g[1:] {
			id := r[gc["id"]]
			if !strings.HasPrefix(r[gc["status"]], "graded") || r[gc["total"]] != want[i+1][wc["total"]] {
				t.Errorf("run %d: %s: total %q (%s), want %q as with the right roster", run, id, r[gc["total"]], r[gc["status"]], want[i+1][wc["total"]])
			}
		}
		for _, s := range gradedSubs(t, out) {
			if hasCopyFinding(s) || s.ReasonCode == grader.ReasonNotOwn {
				t.Errorf("run %d: %s (%s) is accused by a roster typo: %s %+v", run, s.Learner, s.Name, s.ReasonCode, s.Integrity)
			}
			mismatch := slices.ContainsFunc(s.Integrity, func(f integrity.Finding) bool { return f.Code == grader.FindRosterMismatch && f.Private })
			if mismatch != (s.Learner != "s14") {
				t.Errorf("run %d: %s: roster-mismatch finding %v: %+v", run, s.Learner, mismatch, s.Integrity)
			}
		}
		for _, w := range []string{"roster's lms_id", "check the lms_id of s12 and s13", "it counts for s12", "it counts for s13", "swapped"} {
			if !strings.Contains(e, w) {
				t.Errorf("run %d: stderr lacks %q:\n%s", run, w, e)
			}
		}
		for _, bad := range []string{"copy finding for both", "no own submission", "两人都有抄袭线索"} {
			if strings.Contains(e, bad) {
				t.Errorf("run %d: stderr says %q:\n%s", run, bad, e)
			}
		}
		shortWarningLines(t, e)
		sum, _ := os.ReadFile(filepath.Join(out, "summary.md"))
		if !strings.Contains(string(sum), "名单可能有误") {
			t.Errorf("run %d: summary.md does not report the roster mismatch", run)
		}
		noClassmate(t, out, map[string][]string{
			"s12": {"s13", "s14", "1013", "fengxue", "冯雪", "20231301"},
			"s13": {"s12", "s14", "1012", "zhengqiang", "郑强", "20231201"},
			"s14": {"s12", "s13", "fengxue", "zhengqiang"},
		})
		// The Canvas export: s14's row, not s12's and s13's.
		x, xc := csvRows(t, export)
		var ids []string
		for _, r := range x[2:] {
			ids = append(ids, r[xc["SIS User ID"]])
		}
		if !slices.Equal(ids, []string{"s14"}) {
			t.Errorf("run %d: the Canvas export has rows %v, want s14 only", run, ids)
		}
		if !strings.Contains(e, "LEFT OUT 2 rows, s12, s13") || !strings.Contains(e, "Fix lms_id in the roster") {
			t.Errorf("run %d: no warning about the rows left out of the export:\n%s", run, e)
		}
	}
}

// noClassmate fails when a file a learner receives (feedback and results
// in OUT) contains any of the strings given for them: another learner's
// id, name, account number, LMS name or email.
func noClassmate(t *testing.T, out string, others map[string][]string) {
	t.Helper()
	for id, bad := range others {
		for _, f := range []string{"feedback/" + id + ".md", "feedback/" + id + ".html", "results/" + id + ".json"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			if os.IsNotExist(err) && strings.HasPrefix(f, "results/") {
				continue // a held file has no results.json (TestGradeCLIHeldFileHasNoGradescopeScore)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range append(bad, "抄袭", "不是发给你的") {
				pat := regexp.QuoteMeta(x)
				if regexp.MustCompile(`^s\d+$`).MatchString(x) {
					pat = `(^|[^A-Za-z0-9])` + pat + `($|[^0-9])`
				}
				if loc := regexp.MustCompile(pat).FindStringIndex(string(b)); loc != nil {
					t.Errorf("%s names %q: …%s…", f, x, b[max(0, loc[0]-80):min(len(b), loc[1]+80)])
				}
			}
		}
	}
}

// After a roster typo the grader detected (alice's and bob's lms_id
// swapped; each Moodle folder carries its learner's own name and signed
// notebook), the Canvas export never puts a grade on the other learner's
// account: alice's and bob's rows are left out, and a warning names
// them and says to fix the roster. carol's row is exported as usual.
func TestGradeCLIExportLeavesOutRosterMismatch(t *testing.T) {
	c := newClassroom(t, "id,name,lms_id\nalice,Zhang Min,10002\nbob,Wang Qiang,10001\ncarol,Li Na,10003\n", map[string]*card.Card{
		"alice": {Clock: "client", Attempts: 10, CounterEvidence: "排队：有请求在首字前等待超时。"},
		"bob":   {CounterEvidence: "GPU 很忙。"},
		"carol": {Clock: "client", CounterEvidence: "超时。"},
	})
	z := threeMoodleFolders(t, c)
	out := filepath.Join(c.dir, "graded")
	export := filepath.Join(c.dir, "canvas.csv")
	for run := 1; run <= 2; run++ {
		code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, "--export", "canvas="+export, z)
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", run, code, o, e)
		}
		x, xc := csvRows(t, export)
		rows := map[string]string{}
		for _, r := range x[2:] {
			rows[r[xc["SIS User ID"]]] = r[xc["ID"]]
		}
		if len(rows) != 1 || rows["carol"] != "10003" {
			t.Errorf("run %d: the Canvas export's rows (SIS User ID → ID): %v, want carol only", run, rows)
		}
		if !strings.Contains(e, "LEFT OUT 2 rows, alice, bob") {
			t.Errorf("run %d: no warning naming the rows left out:\n%s", run, e)
		}
	}
}
