package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/grader"
)

// s010 uploads s001's executed notebook from their own LMS account, and
// the roster has no lms_id column. s001's record handed in by two LMS
// accounts is a copy finding; the file that counts for s001 is the one
// from s001's own account (told apart by the LMS name matching the
// roster's name, or by the account's other uploads), never the copy, even
// when the copy sorts later, and s001 is not told they handed in two
// files. The copy is s010's "no own submission" when the account is known
// to be s010's, else a row of its own naming the file. When nothing tells
// the accounts apart, every file of the record still has the copy finding
// and a warning names both accounts. The warning about LMS names without
// lms_id reads Moodle folders as well as Canvas file names.
func TestGradeCLILMSCopyWithoutLMSIDs(t *testing.T) {
	const named = "id,name,email\ns001,An Na,s001@x.edu\ns010,Wang Qiang,s010@x.edu\n"
	const unnamed = "id,name,email\ns001,A,s001@x.edu\ns010,B,s010@x.edu\n"
	for _, tc := range []struct {
		name, roster string
		own, copy    string // entries: s001's own upload, the copy
		s010Own      string // s010's own upload, when there is one
		told         bool   // whether the accounts can be told apart
		copier       string // the copy's learner ("": unknown)
		s010Status   string // s010's row
	}{
		{name: "canvas, names on the roster", roster: named, told: true, copier: "s010", s010Status: "ungradable: " + grader.ReasonNotOwn,
			own: "anna_1001_5001_06-deliverable.ipynb", copy: "wangqiang_1010_5010_06-deliverable.ipynb"},
		{name: "moodle folders, names on the roster", roster: named, told: true, copier: "s010", s010Status: "ungradable: " + grader.ReasonNotOwn,
			own: "An Na_1001_assignsubmission_file_/06-deliverable.ipynb", copy: "Wang Qiang_1010_assignsubmission_file_/06-deliverable.ipynb"},
		{name: "canvas, the copier's own upload tells the accounts apart", roster: unnamed, told: true, copier: "s010", s010Status: "graded",
			own: "aaa_1001_5001_06-deliverable.ipynb", copy: "bbb_1010_5010_06-deliverable.ipynb", s010Own: "bbb_1010_5011_06-deliverable.ipynb"},
		{name: "canvas, only the owner's name is on the roster", roster: "id,name,email\ns001,An Na,s001@x.edu\ns010,B,s010@x.edu\n", told: true, s010Status: "no submission",
			own: "anna_1001_5001_06-deliverable.ipynb", copy: "wangqiang_1010_5010_06-deliverable.ipynb"},
		{name: "canvas, nothing tells the accounts apart", roster: unnamed,
			own: "aaa_1001_5001_06-deliverable.ipynb", copy: "bbb_1010_5010_06-deliverable.ipynb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClassroom(t, tc.roster, map[string]*card.Card{
				"s001": {Clock: "client", Attempts: 10, CounterEvidence: "排队：有请求在首字前等待超时。"},
				"s010": {Clock: "server", CounterEvidence: "GPU 很忙。"},
			})
			read := func(id string) []byte {
				b, err := os.ReadFile(filepath.Join(c.sub, id, "06-deliverable.ipynb"))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			entries := map[string][]byte{tc.own: read("s001"), tc.copy: read("s001")}
			if tc.s010Own != "" {
				entries[tc.s010Own] = read("s010")
			}
			z := filepath.Join(c.dir, "lms.zip")
			canvasZip(t, z, entries)
			out := filepath.Join(c.dir, "graded")
			code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, z)
			if code != 0 {
				t.Fatalf("grade: exit %d\n%s%s", code, o, e)
			}
			if !strings.Contains(e, "no lms_id column") {
				t.Errorf("no warning about LMS names without lms_id:\n%s", e)
			}
			byEntry := map[string]grader.Submission{}
			for _, s := range gradedSubs(t, out) {
				byEntry[strings.TrimPrefix(s.Name, "lms.zip:")] = s
			}
			for _, en := range []string{tc.own, tc.copy} {
				if s, ok := byEntry[en]; !ok || !hasCopyFinding(s) {
					t.Errorf("%s has no copy finding: %+v", en, s.Integrity)
				}
			}
			if !tc.told { // loud, for the instructor
				if !strings.Contains(e, "1001") || !strings.Contains(e, "1010") || !strings.Contains(e, "cannot tell") {
					t.Errorf("no warning naming both accounts:\n%s", e)
				}
				return
			}
			g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
			rows := map[string][]string{}
			for _, r := range g[1:] {
				rows[r[gc["id"]]] = r
			}
			if s := byEntry[tc.own]; s.Learner != "s001" || s.SupersededBy != "" || !s.Gradable {
				t.Errorf("s001's own upload does not count: %+v", s)
			}
			if r := rows["s001"]; !strings.HasPrefix(r[gc["status"]], "graded") || strings.Contains(r[gc["status"]], "also handed in") {
				t.Errorf("s001's row: %v", r)
			}
			if fb, _ := os.ReadFile(filepath.Join(out, "feedback", "s001.md")); strings.Contains(string(fb), "一共提交了 2 份") {
				t.Errorf("s001 is told they handed in two files:\n%.600s", fb)
			}
			if s := byEntry[tc.copy]; s.Learner != tc.copier || s.ReasonCode != grader.ReasonNotOwn || s.RecordOf != "s001" {
				t.Errorf("the copy is not %q's \"no own submission\": learner %q, %s, record of %s", tc.copier, s.Learner, s.ReasonCode, s.RecordOf)
			}
			if r := rows["s010"]; !strings.HasPrefix(r[gc["status"]], tc.s010Status) {
				t.Errorf("s010's row: %v", r)
			}
			if r := rows[""]; tc.copier == "" && (r == nil || !strings.Contains(r[gc["status"]], tc.copy)) {
				t.Errorf("the copy from an unknown account has no row of its own: %v", g)
			}
			if tc.s010Own != "" {
				if s := byEntry[tc.s010Own]; s.Learner != "s010" || s.SupersededBy != "" || !hasCopyFinding(s) {
					t.Errorf("s010's own upload: counted %v, findings %+v", s.SupersededBy == "", s.Integrity)
				}
			}
		})
	}
}
