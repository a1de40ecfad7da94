package card

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// ---- conditions and figures ----

func sloLabel(ms float64) string {
	return strconv.FormatFloat(ms/1000, 'f', -1, 64) + " s"
}

func checkSLOs(k *checker) (Status, string) {
	var missing []string
	for i, slo := range unitSLOsMS {
		if k.conds[i] == nil {
			missing = append(missing, sloLabel(slo))
		}
	}
	if len(missing) > 0 {
		return Fail, "没有找到门槛为 " + strings.Join(missing, "、") + " 的条件。Conditions 里每个门槛一项，SLO 写成带单位的数。回看" + nbCondition + "。"
	}
	for _, c := range k.conds {
		if _, ok := toMS(c.SLO); !ok {
			return Fail, "门槛 SLO 要带时间单位（如 \"s\" 或 \"ms\"），否则别人不知道 1 是 1 秒还是 1 毫秒。"
		}
		if !conditionStated(c) { // the release pre-fills the SLOs: they alone are not filling in
			return Fail, "门槛条件里还只有门槛本身：在每个条件下写出你复算的数字，这一项才算填好。回看" + nbCondition + "。"
		}
	}
	return Pass, ""
}

// perCondition runs ok on each of the card's conditions against the
// summary's condition for the same SLO and names the SLOs where it fails.
// A missing condition fails too.
func (k *checker) perCondition(ok func(c *Condition, want *metrics.Condition) bool) (bad []string, missing bool) {
	for i, c := range k.conds {
		label := sloLabel(unitSLOsMS[i])
		if c == nil {
			missing = true
			bad = append(bad, label)
			continue
		}
		if !ok(c, &k.s.Conditions[i]) {
			bad = append(bad, label)
		}
	}
	return bad, missing
}

func failAt(bad []string, missing bool, hint string) (Status, string) {
	if len(bad) == 0 {
		return Pass, ""
	}
	if missing {
		return Fail, "先把两个门槛条件都填上（见“两个门槛条件”那一行）。"
	}
	return Fail, "门槛 " + strings.Join(bad, "、") + " 下：" + hint
}

func checkP95(k *checker) (Status, string) {
	// The mistake the unit anticipates: the number of the other method (a
	// tool's linear 1720 ms under a card that says nearest-rank). It is
	// named, without the number the stated method gives.
	stated, _ := parseMethod(k.c.PercentileMethod)
	if stated == "" {
		stated = k.s.PercentileMethod
	}
	// newChecker read the TTFT under nearest-rank and under the stated
	// method (linear when that is nearest-rank).
	other, otherP95 := metrics.Linear, (*float64)(nil)
	if k.s.TTFTOther != nil {
		otherP95 = k.s.TTFTOther.P95
	}
	if stated == metrics.Linear {
		other, otherP95 = metrics.NearestRank, k.s.TTFT.P95
	}
	// The card states one P95: no SLO enters it, so a wrong one is one
	// failed row, not one per condition.
	c := k.c.P95
	if k.p95 != nil && timeMatches(c, *k.p95) {
		return Pass, ""
	}
	ms, ok := toMS(c)
	rounded := ok && k.p95 != nil && c.Value != 0 && roundedFrom(c.Value, *k.p95*c.Value/ms)
	otherMethod := otherP95 != nil && timeMatches(c, *otherP95)
	hint := "P95 与按你写明的分位算法复算的结果不一致。只把完整成功请求的 TTFT 排序，再按算法取位置；也核对数值用的单位。回看" + nbFour + "。"
	switch {
	case c.Value == 0:
		hint = "还没有写成功 TTFT 的 P95（卡上只写一个，不放进门槛条件）。回看" + nbFour + "。"
	case otherMethod:
		hint = "你写的 P95 是按" + cardfmt.MethodName(other) + "算出的数，和卡上写明的分位算法对不上（压测工具多用线性插值）。" +
			"按你写明的算法重算，或者改写算法。回看" + nbFour + "。"
	case rounded:
		hint = roundedHint
	}
	return Fail, hint
}

