package main

import (
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
