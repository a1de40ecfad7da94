package unit01

import (
	"fmt"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Notebook 03: one trace, four conclusions; its exercises (the 2 s
// threshold, the five mistakes, the linear P95, the rates per second).

// ConclusionsPrediction is notebook 03's prediction, field for field.
type ConclusionsPrediction = struct {
	Denominator string  // 测验：填 "A"、"B" 或 "C"
	P95MS       float64 // 完整成功的 TTFT 的 P95（最近秩），毫秒
	Qualified   int     // 门槛 1 s 下，联合合格的尝试有几次？
	GoodputPerS float64 // 合格 goodput，次/s
}

// CheckConclusions prints the four conclusions at a 1 s threshold and
// checks the quiz's denominator, the nearest-rank P95, the qualified count
// and the goodput, once the whole prediction is written.
func CheckConclusions[P ~ConclusionsPrediction](guess P, unit *trace.Trace) {
	prediction := ConclusionsPrediction(guess)
	if !nb.Guessed(guess) { // 预测写好之前不显示答案
		return
	}
	fmt.Print(nb.Conclusions(unit, 1000))
	at1s := nb.AtSLO(unit, 1000)
	nb.Compare("测验：失败率的分母", prediction.Denominator, "B",
		nb.If("A", "完整成功里没有失败：要问的是窗口里发出的全部尝试中有多少失败"), nb.If("C", "质量通过只是成功的一部分，失败也不在其中"))
	nb.Compare("成功 TTFT 的 P95（毫秒）", prediction.P95MS, cardopts.MustSummarize(unit, cardopts.Flags{}).TTFT.P95,
		nb.If(1720, "1720 ms 是线性插值；本课用最近秩，取排序后的第 ⌈0.95 × 8⌉ 个"), nb.If(1200, "⌈0.95 × 8⌉ = ⌈7.6⌉ 向上取整是 8，不是 7"), nb.If(2, "单位是毫秒：2 s 要写成 2000"))
	nb.Compare("联合合格的尝试", prediction.Qualified, at1s.Qualified, nb.If(6, "R5 首字很快，但质量不通过：三个条件要同时成立"), nb.If(8, "8 是完整成功数：还要过质量和 TTFT 门槛"),
		nb.If(7, "7 次完整成功又质量通过，但还要过 TTFT ≤ 1 s：R7、R8 首字太慢"))
	nb.Compare("goodput（次/s）", prediction.GoodputPerS, at1s.GoodputPerS, nb.If(0.625, "0.625 = 5 ÷ 8：goodput 除以窗口秒数（10 s），不是成功次数"),
		nb.If(5, "5 是联合合格的次数：goodput 还要除以窗口的 10 s"),
		nb.If(0.8, "0.8 = 8 ÷ 10 数的是完整成功：goodput 只数联合合格的尝试"))
}

// At2sAnswer is exercise 1 of notebook 03: the card at a 2 s threshold.
type At2sAnswer = struct {
	Qualified   int
	GoodputPerS float64
	CostPer1000 float64 // 元/千次合格，四舍五入到两位小数
}

// CheckLooserSLO checks exercise 1 of notebook 03: the qualified count,
// the goodput and the cost per 1000 qualified at a 2 s threshold, the two
// rates to two decimals.
func CheckLooserSLO(at2s At2sAnswer, unit *trace.Trace) {
	c := nb.AtSLO(unit, 2000)
	nb.Compare("练习 1：门槛 2 s 的联合合格数", at2s.Qualified, c.Qualified, nb.If(6, "R8 的 TTFT 恰好 2000 ms：门槛是 ≤，它也合格"), nb.If(8, "R5 质量不通过，门槛再宽也进不来"))
	nb.CompareDecimals("练习 1：门槛 2 s 的 goodput（次/s，两位小数）", at2s.GoodputPerS, c.GoodputPerS, 2, nb.If(0.875, "0.875 = 7 ÷ 8：goodput 除以窗口秒数，不是成功次数"))
	nb.CompareDecimals("练习 1：门槛 2 s 的每千次合格成本（元/千次合格，两位小数）", at2s.CostPer1000, c.CostPer1000, 2, nb.If(2.5, "2.5 = 0.02 ÷ 8 × 1000：除以的是 8 次完整成功；每千次合格成本除以联合合格的次数"))
}

// MistakePrediction is exercise 2's prediction of notebook 03 (mistakes
// A–C), field for field.
type MistakePrediction = struct {
	FailureRateAfterDelete float64 // 错误 A：删掉 R9、R10 后算出的失败率（0 到 1 之间的小数）
	Product                float64 // 错误 B：三个边际比例相乘的结果（保留 3 位小数）
	P50WithZerosMS         float64 // 错误 C：把缺失的 TTFT 记成 0 以后，P50 是多少毫秒？
}

// CheckDeletedFailures shows mistake A (the failures deleted before the
// failure rate is taken) beside the right rate, and checks its predicted
// result, once the exercise's predictions are written.
func CheckDeletedFailures[P ~MistakePrediction](guess P, unit *trace.Trace) {
	mistakes := MistakePrediction(guess)
	if !nb.Guessed(guess) { // 预测写好之前不显示答案
		return
	}
	wrong := cardopts.MustSummarize(unit.WithoutFailures(), cardopts.Flags{})
	right := cardopts.MustSummarize(unit, cardopts.Flags{})
	fmt.Printf("删掉失败后：失败率 %s，这只是“成功请求里的失败率”\n", cardfmt.RatioText(wrong.FailureRate))
	fmt.Printf("正确做法：失败率 %s\n", cardfmt.RatioText(right.FailureRate))
	fmt.Printf("两边成功 TTFT 的 P95 都是 %s：只看 P95，发现不了失败被删掉了\n", nb.MS(wrong.TTFT.P95))
	nb.Compare("练习 2：错误 A 的失败率", mistakes.FailureRateAfterDelete, nb.Value(wrong.FailureRate),
		nb.If(0.25, "0.25 = 2 ÷ 8 是只把分母换成了成功数（测验的选项 A）；这里连 R9、R10 本身也删掉了，分子还剩几次失败？"),
		nb.If(0.2, "0.2 是正确的失败率；删掉 R9、R10 之后，分子和分母各剩多少？"))
}

// CheckMarginalProduct shows mistake B (the three marginal rates
// multiplied) beside the qualified rate counted attempt by attempt, and
// checks its predicted product, once the exercise's predictions are
// written.
func CheckMarginalProduct[P ~MistakePrediction](guess P, unit *trace.Trace) {
	mistakes := MistakePrediction(guess)
	if !nb.Guessed(guess) { // 预测写好之前不显示答案
		return
	}
	product := 0.8 * 0.875 * (6.0 / 8)
	fmt.Printf("边际相乘：0.8 × 0.875 × 0.75 = %.4f\n", product)
	fmt.Printf("逐个判断：%s\n", cardfmt.RatioText(nb.AtSLO(unit, 1000).QualifiedRate))
	nb.CompareDecimals("练习 2：错误 B 的乘积", mistakes.Product, product, 3)
}

// CheckMissingAsZero shows mistake C (a missing TTFT counted as 0) beside
// the right P50, and checks its predicted P50, once the exercise's
// predictions are written.
func CheckMissingAsZero[P ~MistakePrediction](guess P, unit *trace.Trace) {
	mistakes := MistakePrediction(guess)
	if !nb.Guessed(guess) { // 预测写好之前不显示答案
		return
	}
	wrong := nb.TTFTsMissingAsZero(unit) // 错误 C：没有首字的尝试，TTFT 记成 0 照样放进来
	right := cardopts.MustSummarize(unit, cardopts.Flags{}).TTFT
	fmt.Printf("缺失记 0：n = %d，P50 = %s，两个“0 ms”把中位数拉低了\n", wrong.N, nb.MS(wrong.P50))
	fmt.Printf("正确做法：n = %d，P50 = %s（只含完整成功；失败留在失败率里）\n", right.N, nb.MS(right.P50))
	nb.Compare("练习 2：错误 C 的 P50（毫秒）", mistakes.P50WithZerosMS, wrong.P50, nb.If(450, "450 = (400 + 500) ÷ 2 是取中间两个数的平均；本课用最近秩，10 个值取第 ⌈0.5 × 10⌉ = 5 个"),
		nb.If(500, "500 ms 是正确的 P50，只含 8 个完整成功；这里要把两个缺失记成 0，放进 10 个值里再取"))
}

// HandCounts is exercise 2's prediction of notebook 03 for the hand
// counts (mistakes D and E).
type HandCounts = struct{ StrictAt500, NoQualityAt1000 int }

// CheckStrictCount shows mistake D (< in place of ≤ at 0.5 s) beside the
// right count, and checks its predicted count, once the hand counts are
// written.
func CheckStrictCount(handCounts HandCounts, unit *trace.Trace) {
	if !nb.Guessed(handCounts) { // 预测写好之前不显示答案
		return
	}
	strict := nb.CountWithLessThan(unit, 500) // 错误 D：TTFT 用了 < 500，而不是 ≤ 500
	right := nb.AtSLO(unit, 500).Qualified
	fmt.Printf("门槛 0.5 s，用 <：%d 次；正确（≤ 且质量通过）：%d 次\n", strict, right)
	nb.Compare("练习 2：错误 D 的计数", handCounts.StrictAt500, strict, nb.If(4, "4 是用 ≤ 数出的正确结果；用 < 时，TTFT 恰好 500 ms 的 R4 不算进来"),
		nb.Otherwise("门槛 0.5 s 时看 TTFT 恰好 500 ms 的 R4：用 < 它就不算进来"))
}

// CheckCountWithoutQuality shows mistake E (the quality condition left out
// at 1 s) beside the right count, and checks its predicted count, once the
// hand counts are written.
func CheckCountWithoutQuality(handCounts HandCounts, unit *trace.Trace) {
	if !nb.Guessed(handCounts) { // 预测写好之前不显示答案
		return
	}
	withR5 := nb.CountWithoutQuality(unit, 1000) // 错误 E：完整成功且 TTFT ≤ 1000，却忘了质量条件
	right := nb.AtSLO(unit, 1000).Qualified
	fmt.Printf("门槛 1 s，忘了质量：%d 次；正确（≤ 且质量通过）：%d 次\n", withR5, right)
	nb.Compare("练习 2：错误 E 的计数", handCounts.NoQualityAt1000, withR5, nb.If(5, "5 是正确的联合合格数；忘了质量条件，质量不通过的 R5（TTFT 600 ms）也混了进来"),
		nb.Otherwise("门槛 1 s 时看 R5：TTFT 只有 600 ms，但质量不通过，忘了质量条件它就混了进来"))
}

// CheckLinearP95 checks exercise 3 of notebook 03, the 8 successes' P95
// by linear interpolation (rounded to the millisecond), and prints both
// methods' P50 and P95, once the answer is written.
func CheckLinearP95(linearP95 float64, unit *trace.Trace) {
	if !nb.Guessed(linearP95) { // 预测写好之前不显示答案
		return
	}
	fmt.Print(nb.PercentileLines(unit))
	nb.CompareDecimals("练习 3：线性插值的 P95（毫秒，取整）", linearP95, nb.LinearP95(unit), 0,
		nb.If(2000, "2000 ms 是最近秩（本课的算法）取的样本；线性插值要在两个相邻样本之间按 h 的小数部分取值"),
		nb.If(1200, "这是 h 的整数部分指向的样本，h 的小数部分还没用上：还要往下一个样本走一段"),
		nb.Otherwise("先算 h = (n − 1) × p，n = 8 个成功样本；看 h 落在哪两个样本之间，再按小数部分插值"))
}

// RatesPrediction is exercise 4's prediction of notebook 03, field for
// field.
type RatesPrediction = struct {
	TokensPerS          float64  // 这份 trace 的输出 token/秒（窗口 10 s）
	LongerRaisesGoodput nb.Guess // 回答变长、其他不变，合格尝试/秒会变高吗？
}

// CheckRates prints the trace's rates per second and checks exercise 4 of
// notebook 03: the output tokens per second, and whether longer answers
// raise the qualified attempts per second, once both are written.
func CheckRates[P ~RatesPrediction](guess P, unit *trace.Trace) {
	rates := RatesPrediction(guess)
	if !nb.Guessed(guess) { // 预测写好之前不显示答案
		return
	}
	r := nb.PerSecond(unit, 1000)
	fmt.Println(r)
	nb.Compare("练习 4：输出 token/秒", rates.TokensPerS, r.TokensPerS, nb.If(r.Tokens, "这是 token 总数，还要除以窗口的 10 s"),
		nb.If(r.Tokens/8, "这是 token 总数 ÷ 8 次完整成功，即每次成功的 token 数；token/秒要除以窗口的 10 s"),
		nb.If(r.QualifiedTokensPerS, "只加了联合合格那几次的 token：输出 token/秒数的是所有完整成功的输出 token，和门槛无关"))
	nb.Compare("练习 4：回答变长，合格尝试/秒会变高吗", rates.LongerRaisesGoodput, false,
		nb.If(nb.Yes, "联合合格看完整成功、质量通过和 TTFT；多几个 token 不会让哪一次尝试变得合格，只会让 token/秒变高"))
}
