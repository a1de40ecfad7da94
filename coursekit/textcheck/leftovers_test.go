package textcheck

import (
	"regexp"
	"strings"
	"testing"
)

// Issue 33's leftovers in 01–08 (the core route and the first two labs).

// standaloneN is N as a symbol of its own (not part of a name).
var standaloneN = regexp.MustCompile(`(^|[^A-Za-z_])N([^A-Za-z_]|$)`)

// N is the output tokens (02, the glossary); 07's users are U, in its text,
// its formulas and what its cells print.
func TestLabUsersAreUNotN(t *testing.T) {
	formula := false
	for _, c := range nbCells(t, notebookCells(t), "07-lab-open-vs-closed-loop.ipynb") {
		for _, line := range strings.Split(c.source, "\n") {
			if standaloneN.MatchString(line) && !strings.Contains(line, "输出 token 数") { // the line that says why U
				t.Errorf("%s uses N, which is the output tokens elsewhere; the users are U: %q", c.where, strings.TrimSpace(line))
			}
		}
		formula = formula || strings.Contains(c.source, `\lambda = U/W`) || strings.Contains(c.source, `\frac{U}{W}`)
	}
	if !formula {
		t.Error("07 never writes the closed loop's rate as U / W")
	}
}

// 07's exercise 1 asks for something the cells above have not printed:
// the cell of §6 prints U / W and the measured cycle rate, so the
// exercise adds a think time and is checked against U / (W + Z).
func TestLittleExerciseIsNotAnswerAbove(t *testing.T) {
	cells := nbCells(t, notebookCells(t), "07-lab-open-vs-closed-loop.ipynb")
	funcs := unit01Funcs(t)
	found := false
	for _, c := range cells {
		if c.kind != "code" || !strings.Contains(c.source, "练习 1") {
			continue
		}
		found = true
		c.source = withUnit01Checks(t, c.source, funcs) // the check it calls
		if strings.Contains(c.source, "CompareWithin(\"练习 1") && strings.Contains(c.source, "CycleRate()") &&
			!strings.Contains(c.source, "RateWithThink(") {
			t.Errorf("%s checks exercise 1 against the cycle rate §6 already printed", c.where)
		}
		if !strings.Contains(c.source, "RateWithThink(") {
			t.Errorf("%s: exercise 1 should ask for λ with a think time, checked against Run.RateWithThink", c.where)
		}
	}
	if !found {
		t.Fatal("no code cell of 07 for exercise 1")
	}
}

// 03's exercise 3 asks for the linear P95; its text gives the formula and
// the idea (where h falls), not the two samples and the fraction that
// make the answer, and its cell checks what the learner wrote.
func TestLinearP95ExerciseKeepsItsAnswer(t *testing.T) {
	cells := nbCells(t, checkCells(t), "03-one-trace-four-conclusions.ipynb")
	in, checked := false, false
	for _, c := range cells {
		if c.kind == "markdown" && strings.Contains(c.source, "**练习 3") {
			in = true
		} else if c.kind == "markdown" && strings.Contains(c.source, "**练习 4") {
			in = false
		}
		if !in {
			continue
		}
		if c.kind == "markdown" {
			for _, giveaway := range []string{"6.65", "65%", "1720", "1200 ms 与 2000 ms"} {
				if strings.Contains(c.source, giveaway) {
					t.Errorf("%s gives exercise 3's answer away: %q", c.where, giveaway)
				}
			}
		}
		checked = checked || c.kind == "code" && strings.Contains(c.source, "nb.Compare") && strings.Contains(c.source, "LinearP95(")
	}
	if !checked {
		t.Error("03's exercise 3 has no check of the learner's linear P95 (nb.Compare… against nb.LinearP95)")
	}
}

// The tools' conventions have one home, notebook 05: 00 keeps its own
// glossary and, for the tools, one sentence and a pointer.
func TestToolsTableLivesIn05(t *testing.T) {
	toolsHeader := regexp.MustCompile(`(?m)^\|[^\n]*vLLM[^\n]*\|[^\n]*AIPerf[^\n]*\|`)
	pointer := false
	for _, c := range notebookCells(t) {
		if toolsHeader.MatchString(c.source) && !strings.Contains(c.where, "/05-") {
			t.Errorf("%s has a table of the tools' conventions; they live in 05", c.where)
		}
		pointer = pointer || strings.Contains(c.where, "/00-") && strings.Contains(c.source, "笔记本 05") && strings.Contains(c.source, "vLLM")
	}
	if !pointer {
		t.Error("00 should point to notebook 05 for the tools' conventions")
	}
}

// 04's sampling error of a tighter threshold is raised where it shows:
// the two thresholds differ by one attempt (R6). The Wilson interval is
// taught in 10 §5 only (the eighth review: 04 used it before it was
// taught), so 04 states no interval and points to 10 §5 for how a share's
// interval is computed; 10 computes the qualified share's, not this one,
// so 04 does not send the learner there for this share's figures.
func TestThresholdShareIntervalIsStatedIn04(t *testing.T) {
	stated := false
	for _, c := range nbCells(t, notebookCells(t), "04-change-one-condition.ipynb") {
		if strings.Contains(c.source, "区间见笔记本 10") || strings.Contains(c.source, "区间在笔记本 10") {
			t.Errorf("%s sends the learner to 10 for an interval 10 never computes", c.where)
		}
		if c.kind == "markdown" && (strings.Contains(c.source, "Wilson") || strings.Contains(c.source, "40.4%")) {
			t.Errorf("%s: a Wilson interval in 04, before 10 §5 teaches it: say the thresholds differ by 1 attempt and point to 10 第 5 节", c.where)
		}
		stated = stated || c.kind == "markdown" && strings.Contains(c.source, "差别只有 1 次尝试") && strings.Contains(c.source, "见 10 第 5 节")
	}
	if !stated {
		t.Error("04 should say the thresholds differ by only 1 attempt (差别只有 1 次尝试) and point to 10 第 5 节 for a share's interval")
	}
}
