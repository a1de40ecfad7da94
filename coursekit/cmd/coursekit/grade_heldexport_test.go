package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/criteria"
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
