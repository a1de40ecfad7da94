package unit01

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Notebook 04: one condition changed, the threshold from 1 s to newSLOMS.

// ThresholdPrediction is notebook 04's prediction, field for field.
type ThresholdPrediction = struct {
	Qualified        int      // 新门槛下联合合格几次？
	CostPer1000      float64  // 新门槛下每千次合格成本，元/千次合格
	FailureRateMoves nb.Guess // 失败率会变吗？
}

// CheckTighterSLO prints the conclusions at 1 s and at newSLOMS and checks
// the predicted qualified count, cost per 1000 qualified and whether the
// failure rate moves, once the whole prediction is written: the 1 s
// figures kept and < in place of ≤ are the mistakes it names, in words
// built from newSLOMS and the trace (04's parameter cell invites another
// threshold).
func CheckTighterSLO[P ~ThresholdPrediction](guess P, unit *trace.Trace, newSLOMS float64) {
	prediction := ThresholdPrediction(guess)
	if !nb.Guessed(guess) { // 预测写好之前不显示答案
		return
	}
	fmt.Print(nb.Conclusions(unit, 1000, newSLOMS))
	old, now := nb.AtSLO(unit, 1000), nb.AtSLO(unit, newSLOMS)
	h := TighterSLOHints(unit, newSLOMS)
	nb.Compare("新门槛下的联合合格数", prediction.Qualified, now.Qualified, nb.If(h.Below.Qualified, h.Strict), nb.If(old.Qualified, h.Stay))
	nb.Compare("新门槛下的每千次合格成本（元/千次合格）", prediction.CostPer1000, now.CostPer1000, nb.If(h.Below.CostPer1000, h.Strict), nb.If(old.CostPer1000, h.Stay),
		nb.If(h.PerQualified, h.PerQualifiedText))
	nb.Compare("失败率会变吗", prediction.FailureRateMoves, false, nb.If(nb.Yes, "失败率只看每次尝试是否完整成功，门槛不参与"))
}

// SLOHints are CheckTighterSLO's hints at one threshold.
type SLOHints struct {
	// Below is the condition with < in place of ≤; Strict names the
	// attempts whose TTFT is exactly the threshold, and says when the
	// count with < is also the 1 s count. Strict is "" when < changes
	// nothing (no such attempt).
	Below  metrics.Condition
	Strict string
	// Stay is the hint for the 1 s figures kept: attempts between the
	// two thresholds leave (a tighter one) or come in (a looser one).
	Stay string
	// PerQualified is the cost of one qualified attempt, the answer not
	// yet multiplied by 1000; nil without a cost.
	PerQualified     any
	PerQualifiedText string
}

// TighterSLOHints builds CheckTighterSLO's hints from the trace and the
// threshold newSLOMS.
func TighterSLOHints(unit *trace.Trace, newSLOMS float64) SLOHints {
	old, now := nb.AtSLO(unit, 1000), nb.AtSLO(unit, newSLOMS)
	h := SLOHints{Below: nb.AtSLO(unit, math.Nextafter(newSLOMS, 0))}
	move := "退出"
	if newSLOMS > 1000 {
		move = "进来"
	}
	h.Stay = "这是门槛 1 s 时的数：TTFT 落在新旧门槛之间的尝试会" + move
	if edge := atThreshold(unit, newSLOMS); h.Below.Qualified != now.Qualified && len(edge) > 0 {
		h.Strict = fmt.Sprintf("你用了 <：门槛是“TTFT ≤ %s s”，恰好 %s ms 的 %s 也合格", nb.Num(newSLOMS/1000), nb.Num(newSLOMS), strings.Join(edge, "、"))
		if h.Below.Qualified == old.Qualified {
			h.Strict += "；这也正是门槛 1 s 时的数"
		}
	}
	if now.CostPer1000 != nil {
		per := *now.CostPer1000 / 1000
		h.PerQualified, h.PerQualifiedText = per, nb.Num(per)+" 元是每一次合格的成本：每千次合格还要乘以 1000"
	}
	return h
}

// atThreshold names the complete, quality-passed attempts whose TTFT is
// exactly sloMS: those that ≤ keeps and < drops.
func atThreshold(t *trace.Trace, sloMS float64) []string {
	var out []string
	for i := range t.Attempts {
		a := &t.Attempts[i]
		if ttft, ok := a.TTFT(); ok && ttft == sloMS && a.Outcome == trace.OK && a.Quality == trace.Pass {
			out = append(out, a.ID)
		}
	}
	return out
}

// CheckSLOForGoodput checks exercise 2 of notebook 04 by the goodput the
// chosen threshold gives: any threshold on the 0.6/s step is right.
func CheckSLOForGoodput(sloFor06 float64, unit *trace.Trace) {
	g := nb.AtSLO(unit, sloFor06).GoodputPerS
	nb.CompareGives("练习 2：门槛（ms）", sloFor06, "goodput（次/s）", g, 0.6,
		nb.If(0.5, "5 次合格：门槛还要再放宽，让下一个质量通过的成功请求也进来"),
		nb.If(0.7, "7 次合格：门槛放得太宽，退回一个台阶"),
		nb.If(0.0, "goodput 为 0：没有一次合格的尝试。门槛的单位是毫秒，1.5 s 要写成 1500"),
		nb.IfBelow(0.45, "不到 5 次合格：门槛太严，差不止一个台阶；在图 01.6 里往右找 0.6 的那一级"))
}

// CheckQualifiedAt300 checks exercise 1 of notebook 04, the qualified
// count with the threshold at 300 ms, on its own: the prediction of §2
// stays judged at the parameter cell's threshold. The 0.5 s count kept
// and < in place of ≤ (R2's TTFT is exactly 300 ms) are the mistakes it
// names.
func CheckQualifiedAt300(qualifiedAt300 int, unit *trace.Trace) {
	now, at500 := nb.AtSLO(unit, 300), nb.AtSLO(unit, 500)
	nb.Compare("练习 1：门槛 300 ms 的联合合格数", qualifiedAt300, now.Qualified,
		nb.If(at500.Qualified, "这是门槛 0.5 s 时的数：TTFT 400 ms 的 R3 和 500 ms 的 R4 在 300 ms 下退出"),
		nb.If(1, "你用了 <：门槛是“TTFT ≤ 300 ms”，恰好 300 ms 的 R2 也合格"))
}
