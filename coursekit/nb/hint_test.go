package nb

import (
	"math"
	"strings"
	"testing"
)

// A known wrong answer is told which step went wrong; another wrong answer
// gets the prediction's own fallback, or the generic line if it has none.
func TestCompareHintPointsAtTheStep(t *testing.T) {
	hints := []Hint{
		If(125, "你把 E2E 算到了最后一个 token；本课的 E2E 到 t_end"),
		If(100.0, "你只取了一个间隔"),
		Otherwise("TPOT = (E2E − TTFT) ÷ (N − 1)"),
	}
	var ok bool
	out := stdout(t, func() { ok = Compare("TPOT（毫秒/token）", 125.0, 150.0, hints...) })
	if ok || !strings.Contains(out, "最后一个 token") || strings.Contains(out, "只取了一个间隔") || strings.Contains(out, "找出差在哪一步") {
		t.Errorf("125 against 150: want its own hint only: %v %q", ok, out)
	}
	out = stdout(t, func() { ok = Compare("TPOT（毫秒/token）", 100, 150.0, hints...) })
	if ok || !strings.Contains(out, "只取了一个间隔") || strings.Contains(out, "最后一个 token") {
		t.Errorf("100 against 150: %v %q", ok, out)
	}
	out = stdout(t, func() { ok = Compare("TPOT（毫秒/token）", 90, 150.0, hints...) })
	if ok || !strings.Contains(out, "TPOT = (E2E − TTFT)") || strings.Contains(out, "最后一个 token") {
		t.Errorf("another wrong answer gets the fallback: %v %q", ok, out)
	}
	out = stdout(t, func() { ok = Compare("TPOT（毫秒/token）", 150, 150.0, hints...) })
	if !ok || strings.Contains(out, "t_end") || strings.Contains(out, "TPOT = ") {
		t.Errorf("a right answer gets no hint: %v %q", ok, out)
	}
	out = stdout(t, func() { ok = CompareWithin("比值", 2.0, 1.5, 0.1, If(2, "你用了均值")) })
	if ok || !strings.Contains(out, "你用了均值") {
		t.Errorf("CompareWithin takes hints: %v %q", ok, out)
	}
	out = stdout(t, func() { ok = CompareDecimals("成本", 2.9, 2.857142, 2, If(2.9, "保留两位：2.86")) })
	if ok || !strings.Contains(out, "保留两位") {
		t.Errorf("CompareDecimals takes hints: %v %q", ok, out)
	}
	out = stdout(t, func() {
		ok = Compare("暂停之后 TTFT 变了吗", Yes, false, If(Yes, "暂停发生在首个输出之后"))
	})
	if ok || !strings.Contains(out, "首个输出之后") {
		t.Errorf("a yes/no guess takes a hint: %v %q", ok, out)
	}
	// An unset guess is never told a hint: the hint would give the answer away.
	out = stdout(t, func() { ok = Compare("TPOT（毫秒/token）", Unset, 150.0, hints...) })
	if ok || strings.Contains(out, "t_end") || strings.Contains(out, "TPOT = ") {
		t.Errorf("unset guess: %v %q", ok, out)
	}
}

// Unset cannot be mistaken for a value: -1 (the old sentinel) and 0 are
// guesses a learner can write and are checked, while Unset and NaN are not.
// Unset prints as 未填 wherever a cell prints a guess.
func TestUnsetIsNotAValue(t *testing.T) {
	var ok bool
	out := stdout(t, func() { ok = Compare("E2E − (TTFT + ΣITL)（毫秒）", -1, -1.0) })
	if !ok || !strings.Contains(out, "一致") {
		t.Errorf("-1 is a guess like any other: %v %q", ok, out)
	}
	var asInt int = Unset
	var asFloat float64 = Unset
	for _, g := range []any{asInt, asFloat, math.NaN(), int64(Unset)} {
		out := stdout(t, func() { ok = Compare("失败的尝试", g, 2) })
		if ok || !strings.Contains(out, "你的预测 未填") {
			t.Errorf("%T %v is unset: %v %q", g, g, ok, out)
		}
	}
	if got := Text(asFloat); got != "未填" {
		t.Errorf("Text(Unset) = %q, want 未填", got)
	}
	if got := Text(asInt); got != "未填" {
		t.Errorf("Text(int Unset) = %q, want 未填", got)
	}
	if Guessed(-1.0, 0) != true {
		t.Error("-1 and 0 are written guesses")
	}
}

