package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// Roster cells a spreadsheet would run as a formula (a name
// =HYPERLINK(...), +李华, an email -lihua@...) are written into grades.csv
// with a ' in front, as every CSV for people is. The LMS export files
// write identifiers as they are (a ' in front would match nobody in
// Moodle or Canvas): a row whose identifier starts with = + - or @ is left
// out, and a warning names it; names there are shown as text. Graded
// twice.
func TestGradeCLIFormulaCellsInRoster(t *testing.T) {
	c := newClassroom(t, "id,name,email,sis_login_id\n"+
		`s01,"=HYPERLINK(""http://evil.example"",""点我"")",s01@uni.edu,s01login`+"\n"+
		"s02,+李华,-lihua@uni.edu,s02login\n"+
		"s03,王小明,wxm@uni.edu,@wxm\n", map[string]*card.Card{
		"s01": {Clock: "client"}, "s02": {Clock: "client"}, "s03": {Clock: "client"},
	})
	out := filepath.Join(c.dir, "graded")
	moodle, canvas := filepath.Join(c.dir, "moodle.csv"), filepath.Join(c.dir, "canvas.csv")
	for run := 1; run <= 2; run++ {
		code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, "--export", "moodle="+moodle, "--export", "canvas="+canvas, c.sub)
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", run, code, o, e)
		}
		g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
		want := map[string][2]string{
			"s01": {`'=HYPERLINK("http://evil.example","点我")`, "s01@uni.edu"},
			"s02": {"'+李华", "'-lihua@uni.edu"},
			"s03": {"王小明", "wxm@uni.edu"},
		}
		for _, r := range g[1:] {
			if w := want[r[gc["id"]]]; r[gc["name"]] != w[0] || r[gc["email"]] != w[1] {
				t.Errorf("run %d: grades.csv %s: name %q email %q, want %q %q", run, r[gc["id"]], r[gc["name"]], r[gc["email"]], w[0], w[1])
			}
			if r[gc["id"]] == "s03" && r[gc["sis_login_id"]] != "'@wxm" {
				t.Errorf("run %d: grades.csv s03 sis_login_id %q", run, r[gc["sis_login_id"]])
			}
		}
		m, mc := csvRows(t, moodle)
		var emails []string
		for _, r := range m[1:] {
			emails = append(emails, r[mc["Email address"]])
			if r[mc["Email address"]] == "s01@uni.edu" && r[mc["Full name"]] != `'=HYPERLINK("http://evil.example","点我")` {
				t.Errorf("run %d: moodle.csv shows the name %q", run, r[mc["Full name"]])
			}
		}
		if strings.Join(emails, " ") != "s01@uni.edu wxm@uni.edu" {
			t.Errorf("run %d: moodle.csv emails %q, want s01's and s03's as they are (s02's left out)", run, emails)
		}
		x, xc := csvRows(t, canvas)
		var logins []string
		for _, r := range x[2:] {
			logins = append(logins, r[xc["SIS Login ID"]])
		}
		if strings.Join(logins, " ") != "s01login s02login" {
			t.Errorf("run %d: canvas.csv SIS Login IDs %q, want s01's and s02's (s03's left out)", run, logins)
		}
		for _, w := range []string{"--export moodle: LEFT OUT 1 row whose identifier starts with", `s02 (email "-lihua@uni.edu")`, "--export canvas: LEFT OUT 1 row", `s03 (SIS Login ID "@wxm")`} {
			if !strings.Contains(e, w) {
				t.Errorf("run %d: stderr lacks %q:\n%s", run, w, e)
			}
		}
	}
	if b, _ := os.ReadFile(moodle); strings.HasPrefix(string(b), "\ufeff") {
		t.Error("moodle.csv has a BOM")
	}
}
