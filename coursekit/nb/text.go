package nb

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/text/width"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
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
	return numfmt.Num(v)
}

// NumTo prints v rounded half away from zero to decimals places, as Num
// writes it: NumTo(1234.6, 0) is "1235", NumTo(2.857, 2) is "2.86".
func NumTo(v float64, decimals int) string {
	p := math.Pow(10, float64(decimals))
	return Num(math.Round(v*p) / p)
}

// MS prints a latency that may be missing: "700 ms", "62.5 ms" (at most
// one decimal: a millisecond clock has no more), or 缺失 for nil (no first
// output, or no sample at all). Never 0.
func MS(v *float64) string {
	if v == nil {
		return Missing
	}
	return numfmt.MS(*v) + " " + numfmt.UnitMS
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
// A check whose what starts with 练习 is an exercise's: it calls the guess
// 你的答案, not 你的预测 (nothing was predicted).
//
// hints are what a wrong guess is told instead of the generic "go back and
// find the step": If(125, "…") for a known wrong answer, pointing at the
// step that produces it, IfAbove and IfBelow for a known direction of
// error, and Otherwise("…") for any other wrong answer.
// An unset guess is told no hint, since a hint would give the answer away.
func Compare(what string, guess, actual any, hints ...Hint) bool {
	return CompareWithin(what, guess, actual, 1e-3, hints...)
}

// CompareWithin is Compare for estimates: numbers agree when they differ
// by at most relTol of the computed value (0.1 is 10 %).
func CompareWithin(what string, guess, actual any, relTol float64, hints ...Hint) bool {
	if isUnset(guess) {
		unsetLine(what, guess)
		return false
	}
	agree := same(guess, actual, relTol)
	hints = append(hints[:len(hints):len(hints)], truncatedHint(guess, actual)...)
	fmt.Printf("%s：%s %s，计算结果 %s。%s\n", what, yours(what), Text(guess), Text(actual), verdictText(agree, guess, hints))
	return agree
}

// CompareFactor is Compare for an order of magnitude: a positive guess
// agrees when it is within factor times the computed value either way
// (factor 2: 0.1 against 0.06 agrees, 0.5 does not). A ratio read off a
// noisy run (a cache's speed-up, a machine's timing) is asked as "几分之几",
// where 0.1 and 0.06 are the same answer.
func CompareFactor(what string, guess, actual any, factor float64, hints ...Hint) bool {
	if isUnset(guess) {
		unsetLine(what, guess)
		return false
	}
	g, a, ok := numbers(guess, actual)
	agree := ok && g > 0 && a > 0 && math.Max(g/a, a/g) <= factor
	hints = append(hints[:len(hints):len(hints)], truncatedHint(guess, actual)...)
	fmt.Printf("%s：%s %s，计算结果 %s（相差 %s 倍以内算对）。%s\n", what, yours(what), Text(guess), Text(actual), Num(factor), verdictText(agree, guess, hints))
	return agree
}

// CompareGives is the check of an exercise that asks for an input, not a
// result ("which SLO gives a goodput of 0.6/s?", where every SLO on the
// step is right): it prints the learner's answer, what it gives (got,
// computed from the answer) and what was wanted, and they agree when got
// equals want within 0.1 %. hints match got, the result the answer gave.
func CompareGives(what string, answer any, gives string, got, want any, hints ...Hint) bool {
	if isUnset(answer) {
		unsetLine(what, answer)
		return false
	}
	agree := same(got, want, 1e-3)
	fmt.Printf("%s：%s %s → %s为 %s，要的是 %s。%s\n", what, yours(what), Text(answer), gives, Text(got), Text(want), verdictText(agree, got, hints))
	return agree
}

// yours is what a check calls the learner's guess: 你的答案 in an
// exercise (what starts with 练习), 你的预测 elsewhere.
func yours(what string) string {
	if strings.HasPrefix(what, "练习") {
		return "你的答案"
	}
	return "你的预测"
}

// unsetLine is what a check prints for a guess not written yet: the
// computed value stays hidden, since seeing it first would turn the
// prediction into copying.
func unsetLine(what string, guess any) {
	change := "把占位值改成你的答案"
	if _, ok := guess.(Guess); ok {
		change = "把 nb.Undecided 改成 nb.Yes 或 nb.No"
	}
	if yours(what) == "你的答案" {
		fmt.Printf("%s：你的答案 未填。请先%s，运行答案所在的单元格，再运行本单元格（写下答案之前不显示计算结果）。\n", what, change)
		return
	}
	fmt.Printf("%s：你的预测 未填。请先%s，运行预测单元格，再运行本单元格（写下预测之前不显示计算结果）。\n", what, change)
}

// Hint is what a wrong prediction is told when it matches: the step that
// typically produces that answer. An exact hint (If) names one answer, a
// range hint (IfAbove, IfBelow) a direction of error, and Otherwise any
// other wrong answer.
type Hint struct {
	Guess any
	Text  string
	kind  hintKind
	bound float64
	tol   float64 // IfNear's relative tolerance; 0 is If's 0.1 %
}

type hintKind int8

const (
	exactHint hintKind = iota
	aboveHint
	belowHint
	otherHint
)

// If is the hint for one known wrong answer: a number (matched within
// 0.1 %), nb.Yes or nb.No, or a text answer.
func If(guess any, text string) Hint { return Hint{Guess: guess, Text: text} }

// IfNear is If for a wrong answer read off a run: it matches any number
// within relTol of near (0.1 is 10 %), since the learner's figure for the
// known mistake is rounded (0.2 for a computed 0.194). It is matched with
// the exact hints, before any range.
func IfNear(near, relTol float64, text string) Hint {
	return Hint{Guess: near, Text: text, tol: relTol}
}

// IfAbove is the hint for a wrong number above bound (an overestimate of
// a known kind); IfBelow for one below it. The bound itself counts: a
// range hint only ever meets wrong answers, and a round guess such as 0.5
// against IfAbove(0.5) is the overestimate it names. An exact If is
// matched first.
func IfAbove(bound float64, text string) Hint { return Hint{Text: text, kind: aboveHint, bound: bound} }

// IfBelow is the hint for a wrong number below bound (see IfAbove).
func IfBelow(bound float64, text string) Hint { return Hint{Text: text, kind: belowHint, bound: bound} }

// Otherwise is the hint for a wrong answer no If names.
func Otherwise(text string) Hint { return Hint{Text: text, kind: otherHint} }

const genericHint = "回到上面的推理，找出差在哪一步"

func verdictText(agree bool, guess any, hints []Hint) string {
	if agree {
		return "一致 ✓"
	}
	return "不一致 ✗：" + hintFor(guess, hints)
}

// hintFor is the first hint that matches guess: an exact one, then a
// range, then Otherwise, then the generic line.
func hintFor(guess any, hints []Hint) string {
	for _, h := range hints {
		if h.kind == exactHint && same(guess, h.Guess, cmp.Or(h.tol, 1e-3)) {
			return h.Text
		}
	}
	if g, ok := number(guess); ok {
		for _, h := range hints {
			if h.kind == aboveHint && g >= h.bound || h.kind == belowHint && g <= h.bound {
				return h.Text
			}
		}
	}
	for _, h := range hints {
		if h.kind == otherHint {
			return h.Text
		}
	}
	return genericHint
}

// CompareDecimals is Compare for a value the exercise asks to round: the
// guess agrees when it equals the computed value rounded half away from zero
// to decimals places (2.857… → 2.86, so 2.86 passes and 2.9 does not), or
// carries more digits that round to it (2.857 is the same answer, written
// more precisely). A relative tolerance would let some roundings pass by
// luck and fail others. A guess cut off instead of rounded (2.85), or
// rounded to fewer places (2.9), is told so, unless a hint names it.
func CompareDecimals(what string, guess, actual any, decimals int, hints ...Hint) bool {
	if isUnset(guess) {
		unsetLine(what, guess)
		return false
	}
	g, a, ok := numbers(guess, actual)
	if !ok {
		return CompareWithin(what, guess, actual, 1e-3, hints...)
	}
	scale := math.Pow(10, float64(decimals))
	want := math.Round(a*scale) / scale
	eq := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y)) }
	// More places than asked: right when every place written is right,
	// i.e. the value rounded to as many places as the guess has.
	places := max(decimals, min(decimalPlaces(g), 12))
	p := math.Pow(10, float64(places))
	agree := eq(g, want) || eq(g, math.Round(a*p)/p)
	hints = append(hints[:len(hints):len(hints)],
		If(math.Trunc(a*scale)/scale, fmt.Sprintf("保留 %d 位小数时，后一位要四舍五入，不是直接舍去", decimals)))
	for d := decimals - 1; d >= 0; d-- {
		p := math.Pow(10, float64(d))
		hints = append(hints, If(math.Round(a*p)/p, fmt.Sprintf("要保留 %d 位小数，你少保留了几位", decimals)))
	}
	hints = append(hints, truncatedHint(guess, actual)...)
	fmt.Printf("%s：%s %s，计算结果 %s（保留 %d 位小数是 %s）。%s\n", what, yours(what), Text(guess), Num(a), decimals,
		numfmt.Fixed(want, decimals), verdictText(agree, guess, hints))
	return agree
}

