package nb

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Learner-facing words for the trace's codes and for values a cell prints.
// The trace and the JSON keep the English codes (they are the format);
// what a learner reads in a cell is Chinese: no "timeout" or "true".

// OutcomeText is how an attempt ended, in Chinese (cardfmt.OutcomeName).
func OutcomeText(o trace.Outcome) string { return cardfmt.OutcomeName(o) }

// AttemptOutcome is OutcomeText with the one distinction the unit cares
// about for a timeout: whether the first output had arrived. A timeout
// before the first output leaves TTFT missing.
func AttemptOutcome(a *trace.Attempt) string {
	return cardfmt.OutcomeNameAt(a.Outcome, len(a.Events) > 0)
}

// QualityText is the quality rating in Chinese (cardfmt.QualityName): an
// unrated answer says so; it is never a pass.
func QualityText(q trace.Quality) string { return cardfmt.QualityName(q) }

// VerdictText says whether an attempt qualified under sloMS and, if not,
// the first check it failed, in Chinese: "合格", "否：失败",
// "否：质量", "否：未评分" or "否：时延（TTFT 800 ms > 门槛 500 ms）".
func VerdictText(a *trace.Attempt, sloMS float64) string {
	return reasonText(metrics.RuleAt(sloMS).Judge(a), sloMS)
}

// reasonText is VerdictText of a verdict under the TTFT SLO sloMS.
func reasonText(v metrics.Verdict, sloMS float64) string {
	switch v.Reason {
	case metrics.Qualified:
		return "合格"
	case metrics.NotComplete:
		return "否：失败"
	case metrics.QualityFail:
		return "否：质量"
	case metrics.QualityUnrated:
		return "否：未评分"
	case metrics.TTFTOverSLO:
		return "否：时延（TTFT " + MS(v.TTFTMS) + " > 门槛 " + Num(sloMS) + " ms）"
	}
	return "否"
}

// YesNo is 是 or 否.
func YesNo(b bool) string {
	if b {
		return "是"
	}
	return "否"
}

