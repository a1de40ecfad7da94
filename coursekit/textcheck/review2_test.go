package textcheck

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The rest of the second review of unit 01 (items 11 and 13–26) and the
// second learner walk, one rule each, so that none comes back.

// byNotebook groups cells by notebook, in the order the notebooks come.
func byNotebook(cells []cell) (files []string, by map[string][]cell) {
	by = map[string][]cell{}
	for _, c := range cells {
		f := c.where[:strings.LastIndex(c.where, "[")]
		if by[f] == nil {
			files = append(files, f)
		}
		by[f] = append(by[f], c)
	}
	return files, by
}

// unitCode are the code cells of the unit's notebooks (01–10): the cells
// a learner reads as the lesson. 00 is the runtime check and its primer,
// which shows gota itself.
func unitCode(t *testing.T) []cell {
	var out []cell
	for _, c := range notebookCells(t) {
		if c.kind == "code" && strings.Contains(c.where, "unit01/") {
			out = append(out, c)
		}
	}
	return out
}

// appendixHeading opens what a notebook leaves for after class beyond its
// exercises (the seventh review, finding 8: 04's threshold sweep and 05's
// tool tables sat after 练习 under no heading). It comes after 练习, and
// alone in its cell.
const appendixHeading = "## 附录（课后选读）"

// appendixMaterial marks a cell as reading beyond the exercises: a bold
// "附：" title or a note that it is for after class.
var appendixMaterial = regexp.MustCompile(`^\s*\*\*附|课后查阅|课后选读`)

// sectionHeading is a second-level Markdown heading.
var sectionHeading = regexp.MustCompile(`(?m)^## `)

// 小结 and 练习 are each a cell of their own, at the end of the lesson: no
// other section shares their cell or comes after 小结 (but 下一步), and in
// 06 they come after the self-check.
func TestSummaryAndExercisesInTheirOwnCells(t *testing.T) {
	files, byNB := byNotebook(notebookCells(t))
	for _, f := range files {
		cells := byNB[f]
		summary, exercises := -1, -1
		for i, c := range cells {
			if c.kind != "markdown" {
				continue
			}
			s := strings.TrimSpace(c.source)
			for _, h := range []string{"## 小结", "## 练习"} {
				k := strings.Index(s, h)
				if k < 0 {
					continue
				}
				if k > 0 || len(sectionHeading.FindAllStringIndex(s, -1)) > 1 {
					t.Errorf("%s: %s shares its cell with other material; give it a cell of its own", c.where, h)
				}
				if h == "## 小结" {
					summary = i
				} else {
					exercises = i
				}
			}
		}
		if summary < 0 || exercises < summary {
			t.Errorf("%s: no ## 小结 before ## 练习", f)
			continue
		}
		appendix := -1
		for i, c := range cells[summary+1:] {
			if c.kind != "markdown" || !sectionHeading.MatchString(c.source) {
				continue
			}
			switch s := strings.TrimSpace(c.source); {
			case strings.Contains(s, "## 练习"), strings.Contains(s, "## 下一步"):
			case s == appendixHeading && summary+1+i > exercises && appendix < 0:
				appendix = summary + 1 + i
			default:
				t.Errorf("%s: a section after 小结; 小结 and 练习 end the lesson (material for after class goes under %q, after 练习)", c.where, appendixHeading)
			}
		}
		for i, c := range cells[exercises+1:] {
			at := exercises + 1 + i
			if c.kind == "markdown" && appendixMaterial.MatchString(c.source) && (appendix < 0 || at < appendix) {
				t.Errorf("%s: reading for after class after 练习, under no heading: put it under %q", c.where, appendixHeading)
			}
		}
		if appendix >= 0 {
			for _, c := range cells[appendix+1:] {
				if c.kind == "markdown" && strings.Contains(c.source, "## 练习") {
					t.Errorf("%s: 练习 after the appendix; the appendix comes last", c.where)
				}
			}
		}
		if strings.HasSuffix(f, "06-deliverable.ipynb") {
			for _, c := range cells[summary:] {
				if strings.Contains(c.source, "nb.SelfCheck(") {
					t.Errorf("%s: the self-check comes after 小结; the lesson's sections come first", c.where)
				}
			}
		}
	}
}

// compareLabel is the label of a prediction or exercise check.
var compareLabel = regexp.MustCompile(`nb\.Compare\w*\("([^"]*)"`)

