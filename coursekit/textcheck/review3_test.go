package textcheck

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lab"
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

// searchField is one field of a capacity.Config literal in a notebook
// cell: a plain number or a duration like 2 * time.Second.
var searchField = regexp.MustCompile(`(?m)^\s*(StartRate|Growth|MaxRate|Resolution|Warmup|StepDuration|StepMaxDuration):\s*([^,]+),`)

// Notebook 10's search is the one lab.CapacityLabSearch holds and
// coursekit/lab's test runs five times (its answer stays at or below the
// saturation), and 10 states the answer against the saturation as it
// is, never with fixed wording about a rate "a little above" it.
func TestCapacitySearchIsTheTestedOne(t *testing.T) {
	c := cellOf(t, "10-", "var search = capacity.Config{")
	want := lab.CapacityLabSearch(0.9, 1000, 32)
	wantText := map[string]string{
		"StartRate": cardfmt.Num(want.StartRate), "Growth": cardfmt.Num(want.Growth), "MaxRate": cardfmt.Num(want.MaxRate), "Resolution": cardfmt.Num(want.Resolution),
		"Warmup": goDuration(want.Warmup), "StepDuration": goDuration(want.StepDuration), "StepMaxDuration": goDuration(want.StepMaxDuration),
	}
	got := map[string]string{}
	for _, m := range searchField.FindAllStringSubmatch(c.source, -1) {
		got[m[1]] = strings.TrimSpace(m[2])
	}
	for k, v := range wantText {
		if got[k] != v {
			t.Errorf("%s: %s is %q, lab.CapacityLabSearch has %q (the tested defaults)", c.where, k, got[k], v)
		}
	}
	if s := cellOf(t, "10-", "var experiment = lab.Lab{"); !strings.Contains(s.source, "lab.CapacityLabServer()") {
		t.Errorf("%s: 10's simulator is not lab.CapacityLabServer, the one the search test runs", s.where)
	}
	for _, c := range notebookCells(t) {
		if strings.Contains(c.where, "/10-") && strings.Contains(c.source, "只比饱和高一点") {
			t.Errorf("%s: fixed wording about the answer against the saturation; print lab.AboveSaturation", c.where)
		}
	}
}

// goDuration writes d as a notebook writes it: 2 * time.Second.
func goDuration(d time.Duration) string {
	if d%time.Second == 0 {
		if d == time.Second {
			return "time.Second"
		}
		return fmt.Sprintf("%d * time.Second", d/time.Second)
	}
	return fmt.Sprintf("%d * time.Millisecond", d/time.Millisecond)
}

// Output token/s counts every complete success's tokens: no threshold
// enters it, so no text ties it to one (03 asked for it "门槛 1 s 下").
var tokensUnderSLO = regexp.MustCompile(`门槛[^。\n]{0,12}输出 token/秒`)

func TestTokenRateIsNotTiedToTheSLO(t *testing.T) {
	for _, c := range notebookCells(t) {
		if m := tokensUnderSLO.FindString(c.source); m != "" {
			t.Errorf("%s: %q: output token/s does not depend on the TTFT threshold", c.where, m)
		}
	}
}

// One figure's reading a cell: two 看图要点 in one cell mix two ideas.
func TestOneFigureReadingACell(t *testing.T) {
	for _, c := range notebookCells(t) {
		if c.kind == "markdown" && strings.Count(c.source, "看图要点") > 1 {
			t.Errorf("%s: %d 看图要点 in one cell; give each figure its own cell", c.where, strings.Count(c.source, "看图要点"))
		}
	}
}

// 07's closed loop: its users ask for answers of the same length, finish on
// the same step and resend together, so the queue reads 2–3 at times
// (the review measured 3), not "偶尔一两个" at most.
func TestClosedLoopQueueSaysWhyItReadsMore(t *testing.T) {
	c := cellOf(t, "07-", "看图要点（图 01.10）")
	if strings.Contains(c.source, "偶尔读到一两个") || !strings.Contains(c.source, "一起重发") {
		t.Errorf("%s: the closed loop's queue reads 2–3 when users finish on the same step and resend together; say so", c.where)
	}
}

