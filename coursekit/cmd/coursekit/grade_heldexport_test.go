package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
)

// A held file is not a 0. With the roster of s11 and s12 swapped and s12
// handing in s11's notebook, s12's upload is held (not graded until the
// roster is fixed): the Moodle export leaves s12's grade blank, as for
// no submission, and the class mean leaves s12 out. Before, Moodle got
// 0 and the mean counted it.
func TestGradeCLIHeldFileNotExportedAsZero(t *testing.T) {
	c, _, swapped, zips := walkClass(t)
	out, moodle := filepath.Join(c.dir, "graded"), filepath.Join(c.dir, "moodle.csv")
	code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", swapped, "--out", out, "--export", "moodle="+moodle, zips[0], zips[1], zips[2])
	if code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	x, xc := csvRows(t, moodle)
	var totals []float64
	found := false
	for _, r := range x[1:] {
		if r[xc["Email address"]] == "s12@x.edu" {
			found = true
			if r[len(r)-1] != "" {
				t.Errorf("the Moodle export gives s12's held file %q, want blank", r[len(r)-1])
			}
		}
	}
	if !found {
		t.Errorf("no Moodle row for s12")
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	var sum float64
	for _, r := range g[1:] {
		if strings.HasPrefix(r[gc["status"]], "graded") {
			v, err := strconv.ParseFloat(r[gc["total"]], 64)
			if err != nil {
				t.Fatal(err)
			}
			totals = append(totals, v)
			sum += v
		}
	}
	summary, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	want := fmt.Sprintf("%d 位学习者计分（与 grades.csv 的总分相同）：总分平均 %s 分", len(totals), criteria.FmtPts(sum/float64(len(totals))))
	if !strings.Contains(string(summary), want) {
		t.Errorf("summary.md lacks %q (s12's held file left out):\n%s", want, summary)
	}
}

// A held file's Gradescope output is neither a 0 nor a grade on another
// account. With the roster of s11 and s12 swapped and s12 handing in
// s11's notebook, s12's upload is held: no results/*.json scores it
// (a Gradescope results.json must carry a score, and any score would be
// put on s12's account, as a Canvas row would be: Canvas leaves the row
// out, Moodle leaves it blank), while its feedback says it is held; every
// other file's results.json is written as before. Graded twice.
func TestGradeCLIHeldFileHasNoGradescopeScore(t *testing.T) {
	c, _, swapped, zips := walkClass(t)
	out := filepath.Join(c.dir, "graded")
	for run := 1; run <= 2; run++ {
		code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", swapped, "--out", out, zips[0], zips[1], zips[2])
		if code != 0 {
			t.Fatalf("run %d: grade: exit %d\n%s%s", run, code, o, e)
		}
		held, subs := 0, gradedSubs(t, out)
		for _, s := range subs {
			if s.ReasonCode == grader.ReasonRosterHeld {
				held++
			}
		}
		if held != 1 {
			t.Fatalf("run %d: %d held files, want s12's one", run, held)
		}
		results, err := filepath.Glob(filepath.Join(out, "results", "*.json"))
		if err != nil || len(results) == 0 {
			t.Fatalf("run %d: no results/*.json (%v)", run, err)
		}
		for _, p := range results {
			b, _ := os.ReadFile(p)
			var r gradescope.GSResults
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if r.ExtraData["reason_code"] == grader.ReasonRosterHeld || r.ExtraData["learner"] == "s12" {
				t.Errorf("run %d: %s gives the held file a Gradescope score %v for %v", run, filepath.Base(p), *r.Score, r.ExtraData["learner"])
			}
		}
		if len(results) != len(subs)-held {
			t.Errorf("run %d: %d results/*.json, want one for each of the %d other files", run, len(results), len(subs)-held)
		}
		fb, err := os.ReadFile(filepath.Join(out, "feedback", "s12.md"))
		if err != nil || !strings.Contains(string(fb), grader.RosterHeldZh) {
			t.Errorf("run %d: s12's feedback does not say the file is held (%v):\n%s", run, err, fb)
		}
	}
}