// An exercise's check calls the learner's number an answer: its label
// starts with 练习, which makes nb.Compare say 你的答案 (04's exercise said
// "你的预测 0.6" of a threshold the learner had chosen).
func TestExerciseChecksAreLabelledExercises(t *testing.T) {
	after := map[string]bool{}
	n := 0
	for _, c := range checkCells(t) {
		f := c.where[:strings.LastIndex(c.where, "[")]
		if c.kind == "markdown" && strings.HasPrefix(strings.TrimSpace(c.source), "## 练习") {
			after[f] = true
		}
		if c.kind != "code" || !after[f] {
			continue
		}
		for _, m := range compareLabel.FindAllStringSubmatch(c.source, -1) {
			n++
			if !strings.HasPrefix(m[1], "练习") {
				t.Errorf("%s: the exercise's check %q should start with 练习 (it says 你的答案, not 你的预测)", c.where, m[1])
			}
		}
	}
	if n < 8 {
		t.Errorf("only %d exercise checks found", n)
	}
}

// Letters keep one meaning through the unit: S is 03's complete
// successes (the SLO is written SLO), T the window in seconds (a
// sequence's steps are M).
var reusedLetter = regexp.MustCompile(`门槛 \$S\$|\\le S\b|\$T\$ 步|\\frac\{B\}\{T\b`)

func TestSymbolsKeepOneMeaning(t *testing.T) {
	for _, c := range notebookCells(t) {
		if m := reusedLetter.FindString(c.source); m != "" {
			t.Errorf("%s: %q gives S or T a second meaning (S: complete successes, T: window seconds)", c.where, m)
		}
	}
}

// Wordings the review found wrong, each with what replaced it.
var reviewTwoWordings = []struct{ never, why string }{
	{"不再更新梯度", "inference does no gradient update at all (不做梯度更新)"},
	{"`true` 表示", "a yes/no prediction is nb.Yes or nb.No; true does not compile"},
	{"可以作证", "one printed value corroborates nothing; say how to see it (change the SLO and re-run)"},
	{"质量通过率都会下降", "an exercise does not give its answer away"},
	{"先别往下翻", "predictions are gated by nb.Guessed, not by the honour system"},
	{"答案都在第 2 节的表里", "predictions are gated by nb.Guessed, not by the honour system"},
	{"一般不再更新", "inference does no gradient update at all"},
}

func TestReviewTwoWordings(t *testing.T) {
	for _, c := range notebookCells(t) {
		for _, w := range reviewTwoWordings {
			if strings.Contains(c.source, w.never) {
				t.Errorf("%s: %q: %s", c.where, w.never, w.why)
			}
		}
	}
}

// One home per topic: the percentile's interval is 10's, the tools'
// conventions 05's, TPOT 02's; elsewhere one sentence and a pointer.
func TestOneHomePerTopic(t *testing.T) {
	interval := regexp.MustCompile(`lab\.TTFTInterval|cardfmt\.CILine|\.CI95|PercentileByN|NeedNHigh|区间有上界`)
	trap := 0
	for _, c := range notebookCells(t) {
		if m := interval.FindString(c.source); m != "" && !strings.Contains(c.where, "/10-") {
			t.Errorf("%s: %q: the percentile's interval is taught in 10; point there", c.where, m)
		}
		if strings.Contains(c.source, "(1000 − 700) ÷ 2") {
			trap++
			if !strings.Contains(c.where, "/02-") && !strings.Contains(c.where, "/05-") {
				t.Errorf("%s: the stream-end TPOT (150 ms) is 02's mistake to anticipate and 05's tool trap; not a third time", c.where)
			}
		}
	}
	if trap > 2 {
		t.Errorf("the 150-vs-125 TPOT point appears %d times; once in 02 and once in 05", trap)
	}
}

// Continuous batching is a scheduling policy defined in 00's glossary;
// why a fuller batch raises throughput belongs with 10's saturation
// formula, not in its list of conditions, which keeps to the conditions.
func TestBatchingIsExplainedWhereItIsUsed(t *testing.T) {
	cells := nbCells(t, notebookCells(t), "10-lab-capacity.ipynb")
	conditions := oneCell(t, cells, "容量是对**一组固定条件**而言的")
	for _, aside := range []string{"连续批处理", "分摊", "吞吐因此"} {
		if strings.Contains(conditions.source, aside) {
			t.Errorf("%s: %q is an aside in the list of conditions: continuous batching is 00's glossary, the batch's cost goes with the saturation formula", conditions.where, aside)
		}
	}
	if formula := oneCell(t, cells, `\text{饱和吞吐} =`); !strings.Contains(formula.source, "分摊") {
		t.Errorf("%s: the saturation formula does not say why a full batch finishes more requests per second", formula.where)
	}
}

