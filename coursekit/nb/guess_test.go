package nb

import (
	"strings"
	"testing"
)

func TestCompareRefusesAnUndecidedGuessAndHidesTheAnswer(t *testing.T) {
	var g Guess // a field left out of the literal
	var ok bool
	out := stdout(t, func() { ok = Compare("暂停之后 TTFT 变了吗", g, true) })
	if ok {
		t.Error("an undecided guess was checked as agreeing")
	}
	if !strings.Contains(out, "未填") || strings.Contains(out, "计算结果 ") || !strings.Contains(out, "nb.Yes 或 nb.No") {
		t.Errorf("undecided guess: the output should say 未填 and show no answer, got %q", out)
	}
	for _, c := range []struct {
		g      Guess
		actual bool
		agree  bool
	}{{Yes, true, true}, {No, false, true}, {Yes, false, false}, {No, true, false}} {
		out := stdout(t, func() { ok = Compare("q", c.g, c.actual) })
		if ok != c.agree {
			t.Errorf("Compare(%v, %v) = %v, want %v (%q)", c.g, c.actual, ok, c.agree, out)
		}
		if !strings.Contains(out, "计算结果 "+YesNo(c.actual)) {
			t.Errorf("Compare(%v, %v) printed %q, want the answer 是/否 after the guess", c.g, c.actual, out)
		}
	}
	if out := stdout(t, func() { ok = Compare("q", Guess(7), true) }); ok || !strings.Contains(out, "未填") {
		t.Errorf("an invalid Guess must count as not written: %v %q", ok, out)
	}
}

func TestGuessedWaitsForEveryPrediction(t *testing.T) {
	var ok bool
	out := stdout(t, func() { ok = Guessed(3.0, Undecided, Unset, "B") })
	if ok {
		t.Fatal("Guessed said yes with two guesses missing")
	}
	if !strings.Contains(out, "第 2、3 项") {
		t.Errorf("Guessed should name the missing guesses by position, got %q", out)
	}
	if out := stdout(t, func() { ok = Guessed(3.0, No, 0, "B") }); !ok || out != "" {
		t.Errorf("all guesses written: got %v and output %q, want true and silence", ok, out)
	}
	if stdout(t, func() { ok = Guessed("?") }); ok {
		t.Error(`"?" is an unanswered quiz`)
	}
}

func TestGuessedReadsAPredictionStruct(t *testing.T) {
	type prediction struct {
		TTFTMS  float64
		Changes Guess
		Answer  string
		note    string // unexported: not a guess
	}
	var ok bool
	out := stdout(t, func() { ok = Guessed(prediction{TTFTMS: Unset, Changes: Yes, Answer: "?"}) })
	if ok {
		t.Fatal("Guessed said yes with TTFTMS and Answer missing")
	}
	if !strings.Contains(out, "prediction.TTFTMS、prediction.Answer") || strings.Contains(out, "Changes") {
		t.Errorf("Guessed should name exactly the missing fields, got %q", out)
	}
	if out := stdout(t, func() { ok = Guessed(prediction{TTFTMS: 700, Changes: No, Answer: "B"}) }); !ok || out != "" {
		t.Errorf("every field written: got %v and output %q, want true and silence", ok, out)
	}
}

func TestCompareDecimalsAppliesTheStatedRoundingRule(t *testing.T) {
	cost := 0.02 / 7 * 1000 // 2.857142…: 2.86 is 0.1 % off, so a relative tolerance decides by luck
	for _, c := range []struct {
		guess float64
		agree bool
		hint  string
	}{
		{2.86, true, ""},
		// More places than asked, each of them right: the same answer.
		{2.857, true, ""}, {2.857142857, true, ""}, {2.8571, true, ""},
		// More places, but wrong in one of them.
		{2.864, false, "回到上面的推理"}, {2.855, false, "回到上面的推理"},
		// Cut off instead of rounded, or rounded to fewer places: told so.
		{2.85, false, "四舍五入，不是直接舍去"}, {2.9, false, "你少保留了几位"}, {3, false, "你少保留了几位"},
	} {
		var ok bool
		out := stdout(t, func() { ok = CompareDecimals("成本", c.guess, cost, 2) })
		if ok != c.agree || !strings.Contains(out, c.hint) {
			t.Errorf("guess %v against %v at 2 decimals: agree = %v, want %v with hint %q (%q)", c.guess, cost, ok, c.agree, c.hint, out)
		}
		if !strings.Contains(out, "2.86") {
			t.Errorf("the output should show the rounded answer 2.86: %q", out)
		}
	}
	var ok bool
	if out := stdout(t, func() { ok = CompareDecimals("成本", float64(Unset), cost, 2) }); ok || strings.Contains(out, "2.86") {
		t.Errorf("unset guess: %v %q", ok, out)
	}
	// The learner walk's case: 2.857 typed, 2.857 computed, marked wrong.
	if out := stdout(t, func() { ok = CompareDecimals("练习 1：成本", 2.857, cost, 2, If(2.9, "要保留两位")) }); !ok || !strings.Contains(out, "你的答案 2.857") {
		t.Errorf("2.857 is right: %v %q", ok, out)
	}
}

// 03's exercise 2 declares its answers as an anonymous struct, whose type
// has no name: the missing fields are named without a dangling dot.
func TestGuessedNamesTheFieldsOfAnAnonymousStruct(t *testing.T) {
	handCounts := struct{ StrictAt500, NoQualityAt1000 int }{Unset, 3}
	out := stdout(t, func() { Guessed(handCounts) })
	if !strings.Contains(out, "还没填：StrictAt500）") || strings.Contains(out, ".StrictAt500") {
		t.Errorf("the missing field of an anonymous struct: %q", out)
	}
}
