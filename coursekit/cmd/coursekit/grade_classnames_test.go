package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// A released class handed in as a Canvas zip: the class report and
// summary.md name the learner who handed in nothing (with the roster's
// 姓名), the stray file by its unknown-N name and file name, and the two
// learners whose free-text answer is word for word the same; the table
// has a row for each. The copy changes no score: alice and bob, with the
// same card, score the same as with their own words.
func TestGradeCLIClassReportNamesEveryone(t *testing.T) {
	same := "排队：有请求在首字前等了很久直到超时，用户等得很久。"
	c := newClassroom(t, "id,姓名,lms_id\nalice,张敏,10001\nbob,王强,10002\ncarol,李娜,10003\n", map[string]*card.Card{
		"alice": {CounterEvidence: same}, "bob": {CounterEvidence: "  " + strings.ReplaceAll(same, "，", "，\n") + "\n"},
	})
	read := func(id string) []byte {
		b, err := os.ReadFile(filepath.Join(c.sub, id, "06-deliverable.ipynb"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	z := filepath.Join(c.dir, "canvas.zip")
	stray, _ := json.Marshal(map[string]any{"cells": []any{}, "metadata": map[string]any{}, "nbformat": 4, "nbformat_minor": 5})
	canvasZip(t, z, map[string][]byte{
		"zhangmin_10001_90001_06-deliverable.ipynb":  read("alice"),
		"wangqiang_10002_90002_06-deliverable.ipynb": read("bob"),
		"someone_10009_90009_06-deliverable.ipynb":   stray,
	})
	out := filepath.Join(c.dir, "graded")
	if code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, z); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	page, err := os.ReadFile(filepath.Join(out, "class.html"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"没有提交的 1 人：carol（李娜）", "unknown-1：canvas.zip:someone_10009_90009_06-deliverable.ipynb", "文字题答案完全相同（1 组）", "alice、bob",
		`">carol</td>`, `">unknown-1</td>`, `">张敏</td>`} {
		if !strings.Contains(string(page), w) {
			t.Errorf("class.html lacks %q", w)
		}
	}
	for _, w := range []string{"carol（李娜）", "unknown-1", "someone\\_10009\\_90009\\_06-deliverable.ipynb", "alice、bob"} {
		if !strings.Contains(string(sum), w) {
			t.Errorf("summary.md lacks %q:\n%s", w, sum)
		}
	}
	fb, _ := os.ReadFile(filepath.Join(out, "feedback", "bob.md"))
	if strings.Contains(string(fb), "alice") || strings.Contains(string(fb), "相同") {
		t.Errorf("bob's feedback names alice or the same-answer finding (instructor only):\n%.1500s", fb)
	}
	// An info finding: it is no integrity warning (those come from elsewhere).
	var subs []struct {
		Learner   string
		Integrity []struct {
			Code string
			Warn bool
		}
	}
	js, _ := os.ReadFile(filepath.Join(out, "grades.json"))
	if err := json.Unmarshal(js, &subs); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, s := range subs {
		for _, f := range s.Integrity {
			if f.Code == "same_free_text" {
				found++
				if f.Warn {
					t.Errorf("%s: the same-answer finding is a warning", s.Learner)
				}
			}
		}
	}
	if found != 2 {
		t.Errorf("%d same-answer findings in grades.json, want 2", found)
	}
	// bob graded without alice (no copy to find) scores the same.
	z2 := filepath.Join(c.dir, "bob-only.zip")
	canvasZip(t, z2, map[string][]byte{"wangqiang_10002_90002_06-deliverable.ipynb": read("bob")})
	out2 := filepath.Join(c.dir, "graded-bob")
	if code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out2, z2); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	g2, _ := csvRows(t, filepath.Join(out2, "grades.csv"))
	if g[2][gc["id"]] != "bob" || strings.Join(g[2][:gc["status"]], ",") != strings.Join(g2[2][:gc["status"]], ",") {
		t.Errorf("bob's scores with alice's same answer in the batch differ from bob's alone:\n%v\n%v", g[2], g2[2])
	}
	if fb2, _ := os.ReadFile(filepath.Join(out2, "feedback", "bob.md")); strings.Contains(string(fb2), "一字不差") {
		t.Error("bob alone has a same-answer finding")
	}
}