// In-flight attempts are in every denominator, neither failures nor
// qualified: 03 says so where it defines the ratios (the cell of the
// formulas or, one idea a cell, the one right after it), and the card
// says so under the failure rate whenever a window holds any.
func TestInFlightAttemptsAreExplained(t *testing.T) {
	cells := nbCells(t, notebookCells(t), "03-one-trace-four-conclusions.ipynb")
	ratios := oneCell(t, cells, `\text{失败率} = \frac{F}{A}`)
	said := ""
	for i, c := range cells {
		if c.where == ratios.where && i+1 < len(cells) {
			said = c.source + cells[i+1].source
		}
	}
	if !strings.Contains(said, "在途") || !strings.Contains(said, "不进 $F$") || !strings.Contains(said, "不进 $Q$") {
		t.Errorf("%s: say that in-flight attempts are in A but in neither F nor Q", ratios.where)
	}
	tr, err := trace.ReadFile(filepath.Join(repo, "data", "unit01", "practice.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}})
	if s.InFlight == 0 {
		t.Fatal("the practice trace has no in-flight attempt to show")
	}
	for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
		var b bytes.Buffer
		if err := cardfmt.Write(&b, s, "practice.jsonl", f); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "次在途尝试：还没有结束，既不算失败，也不算联合合格") {
			t.Errorf("the %s card does not say what its in-flight attempts are", f)
		}
	}
}

// What a lab run records as its conditions is Chinese, like everything a
// learner reads (09 wrote "the same prompt every request: …").
func TestConditionsAreWrittenInChinese(t *testing.T) {
	cond := regexp.MustCompile(`Conditions\["\w+"\]\s*=\s*"([^"]*)"`)
	for _, c := range unitCode(t) {
		for _, m := range cond.FindAllStringSubmatch(c.source, -1) {
			if !strings.ContainsFunc(m[1], func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
				t.Errorf("%s: condition %q is not Chinese", c.where, m[1])
			}
		}
	}
}

// The checks the learner walk found marking a right answer wrong, or
// praising the thing the lesson warns against, go through the helpers
// that are tested for it.
func TestChecksUseTheTestedHelpers(t *testing.T) {
	all := checkCells(t)
	funcs := unit01Funcs(t)
	for i := range all { // a lab cell runs the unit01 checks it calls
		all[i].source = withUnit01Checks(t, all[i].source, funcs)
	}
	for _, c := range []struct{ file, needle, want, why string }{
		{"01-draw-the-system.ipynb", "myObservation", "nb.CheckObservation(myObservation)", "placeholders and aggregates must not pass"},
		{"04-change-one-condition.ipynb", "sloFor06", "nb.CompareGives(", "the answer is a threshold; it is judged by the goodput it gives"},
		{"05-read-the-tool-docs.ipynb", "prediction.GapsWhenMerged", "if !nb.Guessed(prediction)", "05's predictions are gated like the others"},
		{"09-lab-real-engine.ipynb", "RunLengths(", "Requests: 6", "a median's ratio is read off runs sized by their sample (lab.Lengths, lab.Requests), not two requests"},
		{"09-lab-real-engine.ipynb", "RunLengths(", "lab.MedianLines(", "each median is printed with its interval (MedianLines is MedianLine of each run)"},
		{"10-lab-capacity.ipynb", "prediction.EngineBusyHigh", "lab.AnswerBusy(", "the search's limit is not presented as a capacity"},
		{"10-lab-capacity.ipynb", `experiment.CapacityFor(`, `CapacityFor(prediction, "sim"`, "the search shows progress, its rates hidden until predicted"},
	} {
		for _, cl := range nbCells(t, all, c.file) {
			if cl.kind == "code" && strings.Contains(cl.source, c.needle) && !strings.Contains(cl.source, "var ") && !strings.Contains(cl.source, c.want) {
				t.Errorf("%s: use %s: %s", cl.where, c.want, c.why)
			}
		}
		found := false
		for _, cl := range nbCells(t, all, c.file) {
			found = found || strings.Contains(cl.source, c.want)
		}
		if !found {
			t.Errorf("%s: no %s (%s)", c.file, c.want, c.why)
		}
	}
}
