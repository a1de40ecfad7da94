package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
)

// --weights changes the points of the criteria it names and nothing else;
// a bad file stops before anything is graded, naming FILE:LINE;
// --print-weights is a file --weights reads.
func TestGradeCLIWeights(t *testing.T) {
	c := newClassroom(t, "id,name\nalice,A\nbob,B\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。"},
		"bob":   {},
	})
	maxOf := func(out string) float64 {
		rows, col := csvRows(t, filepath.Join(out, "grades.csv"))
		v, err := strconv.ParseFloat(rows[1][col["max"]], 64)
		if err != nil {
			t.Fatalf("grades.csv max %q", rows[1][col["max"]])
		}
		return v
	}
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster}
	def := filepath.Join(c.dir, "default")
	if code, o, e := runCLI(t, append(args, "--out", def, c.sub)...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}

	// The printed defaults, edited: the "<" for "≤" mistake costs less.
	code, printed, e := runCLI(t, "grade", "--print-weights")
	if code != 0 || !strings.HasPrefix(printed, "criterion,points\n") || !strings.Contains(printed, "\nfigures.qualified,2\n") {
		t.Fatalf("--print-weights: exit %d\n%s%s", code, printed, e)
	}
	w := filepath.Join(c.dir, "weights.csv")
	edited := strings.Replace(strings.Replace(printed, "\nfigures.qualified,2\n", "\nfigures.qualified,0.5\n", 1), "\nfigures.goodput,2\n", "\nfigures.goodput,0\n", 1)
	os.WriteFile(w, []byte(edited), 0o644)
	wo := filepath.Join(c.dir, "weighted")
	if code, o, e := runCLI(t, append(args, "--out", wo, "--weights", w, c.sub)...); code != 0 {
		t.Fatalf("grade --weights: exit %d\n%s%s", code, o, e)
	}
	if d, x := maxOf(def), maxOf(wo); d-x != 3.5 {
		t.Errorf("max %v with the weights, %v without: want 3.5 less", x, d)
	}
	rows, col := csvRows(t, filepath.Join(wo, "grades.csv"))
	if _, ok := col[criteria.ExecutionID]; ok {
		t.Errorf("the execution weight added an execution column without --execute: %v", rows[0])
	}

	// Bad lines: named, and nothing written.
	// Go's number syntaxes that are not plain decimals ("3_0" is 30 to
	// strconv, "0x1p0" is 1) are bad lines too, as in typed scores.
	os.WriteFile(w, []byte("criterion,points\nfigures.qualifed,1\nfigures.cost,x\nfigures.goodput,3_0\nfigures.p95,0x1p0\n"), 0o644)
	bad := filepath.Join(c.dir, "never")
	code, o, e := runCLI(t, append(args, "--out", bad, "--weights", w, c.sub)...)
	if code != 2 || !strings.Contains(e, w+`:2: unknown criterion id "figures.qualifed"`) || !strings.Contains(e, w+`:3: points "x"`) ||
		!strings.Contains(e, w+`:4: points "3_0" for figures.goodput: want a plain decimal number`) || !strings.Contains(e, w+`:5: points "0x1p0" for figures.p95`) {
		t.Errorf("bad weights: exit %d\n%s%s", code, o, e)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("bad weights: OUT was written")
	}
}
