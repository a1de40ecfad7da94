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
