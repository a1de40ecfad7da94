package textcheck

import (
	"strings"
	"testing"
)

// A learner takes in a code cell at a glance when it is short. Cells over
// longCodeCell lines are the exceptions listed here, each with its reason,
// and there are at most maxLongCodeCells of them.
const (
	longCodeCell     = 15
	maxLongCodeCells = 3
)

// longCodeCells are the code cells allowed over longCodeCell lines, by
// notebook and cell tag.
var longCodeCells = []struct{ file, tag, why string }{
	{"06-deliverable.ipynb", "card", "the metric-definition card is one Go literal in one cell: " +
		"the grader (coursekit/grade/notebook) and docker/test/deliverable_test.py find and parse that cell, " +
		"locked-cell restore and the self-check read it whole; splitting it changes what a submission is"},
}

func codeLines(src string) int {
	return len(strings.Split(strings.TrimRight(src, "\n"), "\n"))
}

func TestFewLongCodeCells(t *testing.T) {
	if len(longCodeCells) > maxLongCodeCells {
		t.Fatalf("%d long code cells allowed; at most %d", len(longCodeCells), maxLongCodeCells)
	}
	seen := make([]int, len(longCodeCells))
	for _, c := range notebookCells(t) {
		if c.kind != "code" {
			continue
		}
		n := codeLines(c.source)
		if n <= longCodeCell {
			continue
		}
		allowed := false
		for k, a := range longCodeCells {
			if strings.HasSuffix(c.where[:strings.LastIndex(c.where, "[")], a.file) && c.tagged(a.tag) {
				allowed = true
				seen[k]++
			}
		}
		if !allowed {
			t.Errorf("%s: %d lines of code; at most %d, or split it into cells that do one thing each (or move plumbing into coursekit)", c.where, n, longCodeCell)
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("%s tagged %s: %d long cells match one allowance", longCodeCells[k].file, longCodeCells[k].tag, n)
		}
	}
}