// Num prints a number the way people write it: 0.5, 4, 87.5, 1720
// (at most three decimals).
func Num(v float64) string {
	if math.IsNaN(v) {
		return Missing
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// MS prints a latency that may be missing: "700 ms", "62.5 ms" (at most
// one decimal: a millisecond clock has no more), or 缺失 for nil (no first
// output, or no sample at all). Never 0.
func MS(v *float64) string {
	if v == nil {
		return Missing
	}
	return Num(math.Round(*v*10)/10) + " ms"
}

// Text prints a value for a learner: bool as 是/否, a nil *float64 as
// 缺失, numbers as Num.
func Text(v any) string {
	switch x := v.(type) {
	case bool:
		return YesNo(x)
	case *float64:
		if x == nil {
			return Missing
		}
		return Num(*x)
	case Guess:
		return x.String()
	case float64:
		if isUnset(x) {
			return unsetText
		}
		return Num(x)
	case float32:
		if isUnset(x) {
			return unsetText
		}
		return Num(float64(x))
	case int:
		if x == Unset {
			return unsetText
		}
		return strconv.Itoa(x)
	case int64:
		if x == Unset {
			return unsetText
		}
		return strconv.FormatInt(x, 10)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// List prints values with their unit, the Chinese way: "100 ms、150 ms".
func List(values []float64, unit string) string {
	if len(values) == 0 {
		return "无"
	}
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = Num(v)
		if unit != "" {
			parts[i] += " " + unit
		}
	}
	return strings.Join(parts, "、")
}

// Unset is the value a numeric prediction field holds until the learner
// writes a guess. It is the smallest int32, a number no prediction in the
// course is near, so that a guess of -1 or 0 is checked like any other
// (with -1 as the sentinel a learner's -1 was taken for "not written").
// It is an untyped constant, so int and float64 fields both take it, and
// Text prints it as 未填. A NaN guess is unset too. A text answer is unset
// while it is "" or "?".
const Unset = math.MinInt32

// Compare is the check of a predict → compute → check step: it prints
// what was asked, the learner's guess and the computed value on one line,
// and says whether they agree. A guess still at Unset says so instead, and
// the computed value is not shown until there is a guess.
// Numbers agree within 0.1 % (CompareWithin takes another tolerance). It
// returns whether they agree.
//
// hints are what a wrong guess is told instead of the generic "go back and
// find the step": If(125, "…") for a known wrong answer, pointing at the
// step that produces it, and Otherwise("…") for any other wrong answer.
// An unset guess is told no hint, since a hint would give the answer away.
func Compare(what string, guess, actual any, hints ...Hint) bool {
	return CompareWithin(what, guess, actual, 1e-3, hints...)
}

// CompareWithin is Compare for estimates: numbers agree when they differ
// by at most relTol of the computed value (0.1 is 10 %).
func CompareWithin(what string, guess, actual any, relTol float64, hints ...Hint) bool {
	if isUnset(guess) {
		// The computed value stays hidden until there is a guess: seeing it
		// first would turn the prediction into copying.
		change := "把占位值改成你的答案"
		if _, ok := guess.(Guess); ok {
			change = "把 nb.Undecided 改成 nb.Yes 或 nb.No"
		}
		fmt.Printf("%s：你的预测 未填。请先%s，运行预测单元格，再运行本单元格（写下预测之前不显示计算结果）。\n", what, change)
		return false
	}
	agree := same(guess, actual, relTol)
	fmt.Printf("%s：你的预测 %s，计算结果 %s。%s\n", what, Text(guess), Text(actual), verdictText(agree, guess, hints))
	return agree
}

// Hint is what a wrong prediction is told when it matches Guess: the step
// that typically produces that answer. A Hint with no Guess (Otherwise)
// is for any other wrong answer.
type Hint struct {
	Guess any
	Text  string
	other bool
}

// If is the hint for one known wrong answer: a number (matched within
// 0.1 %), nb.Yes or nb.No, or a text answer.
func If(guess any, text string) Hint { return Hint{Guess: guess, Text: text} }

// Otherwise is the hint for a wrong answer no If names.
func Otherwise(text string) Hint { return Hint{Text: text, other: true} }

const genericHint = "回到上面的推理，找出差在哪一步"

func verdictText(agree bool, guess any, hints []Hint) string {
	if agree {
		return "一致 ✓"
	}
	hint := genericHint
	for _, h := range hints {
		if !h.other && same(guess, h.Guess, 1e-3) {
			return "不一致 ✗：" + h.Text
		}
		if h.other {
			hint = h.Text
		}
	}
	return "不一致 ✗：" + hint
}

// CompareDecimals is Compare for a value the exercise asks to round: the
// guess agrees when it equals the computed value rounded half away from zero
// to decimals places (2.857… → 2.86, so 2.86 passes and 2.9 does not). A
// relative tolerance would let some roundings pass by luck and fail others.
func CompareDecimals(what string, guess, actual any, decimals int, hints ...Hint) bool {
	if isUnset(guess) {
		return CompareWithin(what, guess, actual, 0)
	}
	g, gok := number(guess)
	a, aok := number(actual)
	if !gok || !aok {
		return CompareWithin(what, guess, actual, 1e-3, hints...)
	}
	scale := math.Pow(10, float64(decimals))
	want := math.Round(a*scale) / scale
	agree := math.Abs(g-want) <= 1e-9*math.Max(1, math.Abs(want))
	fmt.Printf("%s：你的预测 %s，计算结果 %s（保留 %d 位小数是 %s）。%s\n", what, Text(guess), Num(a), decimals,
		strconv.FormatFloat(want, 'f', decimals, 64), verdictText(agree, guess, hints))
	return agree
}

func isUnset(v any) bool {
	if g, ok := v.(Guess); ok {
		return g != Yes && g != No
	}
	if s, ok := v.(string); ok {
		return strings.TrimSpace(s) == "" || strings.TrimSpace(s) == "?" || strings.TrimSpace(s) == "？"
	}
	f, ok := number(v)
	return ok && (f == Unset || math.IsNaN(f))
}

// unsetText is how a guess not written yet prints.
const unsetText = "未填"

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case *float64:
		if x != nil {
			return *x, true
		}
	}
	return 0, false
}

func same(a, b any, relTol float64) bool {
	if g, ok := a.(Guess); ok {
		if bb, ok := b.(bool); ok {
			return (g == Yes) == bb
		}
	}
	fa, oka := number(a)
	fb, okb := number(b)
	if oka && okb {
		return math.Abs(fa-fb) <= math.Max(1e-9, relTol*math.Abs(fb))
	}
	return strings.EqualFold(strings.TrimSpace(Text(a)), strings.TrimSpace(Text(b)))
}
