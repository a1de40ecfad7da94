package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// privateClass is a released class of five, handed in as a Moodle
// download: bob's account hands in alice's executed notebook (a copy),
// carol and dave give the same free-text answer word for word.
type privateLearner struct{ id, name, lms, person string }

var privateRoster = []privateLearner{
	{"alice", "张敏", "10001", "Zhang Min"},
	{"bob", "王强", "10002", "Wang Qiang"},
	{"carol", "李娜", "10003", "Li Na"},
	{"dave", "赵磊", "10004", "Zhao Lei"},
	{"erin", "陈静", "10005", "Chen Jing"},
}

// Learner-facing files (feedback/*.md|html, results/*.json, Gradescope's
// results.json) never name another learner (id, roster name, LMS account
// number or LMS name) nor state a suspicion about them; the copy and the
// identical answers are still in the instructor's outputs.
func TestGradeCLILearnerFilesArePrivate(t *testing.T) {
	rosterCSV := "id,name,lms_id\n"
	for _, l := range privateRoster {
		rosterCSV += l.id + "," + l.name + "," + l.lms + "\n"
	}
	same := "排队：有请求在首字前等待超过了一秒，所以首字时间的尾部变长。"
	c := newClassroom(t, rosterCSV, map[string]*card.Card{
		"alice": {CounterEvidence: "超时的请求没有首字，它们也在分母里。"},
		"bob":   {CounterEvidence: "GPU 很忙。"},
		"carol": {CounterEvidence: same},
		"dave":  {CounterEvidence: same},
		"erin":  {CounterEvidence: "我看了服务端的队列长度。"},
	})
	read := func(id string) []byte {
		b, err := os.ReadFile(filepath.Join(c.sub, id, "06-deliverable.ipynb"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	entries := map[string][]byte{}
	for _, l := range privateRoster {
		nb := read(l.id)
		if l.id == "bob" {
			nb = read("alice") // bob hands in alice's notebook
		}
		entries[l.person+"_"+l.lms+"_assignsubmission_file_/06-deliverable.ipynb"] = nb
	}
	z := filepath.Join(c.dir, "moodle.zip")
	canvasZip(t, z, entries)
	out := filepath.Join(c.dir, "graded")
	if code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, z); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	suspicion := []string{"抄袭", "别人", "另一位", "相同", "一字不差", "两个人", "另一个 LMS 账号"}
	check := func(owner, file, text string) {
		t.Helper()
		for _, l := range privateRoster {
			if l.id == owner {
				continue
			}
			for _, s := range []string{l.id, l.name, l.lms, l.person} {
				if strings.Contains(text, s) {
					t.Errorf("%s (for %s) names %s's %q", file, owner, l.id, s)
				}
			}
		}
		for _, s := range suspicion {
			if strings.Contains(text, s) {
				t.Errorf("%s (for %s) states a suspicion (%q)", file, owner, s)
			}
		}
	}
	n := 0
	for _, dir := range []string{"feedback", "results"} {
		ents, err := os.ReadDir(filepath.Join(out, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, en := range ents {
			owner, _, _ := strings.Cut(strings.TrimSuffix(en.Name(), filepath.Ext(en.Name())), "~")
			b, _ := os.ReadFile(filepath.Join(out, dir, en.Name()))
			check(owner, dir+"/"+en.Name(), string(b))
			n++
		}
	}
	if n < 15 {
		t.Fatalf("only %d learner-facing files", n)
	}

	// Gradescope: alice's notebook from bob's account.
	meta := `{"id": 1, "users": [{"email": "bob@x.edu", "name": "Wang Qiang", "sid": "bob"}]}`
	root := gsFakeRoot(t, c, read("alice"), meta)
	if code, o, e := runCLI(t, "grade", "--gradescope", root); code != 0 {
		t.Fatalf("gradescope: exit %d\n%s%s", code, o, e)
	}
	_, raw := gsResults(t, root)
	check("bob", "gradescope results.json", raw)

	// The instructor still has the findings: the copy (alice's record from
	// bob's account) and the identical answers, by name.
	for _, f := range []string{"summary.md", "summary.html", "class.html"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if !strings.Contains(s, "alice") || !strings.Contains(s, "bob") || !strings.Contains(s, "抄袭") {
			t.Errorf("%s lost the copy finding", f)
		}
		if !strings.Contains(s, "carol") || !strings.Contains(s, "dave") || !strings.Contains(s, "相同") {
			t.Errorf("%s lost the identical answers", f)
		}
	}
	m, col := manualByLearner(t, filepath.Join(out, "manual-review.csv"))
	if r := m["carol/text.counter_evidence"]; r == nil || !strings.Contains(r[col["note"]], "dave") {
		t.Errorf("manual-review.csv has no same-answer note for carol: %v", r)
	}
}
