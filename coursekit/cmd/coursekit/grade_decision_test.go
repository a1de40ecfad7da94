package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// A broken file whose total the instructor decided (overrides.csv): the
// decision replaces the request to hand the file in again, for every way
// a file can be broken, also when the request is the tail of a sentence
// ("…（文件不完整）：请重新保存笔记本后再提交。"). Before, a truncated file's
// feedback said "请重新保存笔记本后再提交" above "老师的决定：这份作业计 30/48 分".
func TestGradeCLIDecisionReplacesTheResubmitRequest(t *testing.T) {
	c := newClassroom(t, "id,name,lms_id\ns01,Li Na,1001\ns02,Wang Fang,1002\ns03,Zhang Wei,1003\ns04,Liu Yang,1004\ns05,Chen Jing,1005\n", map[string]*card.Card{
		"s01": {CounterEvidence: "排队：有请求在首字前等待超时。"},
		"s05": {CounterEvidence: "GPU 很忙。"},
	})
	rel := func(id string) []byte {
		b, _ := os.ReadFile(filepath.Join(c.rel, id, "06-deliverable.ipynb"))
		return b
	}
	broken := map[string][]byte{
		"s01": c.handedIn(t, "s01")[:2000],                                                      // truncated JSON
		"s02": []byte(`{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}`), // nbformat 3
		"s03": rel("s03"),                                                                       // the self-check never run
		"s04": compileErrorNotebook(t, c, "s04"),                                                // a compile error
	}
	names := map[string]string{"s01": "Li Na", "s02": "Wang Fang", "s03": "Zhang Wei", "s04": "Liu Yang"}
	entries := map[string][]byte{}
	for id, b := range broken {
		entries[names[id]+"_100"+id[2:]+"_assignsubmission_file_/06-deliverable.ipynb"] = b
	}
	entries["Chen Jing_1005_assignsubmission_file_/06-deliverable.ipynb"] = c.handedIn(t, "s05")
	z := filepath.Join(c.dir, "moodle.zip")
	canvasZip(t, z, entries)
	out := filepath.Join(c.dir, "graded")
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, z}
	if code, o, e := runCLI(t, args...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	for _, r := range g[1:] {
		if _, ok := broken[r[gc["id"]]]; ok && !strings.HasPrefix(r[gc["status"]], "ungradable") {
			t.Fatalf("premise: %s is %q", r[gc["id"]], r[gc["status"]])
		}
	}
	os.WriteFile(filepath.Join(out, "overrides.csv"), []byte("id,criterion,score,reason\ns01,total,30,文件传坏了，按课上检查过的版本计分\ns02,total,30,x\ns03,total,30,x\ns04,total,30,x\n"), 0o644)
	if code, o, e := runCLI(t, args...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	for id := range broken {
		for _, f := range []string{id + ".md", id + ".html"} {
			b, _ := os.ReadFile(filepath.Join(out, "feedback", f))
			if !strings.Contains(string(b), "老师的决定：这份作业计 30/") {
				t.Errorf("feedback/%s lacks the decision:\n%s", f, b)
			}
			if strings.Contains(string(b), "再提交") || strings.Contains(string(b), "重新提交") || strings.Contains(string(b), "重新运行") {
				t.Errorf("feedback/%s still asks to hand the file in again above the decision:\n%s", f, b)
			}
		}
	}
}