func checkFailureRate(k *checker) (Status, string) {
	// One failure rate per card: which attempts fail does not depend on
	// the SLO.
	wantNum, wantDen := float64(k.s.Failures), float64(k.s.Attempts)
	r := k.c.FailureRate
	if sameCount(r.Num, wantNum) && sameCount(r.Den, wantDen) {
		return Pass, ""
	}
	hint := "失败率的分子是失败的尝试，分母是窗口内的全部尝试。回看" + nbFour + "。"
	switch {
	case r.Num == 0 && r.Den == 0:
		hint = "还没有写失败率（卡上只写一个，不放进门槛条件）：" + hint
	case r.Den != 0 && wantDen != 0 && near(r.Value(), wantNum/wantDen, 1e-9):
		hint = "比值的大小对了，但分子和分母要写实际的计数（不是约分后的数或百分数），别人才能复算。"
	case r.Num != 0 && sameCount(r.Den, float64(k.s.CompleteSuccess)):
		hint = "分母只数了完整成功的尝试。失败率问的是全部尝试里有几次失败：失败的那几次本身也是尝试，也在分母里。回看" + nbFour + "。"
	case r.Num == 0:
		hint = "失败的尝试是不是被删掉了？只在成功请求里数失败，永远数不到失败。分母要包括每一次尝试，失败的也算。回看" + nbFour + "。"
	}
	return Fail, hint
}

func checkQualified(k *checker) (Status, string) {
	bad, missing := k.perCondition(func(c *Condition, want *metrics.Condition) bool {
		return int64(c.Qualified) == want.Qualified
	})
	return failAt(bad, missing, "联合合格数与复算不一致。逐个请求判断：必须完整成功、质量通过、TTFT 不超过门槛三条同时成立。核对三件事：恰好等于门槛的算不算（≤ 还是 <）？质量不通过的请求是否被算了进来？失败请求是否混进了合格？回看"+nbFour+"和"+nbCondition+"。")
}

func checkQualifiedRate(k *checker) (Status, string) {
	var fractional, valueOnly bool
	bad, missing := k.perCondition(func(c *Condition, want *metrics.Condition) bool {
		r := c.QualifiedRate
		wn, wd := want.QualifiedRate.Num, want.QualifiedRate.Den
		if sameCount(r.Num, wn) && sameCount(r.Den, wd) {
			return true
		}
		if r.Num != math.Trunc(r.Num) || r.Den != math.Trunc(r.Den) {
			fractional = true
		} else if r.Den != 0 && wd != 0 && near(r.Value(), wn/wd, 1e-9) {
			valueOnly = true
		}
		return false
	})
	hint := "联合合格率是合格的尝试除以窗口内的全部尝试，分子分母都是计数。回看" + nbFour + "。"
	switch {
	case fractional:
		hint = "分子或分母不是整数计数：联合合格率要先逐个请求判断再数，不能把成功率、质量通过率和时延达标率相乘。回看" + nbFour + "。"
	case valueOnly:
		hint = "比值的大小对了，但分子和分母要写实际的计数（不是约分后的数或百分数），别人才能复算。"
	}
	return failAt(bad, missing, hint)
}

// goodputPerS reads a goodput figure as per second; without a rate unit
// the value is taken as per second (the unit row reports the unit).
func goodputPerS(f Figure) float64 { return f.Value * goodputFactor(f) }

// goodputFactor is what a goodput figure's value is multiplied by to read
// it per second: 1 without a rate unit.
func goodputFactor(f Figure) float64 {
	if _, factor, ok := rateFactor(f.Unit); ok {
		return factor
	}
	return 1
}

func checkGoodput(k *checker) (Status, string) {
	rounded := true
	bad, missing := k.perCondition(func(c *Condition, want *metrics.Condition) bool {
		if near(goodputPerS(c.Goodput), want.GoodputPerS, perSecTol) {
			return true
		}
		rounded = rounded && roundedFrom(c.Goodput.Value, want.GoodputPerS/goodputFactor(c.Goodput))
		return false
	})
	hint := "合格 goodput 与复算不一致：它数的是窗口内合格的尝试，除以窗口的长度，而不是输出 token 或全部请求。回看" + nbFour + "。"
	if rounded {
		hint = roundedHint
	}
	return failAt(bad, missing, hint)
}

func checkCost(k *checker) (Status, string) {
	rounded := true
	bad, missing := k.perCondition(func(c *Condition, want *metrics.Condition) bool {
		if want.CostPer1000 == nil {
			rounded = false
			return c.CostPer1000.Value == 0
		}
		if near(c.CostPer1000.Value, *want.CostPer1000, costTol) {
			return true
		}
		rounded = rounded && roundedFrom(c.CostPer1000.Value, *want.CostPer1000)
		return false
	})
	hint := "每千次合格成本与复算不一致：用窗口总成本（见 trace 表头）除以合格次数，再乘以 1000。回看" + nbFour + "。"
	switch {
	case k.s.WindowCost == nil || slices.ContainsFunc(k.s.Conditions, func(c metrics.Condition) bool { return c.CostPer1000 == nil }):
		hint = "这份 trace 没有记录窗口成本，或没有合格的尝试，算不出每千次合格成本；请把它留空（0）。"
	case rounded:
		hint = roundedHint
	}
	return failAt(bad, missing, hint)
}

