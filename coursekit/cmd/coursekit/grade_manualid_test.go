package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// A learner id mistyped in a manual-review file (s10 typed as s99) stops
// the run with FILE:LINE, the file named as given, and nothing is
// written: before, a warning scrolled by and s10's answer went back to
// pending. It holds for a file given with --manual and for OUT's own
// manual-review.csv edited in place. A row grade itself wrote back for a
// learner not graded in this batch is not an error.
func TestGradeCLIManualUnknownLearnerStops(t *testing.T) {
	c := newClassroom(t, "id,name\ns10,周杰\ns11,吴芳\n", map[string]*card.Card{
		"s10": {Clock: "client", CounterEvidence: "排队：有请求在首字前等待超时。"},
		"s11": {Clock: "client", CounterEvidence: "GPU 很忙。"},
	})
	out := filepath.Join(c.dir, "graded")
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out}
	if code, o, e := runCLI(t, append(args, c.sub)...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	own := filepath.Join(out, "manual-review.csv")
	rows, col := csvRows(t, own)
	line := 0
	for i, r := range rows[1:] {
		if r[col["id"]] == "s10" && r[col["criterion"]] == "text.counter_evidence" {
			r[col["id"]], r[col["score"]], line = "s99", "1", i+2
		}
	}
	if line == 0 {
		t.Fatal("no row for s10")
	}
	ta := filepath.Join(c.dir, "ta", "manual-review (TA).csv")
	os.MkdirAll(filepath.Dir(ta), 0o755)
	writeCSV(t, ta, rows)
	before, _ := os.ReadFile(filepath.Join(out, "grades.csv"))
	for _, tc := range []struct {
		name string
		file string
		args []string
	}{
		{"--manual FILE", ta, []string{"--manual", ta}},
		{"OUT's own file", own, nil},
	} {
		if tc.args == nil {
			writeCSV(t, own, rows)
		}
		for run := 1; run <= 2; run++ {
			code, o, e := runCLI(t, append(append(append([]string{}, args...), tc.args...), c.sub)...)
			want := regexp.QuoteMeta(tc.file) + ":" + strconv.Itoa(line) + `: learner "s99" is not on the roster`
			if code != 2 || !regexp.MustCompile(want).MatchString(e) || !strings.Contains(e, "Nothing was written") {
				t.Errorf("%s, run %d: exit %d, want 2 and %s\n%s%s", tc.name, run, code, want, o, e)
			}
			if after, _ := os.ReadFile(filepath.Join(out, "grades.csv")); string(after) != string(before) {
				t.Errorf("%s, run %d: grades.csv was rewritten", tc.name, run)
			}
			if _, err := os.Stat(out + ".bak-1"); err == nil {
				t.Errorf("%s, run %d: a backup was made: OUT was replaced", tc.name, run)
			}
		}
	}
}

// Every bad row of the files the instructor typed into is listed by one
// run, at one level, in file and line order: a learner id nobody knows
// (s99 typed for s10) beside a score that is not a number in
// manual-review.csv, and an unknown id (s98) beside an unknown criterion
// in overrides.csv. Before, the unknown ids were reported only by a
// later run, once the other rows were fixed. Nothing is applied or
// dropped: both files keep every typed cell, OUT is not replaced.
func TestGradeCLIUnknownLearnerListedWithOtherBadRows(t *testing.T) {
	c := newClassroom(t, "id,name,lms_id\ns10,Zhou Jie,1010\ns11,Wu Fang,1011\n", map[string]*card.Card{
		"s10": {Clock: "client", CounterEvidence: "排队：有请求在首字前等待超时。", Uncertain: "窗口太短。"},
		"s11": {Clock: "client", CounterEvidence: "GPU 很忙。", Uncertain: "不确定。"},
	})
	z := filepath.Join(c.dir, "moodle.zip")
	canvasZip(t, z, map[string][]byte{
		"Zhou Jie_1010_assignsubmission_file_/06-deliverable.ipynb": c.handedIn(t, "s10"),
		"Wu Fang_1011_assignsubmission_file_/06-deliverable.ipynb":  c.handedIn(t, "s11"),
	})
	out := filepath.Join(c.dir, "graded")
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, z}
	if code, o, e := runCLI(t, args...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	manual := filepath.Join(out, "manual-review.csv")
	rows, col := csvRows(t, manual)
	var s99, comma int
	for i, r := range rows[1:] {
		switch {
		case r[col["id"]] == "s10" && r[col["criterion"]] == "text.counter_evidence":
			r[col["id"]], r[col["score"]], s99 = "s99", "2", i+2
		case r[col["id"]] == "s11" && r[col["criterion"]] == "text.uncertain":
			r[col["score"]], comma = "0,5", i+2
		}
	}
	if s99 == 0 || comma == 0 || s99 > comma {
		t.Fatalf("rows: s99 on line %d, the bad score on line %d; want both, s99 first", s99, comma)
	}
	writeCSV(t, manual, rows)
	overrides := filepath.Join(out, "overrides.csv")
	os.WriteFile(overrides, []byte("id,criterion,score,reason\ns98,figures.p95,2,四舍五入\ns11,figures.nosuch,1,x\n"), 0o644)
	typed, _ := os.ReadFile(manual)
	before, _ := os.ReadFile(filepath.Join(out, "grades.csv"))
	code, o, e := runCLI(t, args...)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, o, e)
	}
	want := []string{
		fmt.Sprintf(`%s:%d: learner "s99" is not on the roster`, manual, s99),
		fmt.Sprintf(`%s:%d: s11 text.uncertain: score "0,5" is not a number`, manual, comma),
		overrides + `:2: learner "s98" is not on the roster`,
		overrides + `:3: s11: unknown criterion "figures.nosuch"`,
	}
	at := -1
	for _, w := range want {
		i := strings.Index(e, w)
		if i < 0 {
			t.Errorf("stderr lacks %q\n%s", w, e)
			continue
		}
		if i < at {
			t.Errorf("%q is out of file and line order\n%s", w, e)
		}
		at = i
	}
	if !strings.Contains(e, "Nothing was written") {
		t.Errorf("stderr does not say nothing was written:\n%s", e)
	}
	if now, _ := os.ReadFile(manual); string(now) != string(typed) {
		t.Errorf("%s changed: the typed s99 row must stay for the instructor to fix", manual)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "grades.csv")); string(after) != string(before) {
		t.Errorf("grades.csv was rewritten")
	}
	if _, err := os.Stat(out + ".bak-1"); err == nil {
		t.Errorf("a backup was made: OUT was replaced")
	}
}
