package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// grade --export writes Canvas's gradebook import CSV and Moodle's grade
// import CSV next to OUT; a Canvas file marked LATE is named in
// grades.csv and the summary.
func TestGradeCLIExportLMS(t *testing.T) {
	c := newClassroom(t, "id,姓名,email,lms_id,section\nalice,张敏,a@x.edu,10001,S1\nbob,\"Wang, Qiang\",b@x.edu,10002,S1\ncarol,李娜,c@x.edu,10003,S2\n", map[string]*card.Card{
		"alice": {}, "bob": {},
	})
	read := func(id string) []byte {
		b, err := os.ReadFile(filepath.Join(c.sub, id, "06-deliverable.ipynb"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	z := filepath.Join(c.dir, "canvas.zip")
	canvasZip(t, z, map[string][]byte{
		"zhangmin_10001_90001_06-deliverable.ipynb":       read("alice"),
		"wangqiang_LATE_10002_90002_06-deliverable.ipynb": read("bob"),
	})
	out := filepath.Join(c.dir, "graded")
	cv, md := filepath.Join(c.dir, "canvas.csv"), filepath.Join(c.dir, "moodle.csv")
	code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out,
		"--export", "canvas="+cv, "--export", "moodle="+md, "--lms-column", "Unit 1 deliverable (4567)", z)
	if code != 0 || !strings.Contains(o, "wrote "+cv+" (canvas gradebook import)") {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	total := map[string]string{}
	for _, r := range g[1:] {
		total[r[gc["id"]]] = r[gc["total"]]
		if late := strings.Contains(r[gc["status"]], "late (LMS)"); late != (r[gc["id"]] == "bob") {
			t.Errorf("grades.csv status of %s: %q", r[gc["id"]], r[gc["status"]])
		}
	}
	if sm, _ := os.ReadFile(filepath.Join(out, "summary.md")); !strings.Contains(string(sm), "逾期提交") || !strings.Contains(string(sm), "bob：canvas.zip:wangqiang\\_LATE\\_") {
		t.Errorf("summary.md does not name the late file:\n%s", sm)
	}
	canvas, _ := os.ReadFile(cv)
	lines := strings.Split(string(canvas), "\n")
	if len(lines) != 6 || lines[0] != "Student,ID,SIS User ID,SIS Login ID,Section,Unit 1 deliverable (4567)" ||
		lines[1] != "\"    Points Possible\",,,,,48" ||
		lines[2] != "张敏,10001,alice,,S1,"+total["alice"] ||
		lines[3] != "\"Wang, Qiang\",10002,bob,,S1,"+total["bob"] ||
		lines[4] != "李娜,10003,carol,,S2," {
		t.Errorf("canvas.csv:\n%s", canvas)
	}
	moodle, _ := os.ReadFile(md)
	if want := "Email address,Full name,Unit 1 deliverable (4567)\na@x.edu,张敏," + total["alice"] + "\n"; !strings.HasPrefix(string(moodle), want) || strings.Count(string(moodle), "\n") != 4 {
		t.Errorf("moodle.csv:\n%s\nwant it to start with:\n%s", moodle, want)
	}
	if total["alice"] == "" {
		t.Error("alice has no total")
	}
	// A bad --export value stops before anything is graded.
	code, _, e = runCLI(t, "grade", "--key-file", c.key, "--roster", c.roster, "--out", filepath.Join(c.dir, "never"), "--export", "blackboard="+cv, z)
	if code != 2 || !strings.Contains(e, "canvas or moodle") {
		t.Errorf("--export blackboard: exit %d\n%s", code, e)
	}
}

// The export's warning about totals still waiting for manual review says
// what to do in the flow that carries typed scores forward by itself:
// type the blank scores in manual-review.csv, grade again and export
// again. Before, it said "merge the scores (--manual)", as though typed
// scores were elsewhere and not yet merged.
func TestGradeCLIExportPendingSaysWhereToScore(t *testing.T) {
	c := newClassroom(t, "id,email,lms_id\nalice,a@x.edu,10001\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。"},
	})
	out := filepath.Join(c.dir, "graded")
	code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, "--export", "moodle="+filepath.Join(c.dir, "moodle.csv"), c.sub)
	if code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	want := "--export moodle: 1 learner's totals do not include the points still waiting for manual review (alice): type the blank scores of their rows in " + filepath.Join(out, "manual-review.csv") + ", grade again and export again"
	if !strings.Contains(e, want) || strings.Contains(e, "--manual") {
		t.Errorf("stderr lacks %q (or names --manual):\n%s", want, e)
	}
}
