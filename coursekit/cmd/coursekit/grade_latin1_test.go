package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// A roster saved as Latin-1 (Windows-1252) is valid GB18030 byte for
// byte ("Renée" reads "Ren閑"): grade and assign both stop with
// FILE:LINE and how the line reads as Latin-1, and write nothing; before,
// grades.csv said "Ren閑 Dupont". A roster saved as GB18030 (Excel's
// "CSV (逗号分隔)" on Chinese Windows) is read by both, and assign warns
// as grade does.
func TestGradeCLILatin1RosterStops(t *testing.T) {
	c := newClassroom(t, "id,name,email\ns01,Renee Dupont,s01@x.edu\ns02,Wang Fang,s02@x.edu\n", map[string]*card.Card{
		"s01": {CounterEvidence: "排队：有请求在首字前等待超时。"},
		"s02": {CounterEvidence: "GPU 很忙。"},
	})
	latin1 := filepath.Join(c.dir, "roster-latin1.csv")
	os.WriteFile(latin1, []byte("id,name,email\r\ns01,Ren\xe9e Dupont,s01@x.edu\r\ns02,Wang Fang,s02@x.edu\r\n"), 0o644)
	out := filepath.Join(c.dir, "graded")
	rel := filepath.Join(c.dir, "release2")
	for name, args := range map[string][]string{
		"grade":  {"grade", "--quiet", "--key-file", c.key, "--roster", latin1, "--out", out, c.sub},
		"assign": {"assign", "--key-file", c.key, "--roster", latin1, "--out", rel, "--notebook", deliverable},
	} {
		code, o, e := runCLI(t, args...)
		if code != 2 || !strings.Contains(e, latin1+":2:") || !strings.Contains(e, "Latin-1") || !strings.Contains(e, "Renée Dupont") {
			t.Errorf("%s: exit %d, want 2 and %s:2: … Latin-1 … Renée Dupont\n%s%s", name, code, latin1, o, e)
		}
	}
	// A file in neither encoding (0xff is no GB18030 lead byte) is refused the
	// same way, and the message names no command but the one that was run.
	bad := filepath.Join(c.dir, "roster-bad.csv")
	os.WriteFile(bad, []byte("id,name\ns01,x\xff\n"), 0o644)
	if code, o, e := runCLI(t, "assign", "--key-file", c.key, "--roster", bad, "--out", rel, "--notebook", deliverable); code != 2 || !strings.Contains(e, bad+":2:") || strings.Contains(e, "grade again") {
		t.Errorf("assign with a roster in no known encoding: exit %d, want 2, %s:2: and no \"grade again\"\n%s%s", code, bad, o, e)
	}
	for _, p := range []string{out, rel} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	gbk := filepath.Join(c.dir, "roster-gbk.csv")
	os.WriteFile(gbk, toGBK(t, "id,姓名\ns01,任芮\ns02,王芳\n"), 0o644)
	code, o, e := runCLI(t, "assign", "--key-file", c.key, "--roster", gbk, "--out", rel, "--notebook", deliverable)
	if code != 0 || !strings.Contains(e, gbk+" is not UTF-8: read it as GB18030") {
		t.Errorf("assign with a GB18030 roster: exit %d, want 0 and the warning grade gives\n%s%s", code, o, e)
	}
}