// truncatedHint is the hint for a decimal answer that is the computed
// value with its fraction cut off (0 for 0.5, 83 for 83.3): what Go gives
// for a fraction typed as two integers (5/10, 250/3), which it divides as
// integers, without a word. It comes after the check's own hints, and
// never for an int answer, where a whole number is what was asked.
func truncatedHint(guess, actual any) []Hint {
	switch guess.(type) {
	case float64, float32:
	default:
		return nil
	}
	g, a, ok := numbers(guess, actual)
	if !ok || a == math.Trunc(a) || g != math.Trunc(a) {
		return nil
	}
	return []Hint{If(g, "Go 把两个整数相除时会舍去小数（5/10 得 0，250/3 得 83）：如果你写的是分数，写成 5.0/10 这样带小数点的形式，或者直接写小数")}
}

// decimalPlaces is how many places after the point v is written with
// (2.857 → 3, 4 → 0).
func decimalPlaces(v float64) int {
	s := numfmt.Exact(v)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
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

// numbers is guess and actual as numbers; ok is false unless both are.
func numbers(guess, actual any) (g, a float64, ok bool) {
	g, gok := number(guess)
	a, aok := number(actual)
	return g, a, gok && aok
}

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
	return strings.EqualFold(answerText(a), answerText(b))
}

// answerText is a text answer as compared: trimmed, with full-width letters
// and digits (Ｂ, typed with a Chinese input method) read as ASCII.
func answerText(v any) string {
	return strings.TrimSpace(width.Narrow.String(Text(v)))
}
