package textcheck

import (
	"regexp"
	"strings"
	"testing"
)

// The third review of unit 01 (issue 33's fresh review), one rule each.

// cellOf is the cell of notebook nb (e.g. "07-") whose source contains
// every marker; it fails the test when there is none.
func cellOf(t *testing.T, nb string, markers ...string) cell {
	t.Helper()
	for _, c := range notebookCells(t) {
		if !strings.Contains(c.where, "/"+nb) {
			continue
		}
		all := true
		for _, m := range markers {
			all = all && strings.Contains(c.source, m)
		}
		if all {
			return c
		}
	}
	t.Fatalf("notebook %s has no cell with %q", nb, markers)
	return cell{}
}

// 07's closed loop starts every user at t = 0, so its sends in the window
// run up to a cycle a user above N / W: a check of λ = N / W compares with
// the cycle rate (lab.Run.CycleRate), never with the window's send rate.
var comparesSendRate = regexp.MustCompile(`nb\.Compare\w*\([^\n]*SendRate\(\)`)

func TestLittleLawIsCheckedAgainstTheCycleRate(t *testing.T) {
	for _, c := range unitCode(t) {
		if m := comparesSendRate.FindString(c.source); m != "" {
			t.Errorf("%s: %q compares with the window's send rate, which the start-up edge inflates; compare N / W with lab.Run.CycleRate", c.where, m)
		}
	}
}