// A range hint names a direction of error, its bound included (09's 0.5
// against IfAbove(0.5) got the generic line); an exact one wins over it,
// and a guess outside every hint gets Otherwise.
func TestRangeHintsNameADirection(t *testing.T) {
	hints := []Hint{If(0.25, "2/8：分母换成了成功数"), IfAbove(0.5, "太大"), IfBelow(0.01, "太小"), Otherwise("别的")}
	for _, c := range []struct {
		guess float64
		want  string
	}{{0.25, "2/8"}, {0.9, "太大"}, {0.001, "太小"}, {0.3, "别的"}, {0.5, "太大"}, {0.01, "太小"}} {
		out := stdout(t, func() { Compare("失败率", c.guess, 0.0, hints...) })
		if !strings.Contains(out, c.want) {
			t.Errorf("%v: want hint %q: %q", c.guess, c.want, out)
		}
	}
}

// An exercise's check calls the learner's number an answer, not a
// prediction, in every form of Compare.
func TestExerciseChecksSayAnswer(t *testing.T) {
	for _, f := range []func(){
		func() { Compare("练习 3：E2E", 1000, 1000.0) },
		func() { CompareWithin("练习 3：到达率", 7, 7.5, 0.1) },
		func() { CompareDecimals("练习 1：成本", 2.86, 2.857142, 2) },
		func() { CompareFactor("练习 1：比值", 0.1, 0.06, 2) },
		func() { CompareGives("练习 2：门槛（ms）", 800, "goodput", 0.6, 0.6) },
	} {
		if out := stdout(t, f); !strings.Contains(out, "你的答案") || strings.Contains(out, "预测") {
			t.Errorf("an exercise says 你的答案: %q", out)
		}
	}
	if out := stdout(t, func() { Compare("练习 3：E2E", Unset, 1000.0) }); !strings.Contains(out, "你的答案 未填") || strings.Contains(out, "1000") {
		t.Errorf("an unset answer: %q", out)
	}
	if out := stdout(t, func() { Compare("TTFT（毫秒）", 700, 700.0) }); !strings.Contains(out, "你的预测 700") {
		t.Errorf("a prediction stays a prediction: %q", out)
	}
}

// An order of magnitude agrees within the factor, either way.
func TestCompareFactorReadsAnOrderOfMagnitude(t *testing.T) {
	for _, c := range []struct {
		guess float64
		agree bool
	}{{0.1, true}, {0.03, true}, {0.06, true}, {0.5, false}, {0.02, false}, {0, false}, {-0.06, false}} {
		var ok bool
		out := stdout(t, func() {
			ok = CompareFactor("同一个提示词 ÷ 不同的", c.guess, 0.06, 2, IfAbove(0.3, "缓存省掉了预填充"))
		})
		if ok != c.agree {
			t.Errorf("%v against 0.06 within 2×: %v, want %v (%q)", c.guess, ok, c.agree, out)
		}
		if c.guess == 0.5 && !strings.Contains(out, "缓存省掉了预填充") {
			t.Errorf("0.5 is told its hint: %q", out)
		}
	}
}