// 小结 is the notebook's end only: a section's recap is called something
// else (本节要点), so that a learner finds one 小结 a notebook.
func TestSummaryOnlyEndsTheNotebook(t *testing.T) {
	for _, c := range notebookCells(t) {
		if c.kind == "markdown" && strings.Contains(c.source, "小结") && !strings.HasPrefix(strings.TrimSpace(c.source), "## 小结") {
			t.Errorf("%s: 小结 outside the notebook's ## 小结 cell; call a section's recap 本节要点", c.where)
		}
	}
}

// 10's prediction of n ≥ 72 states the interval it is for: two-sided,
// each tail ≤ 2.5 % (one-sided 95 % needs 59).
func TestNeedNStatesItsInterval(t *testing.T) {
	c := cellOf(t, "10-", "NeedN ")
	for _, line := range strings.Split(c.source, "\n") {
		if strings.Contains(line, "NeedN ") && strings.Contains(line, "//") && !(strings.Contains(line, "双侧") && strings.Contains(line, "2.5%")) {
			t.Errorf("%s: %q: say 双侧、每侧 ≤ 2.5%% before asking for n", c.where, strings.TrimSpace(line))
		}
	}
}

// A cell that mixes a derivation or a procedure with a figure's reading
// or a formula of its own: 10's n ≥ 72 and 图 01.20, its search and the
// saturation, 07's Little's law and the unloaded measurement.
func TestCellsDoNotMixIdeas(t *testing.T) {
	for _, pair := range [][3]string{
		{"10-", "0.95^{n}", "看图要点"},
		{"10-", "StartRate", "饱和吞吐} ="},
		{"07-", "L = \\lambda", "常见的换算"},
		{"10-", "**目标**", "第二个单元格是搜索本身"},
		// 03 §4: the ratios, the in-flight attempts, nearest rank and the
		// summary call, one a cell.
		{"03-", "\\text{失败率} = ", "**在途**"},
		{"03-", "**在途**", "P_p = x_"},
		{"03-", "P_p = x_", "`metrics.Summarize` 一次"},
		// 03 §4 after the check (the seventh review, finding 9): the quiz's
		// answer, why P95 is the maximum, and Fig. 01.3's reading.
		{"03-", "测验的答案是", "为什么 P95 正好是最大值"},
		{"03-", "为什么 P95 正好是最大值", "看图要点"},
		{"03-", "测验的答案是", "看图要点"},
	} {
		for _, c := range notebookCells(t) {
			if strings.Contains(c.where, "/"+pair[0]) && strings.Contains(c.source, pair[1]) && strings.Contains(c.source, pair[2]) {
				t.Errorf("%s: %q and %q share a cell; split it", c.where, pair[1], pair[2])
			}
		}
	}
}

// compareField is a check of a prediction struct's field:
// nb.Compare…("…", p.Field, …).
var compareField = regexp.MustCompile(`nb\.Compare\w*\([^,]+,\s*(\w+)\.\w+\s*,`)

// A cell that checks a field of a prediction and prints results of its
// own shows them only once the prediction is written: it asks nb.Guessed
// (or its run helper does). nb.Compare alone hides its result until the
// answer is written.
func TestPredictionChecksAreGated(t *testing.T) {
	for _, c := range withChecks(t, unitCode(t)) {
		if !strings.Contains(c.source, "fmt.Print") {
			continue
		}
		seen := map[string]bool{}
		for _, m := range compareField.FindAllStringSubmatch(c.source, -1) {
			p := m[1]
			if seen[p] || p == "nb" {
				continue
			}
			seen[p] = true
			if !strings.Contains(c.source, "nb.Guessed("+p) && !strings.Contains(c.source, "For("+p) {
				t.Errorf("%s: checks %s.… but prints its results before the prediction is written; gate it with nb.Guessed(%s)", c.where, p, p)
			}
		}
	}
}