// roundedHint is the hint for a figure whose only fault is its rounding
// (roundedFrom): the method is right, the number was cut too short.
const roundedHint = "算法没有问题，只是取整太粗：写下的数是复算值四舍五入到很少几位的结果，与复算值相差超过 1%（满分要在 1% 以内，10% 以内得一半）。保留 3 位有效数字，例如写 0.0952，不要写成 0.1。"

// roundedFrom reports whether written is want rounded to the significant
// digits written shows (0.1 from 0.0952, 1.2 from 1.234): the learner
// computed the right number and cut it short. A wrong count or method
// lands on want rounded this way only by chance.
func roundedFrom(written, want float64) bool {
	if written == 0 || math.IsNaN(written) || math.IsInf(written, 0) || math.IsNaN(want) || math.IsInf(want, 0) {
		return false
	}
	digits := 0
	mant, _, _ := strings.Cut(strconv.FormatFloat(math.Abs(written), 'e', -1, 64), "e")
	for _, r := range mant {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	if digits > 3 { // 3 significant digits are what the course asks for
		return false
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(want, 'g', digits, 64), 64)
	return err == nil && r == written
}

// ---- units ----

func checkP95Unit(k *checker) (Status, string) {
	if _, ok := toMS(k.c.P95); ok {
		return Pass, ""
	}
	return Fail, "P95 要写时间单位（\"s\" 或 \"ms\"），没有单位的数字无法复算。"
}

// ratioUnit checks that a ratio's unit names its numerator and denominator
// and that the denominator counts every attempt.
func ratioUnit(r Ratio, numWords []string) bool {
	num, den, ok := splitPer(r.Unit)
	return ok && num != "" && den != "" && containsAny(num, numWords...) && denominatorIsAttempts(den)
}

const ratioUnitHint = "单位写成“分子是什么/分母是什么”，例如“某类尝试/某类尝试”：分子说明数的是哪些尝试，分母说明是对哪些尝试而言。分母只写“成功请求”会把失败藏起来。回看" + nbFour + "。"

func checkFailureRateUnit(k *checker) (Status, string) {
	if ratioUnit(k.c.FailureRate, failWords) {
		return Pass, ""
	}
	return Fail, "失败率的" + ratioUnitHint
}

func checkQualifiedRateUnit(k *checker) (Status, string) {
	bad, missing := k.perCondition(func(c *Condition, _ *metrics.Condition) bool {
		return ratioUnit(c.QualifiedRate, qualWords)
	})
	return failAt(bad, missing, "联合合格率的"+ratioUnitHint)
}

func checkGoodputUnit(k *checker) (Status, string) {
	var wrongThing bool
	bad, missing := k.perCondition(func(c *Condition, _ *metrics.Condition) bool {
		num, _, ok := rateFactor(c.Goodput.Unit)
		if ok && containsAny(num, wrongRateNum...) {
			wrongThing = true
			return false
		}
		return ok && num != ""
	})
	hint := "goodput 的单位要写成“数的是什么/时间单位”，例如“次/s”，并说明数的是合格的尝试。"
	if wrongThing {
		hint = "goodput 数的是合格的请求尝试，不是 token、样本或设备指标；这些单位不同，不能放在一起比高低。回看" + nbFour + "。"
	}
	return failAt(bad, missing, hint)
}

func checkCostUnit(k *checker) (Status, string) {
	cur := currencyWords(k.s.Currency)
	bad, missing := k.perCondition(func(c *Condition, want *metrics.Condition) bool {
		f := c.CostPer1000
		if want.CostPer1000 == nil && f.Value == 0 {
			return true
		}
		u := norm(f.Unit)
		return (cur == nil || containsAny(u, cur...)) && containsAny(u, perThousand...) && containsAny(u, qualWords...)
	})
	return failAt(bad, missing, "成本的单位要同时写明币种（看 trace 表头的 currency）和“每千次合格”，例如“币种/千次合格”：分母是合格的尝试，不是全部请求。")
}