// An exercise that asks for an input is judged by what the input gives:
// any SLO on the 0.6/s step is right, and the line names the result, not
// a prediction of it (04's exercise printed "你的预测 0.6").
func TestCompareGivesJudgesTheResult(t *testing.T) {
	var ok bool
	out := stdout(t, func() {
		ok = CompareGives("练习 2：门槛（ms）", 900.0, "goodput（次/s）", 0.6, 0.6)
	})
	if !ok || !strings.Contains(out, "你的答案 900 → goodput（次/s）为 0.6，要的是 0.6。一致") {
		t.Errorf("900 ms gives 0.6: %v %q", ok, out)
	}
	out = stdout(t, func() {
		ok = CompareGives("练习 2：门槛（ms）", 1000.0, "goodput（次/s）", 0.5, 0.6, If(0.5, "五次合格"))
	})
	if ok || !strings.Contains(out, "五次合格") || strings.Contains(out, "你的预测") {
		t.Errorf("1000 ms gives 0.5, told by the result: %v %q", ok, out)
	}
}

// A letter answer is read as typed with a Chinese input method too: "Ｂ"
// (full width), " b " and "B" are the same answer.
func TestLetterAnswersIgnoreWidthCaseAndSpace(t *testing.T) {
	for _, g := range []string{"B", "b", " B ", "Ｂ", "ｂ"} {
		var ok bool
		out := stdout(t, func() { ok = Compare("测验：失败率的分母", g, "B", If("A", "完整成功里没有失败")) })
		if !ok {
			t.Errorf("%q against B: %q", g, out)
		}
	}
	if out := stdout(t, func() { Compare("测验：失败率的分母", "Ａ", "B", If("A", "完整成功里没有失败")) }); !strings.Contains(out, "完整成功里没有失败") {
		t.Errorf("a full-width A is told A's hint: %q", out)
	}
}

// A fraction typed as two integers (GoodputPerS: 5/10) is divided as
// integers by Go and arrives as 0: a decimal answer that is the computed
// value cut to a whole number is told so, after the check's own hints. An
// int answer (a count) is not.
func TestIntegerDivisionIsNamed(t *testing.T) {
	for _, c := range []struct {
		f    func() bool
		want bool
	}{
		{func() bool { return Compare("goodput（次/s）", float64(5/10), 0.5) }, true},
		{func() bool { return CompareWithin("比值", float64(250/3), 250.0/3, 0.001) }, true},
		{func() bool { return CompareFactor("比值", float64(1/16), 0.06, 2) }, true},
		{func() bool { return CompareDecimals("成本", float64(20/7), 20.0/7, 2) }, true},
		{func() bool { return Compare("goodput（次/s）", float64(5/10), 0.5, If(0, "零")) }, false},
		{func() bool { return Compare("失败的尝试", 0, 0.5) }, false},
		{func() bool { return Compare("比值", 1.0, 0.5) }, false},
	} {
		var ok bool
		out := stdout(t, func() { ok = c.f() })
		if ok || strings.Contains(out, "整数相除") != c.want {
			t.Errorf("want the integer-division hint: %v: %q", c.want, out)
		}
	}
}

// IfNear names a mistake read off a run, rounded as the learner writes it:
// 0.2 for a computed drop of 0.194, before a range hint that would also
// match; far from it, the next hint applies.
func TestNearHintTakesARoundedMistake(t *testing.T) {
	share := 0.806
	hints := []Hint{IfNear(1-share, 0.15, "下降的比例"), IfNear(1/share, 0.15, "除反了"), IfAbove(1, "0 到 1 之间")}
	for _, c := range []struct {
		guess float64
		want  string
	}{{0.2, "下降的比例"}, {0.19, "下降的比例"}, {1.25, "除反了"}, {1.2, "除反了"}, {80, "0 到 1 之间"}, {0.5, "找出差在哪一步"}} {
		var ok bool
		out := stdout(t, func() { ok = CompareWithin("比", c.guess, share, 0.1, hints...) })
		if ok || !strings.Contains(out, c.want) {
			t.Errorf("%v against %v: want %q: %v %q", c.guess, share, c.want, ok, out)
		}
	}
}