// 04: the step moves when the threshold crosses the TTFT of a complete,
// quality-passed success (not any TTFT); it counts 03 §7's mistakes as 03
// has them (### 错误 headings before 03's 练习); and the record to keep is
// the source's list, lengths included.
func TestChangeOneConditionSaysItExactly(t *testing.T) {
	mistakes := 0
	for _, c := range nbCells(t, notebookCells(t), "03-one-trace-four-conclusions.ipynb") {
		if strings.HasPrefix(strings.TrimSpace(c.source), "## 练习") {
			break
		}
		mistakes += strings.Count(c.source, "### 错误 ")
	}
	count := regexp.MustCompile(`第 7 节的([一二三四五六七八九])个错误`)
	numerals := []rune("一二三四五六七八九")
	for _, c := range notebookCells(t) {
		if !strings.Contains(c.where, "/04-") {
			continue
		}
		if strings.Contains(c.source, "只在门槛跨过某个 TTFT") {
			t.Errorf("%s: goodput steps only at the TTFT of a quality-passed complete success", c.where)
		}
		for _, m := range count.FindAllStringSubmatch(c.source, -1) {
			if mistakes < 1 || mistakes > len(numerals) || m[1] != string(numerals[mistakes-1]) {
				t.Errorf("%s: %q, but 03 §7 has %d mistakes", c.where, m[0], mistakes)
			}
		}
	}
	c := cellOf(t, "04-", "逐次原始记录")
	for _, w := range []string{"ID", "发出与结束时刻", "流式事件的时刻", "结果状态", "质量判断", "输入与输出长度", "条件清单"} {
		if !strings.Contains(c.source, w) {
			t.Errorf("%s: the record to keep lacks %s", c.where, w)
		}
	}
}

// Learner text says 训练损失, not the English loss (01's exercise 2).
func TestTrainingLossInChinese(t *testing.T) {
	for _, c := range notebookCells(t) {
		if c.kind == "markdown" && strings.Contains(c.source, "训练 loss") {
			t.Errorf("%s: 训练 loss: say 训练损失", c.where)
		}
	}
}

// vLLM's TPOT is almost, not exactly, the unit's: its TTFT starts at the
// first chunk with choices (an empty role chunk too) and its E2EL ends at
// the last chunk with choices. A line that sets them equal without 几乎
// (almost) states more than is true.
var sameTPOT = regexp.MustCompile(`(同一个数|TPOT 相同)`)

func TestVLLMTPOTIsAlmostTheUnits(t *testing.T) {
	for _, c := range notebookCells(t) {
		for _, line := range strings.Split(c.source, "\n") {
			if strings.Contains(line, "vLLM") && strings.Contains(line, "TPOT") && sameTPOT.MatchString(line) && !strings.Contains(line, "几乎") {
				t.Errorf("%s: %q: vLLM's TPOT is almost the unit's (say 几乎相同, with the role-chunk caveat)", c.where, sameTPOT.FindString(line))
			}
		}
	}
	for file, text := range goStrings(t, repo+"/coursekit") {
		if strings.Contains(text, "vLLM") && strings.Contains(text, "TPOT") && sameTPOT.MatchString(text) && !strings.Contains(text, "几乎") {
			t.Errorf("%s: says vLLM's TPOT is the same number: almost", file)
		}
	}
}

// A notebook is called 笔记本 0N, never 第 0N 本.
var nthBook = regexp.MustCompile(`第 ?\d\d ?本`)

func TestNotebooksAreCalledNotebooks(t *testing.T) {
	for _, c := range notebookCells(t) {
		if m := nthBook.FindString(c.source); m != "" {
			t.Errorf("%s: %q: say 笔记本 0N", c.where, m)
		}
	}
}

// coreNotebook is a cell of the core unit, 01–06.
var coreNotebook = regexp.MustCompile(`unit01/0[1-6]-`)

// A learner cell of 01–06 reads one threshold's numbers through nb.AtSLO
// or nb.Conclusions, not by indexing a summary's conditions: which index
// holds which threshold is plumbing, not the lesson.
func TestCoreCellsDoNotIndexConditions(t *testing.T) {
	index := regexp.MustCompile(`\.Conditions\[\w+\]`)
	for _, c := range unitCode(t) {
		if m := index.FindString(c.source); m != "" && coreNotebook.MatchString(c.where) {
			t.Errorf("%s: %q indexes a summary's conditions in a learner cell; use nb.AtSLO(trace, sloMS) or nb.Conclusions", c.where, m)
		}
	}
}
