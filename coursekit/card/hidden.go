package card

import (
	"slices"

	"github.com/llmperf-course/course/coursekit/trace"
)

// Hidden criteria: run by the grader only. The self-check counts them
// (Report.Hidden) and never runs them, so a learner sees that more is
// checked without seeing what. Their hints, like the public ones, never
// contain an expected value, so feedback may show them.
//
// They test that the card hangs together as the learner's own work: its
// numbers agree with each other, not only with the trace one by one. A
// relation between numbers the card does not state proves nothing (the
// released card is all zeros, and zeros agree with each other), so each
// check first asks that the card writes the numbers it relates.
var hiddenCriteria = []criterion{
	{"hidden.goodput_consistency", "内部一致：goodput = 合格数 / 窗口长度", hiddenGoodput},
	{"hidden.cost_consistency", "内部一致：成本 = 窗口成本 / 合格数 × 1000", hiddenCost},
	{"hidden.qualified_rate_consistency", "内部一致：合格率的分子是合格数，分母是尝试数", hiddenQualifiedRate},
	{"hidden.samples_consistency", "内部一致：成功样本数 + 失败数 = 尝试数", hiddenSamples},
	{"hidden.slo_invariants", "门槛收紧时，合格数、合格率与 goodput 不增，合格率的分母不变", hiddenInvariants},
	{"hidden.qualified_bounds", "合格数不超过成功样本数", hiddenBounds},
	{"hidden.request_view", "尝试与业务请求分开计数（重试是新的尝试）", hiddenRequestView},
}

// HiddenIDs lists the hidden criteria, for the grader's tables.
func HiddenIDs() []string {
	ids := make([]string, len(hiddenCriteria))
	for i, cr := range hiddenCriteria {
		ids[i] = cr.id
	}
	return ids
}

// HiddenChecks runs the hidden criteria. It is for the grader: the
// notebook's self-check never calls it.
func HiddenChecks(c *Card, t *trace.Trace) []Result {
	if c == nil {
		c = &Card{}
	}
	return runCriteria(hiddenCriteria, c, t, "没有 trace，无法检查。")
}

// conditionStated reports whether the card writes any figure of c: a
// condition as released holds only its SLO, which states nothing the
// learner worked out.
func conditionStated(c *Condition) bool {
	return c.QualifiedRate.Num != 0 || c.QualifiedRate.Den != 0 || c.Qualified != 0 ||
		c.Goodput.Value != 0 || c.CostPer1000.Value != 0
}

// notStated is the hint of a hidden check whose numbers the card leaves
// empty: nothing can be cross-checked yet.
func notStated(what string) (Status, string) {
	return Fail, "口径卡还没有写出" + what + "，无法核对它们是否自洽。"
}

// present is the card's conditions that match one of the unit's SLOs.
func (k *checker) present() []*Condition {
	var cs []*Condition
	for _, c := range k.conds {
		if c != nil {
			cs = append(cs, c)
		}
	}
	return cs
}

func hiddenGoodput(k *checker) (Status, string) {
	w := k.c.Window.Seconds
	if !(w > 0) || len(k.present()) == 0 {
		return Fail, "口径卡缺少窗口长度或门槛条件，无法核对 goodput 与合格数是否自洽。"
	}
	for _, c := range k.present() {
		if c.Qualified == 0 && c.Goodput.Value == 0 {
			return notStated("每个门槛条件下的合格数和 goodput")
		}
		implied := float64(c.Qualified) / w
		if !consistent(goodputPerS(c.Goodput), implied, perSecTol) && !roundedFrom(c.Goodput.Value, implied/goodputFactor(c.Goodput)) {
			return Fail, "口径卡上的 goodput 与同一条件下写的合格数、窗口长度对不上：三者要能互相推出。四舍五入造成的差别不算（相差不到十分之一，或写下的数就是推出的数按你写的位数四舍五入，都算自洽，取整只在 goodput 那一项扣分），这里不是取整，多半是合格数或窗口长度用错了。"
		}
	}
	return Pass, ""
}

func hiddenCost(k *checker) (Status, string) {
	if len(k.present()) == 0 {
		return Fail, "口径卡缺少门槛条件，无法核对成本。"
	}
	for _, c := range k.present() {
		if c.Qualified == 0 && c.CostPer1000.Value == 0 {
			return notStated("每个门槛条件下的合格数和成本")
		}
	}
	if k.s.WindowCost == nil {
		return Pass, "" // nothing to be consistent with
	}
	for _, c := range k.present() {
		if c.Qualified <= 0 {
			if c.CostPer1000.Value != 0 {
				return Fail, "没有合格尝试时，每千次合格成本无从谈起，不应写出一个数。"
			}
			continue
		}
		want := *k.s.WindowCost / float64(c.Qualified) * 1000
		if !consistent(c.CostPer1000.Value, want, costTol) && !roundedFrom(c.CostPer1000.Value, want) {
			return Fail, "口径卡上的每千次合格成本与同一条件下写的合格数对不上：成本应由窗口成本和合格数推出。四舍五入造成的差别不算（相差不到十分之一，或写下的数就是推出的数按你写的位数四舍五入，都算自洽，取整只在成本那一项扣分），这里不是取整，多半是合格数用错了。"
		}
	}
	return Pass, ""
}

func hiddenQualifiedRate(k *checker) (Status, string) {
	if len(k.present()) == 0 {
		return Fail, "口径卡缺少门槛条件，无法核对合格率。"
	}
	if k.c.Attempts <= 0 {
		return notStated("全部尝试数")
	}
	for _, c := range k.present() {
		if !sameCount(c.QualifiedRate.Num, float64(c.Qualified)) || !sameCount(c.QualifiedRate.Den, float64(k.c.Attempts)) {
			return Fail, "合格率的分子、分母与口径卡上写的合格数、尝试数对不上。"
		}
	}
	return Pass, ""
}

func hiddenSamples(k *checker) (Status, string) {
	if k.c.Attempts <= 0 {
		return notStated("全部尝试数")
	}
	f := k.c.FailureRate
	if f.Num == 0 && f.Den == 0 {
		return notStated("失败率")
	}
	// In-flight attempts are neither successes nor failures.
	if !sameCount(f.Den, float64(k.c.Attempts)) ||
		!sameCount(float64(k.c.SuccessSamples)+f.Num+float64(k.s.InFlight), float64(k.c.Attempts)) {
		return Fail, "成功样本数、失败数和尝试数对不上：每次尝试要么完整成功，要么失败。"
	}
	return Pass, ""
}

// hiddenInvariants: changing the SLO changes no attempt's outcome, only
// which successes qualify. The success P95 and the failure rate are the
// card's, one each, so they cannot differ between conditions; what is left
// to hold is that a tighter SLO qualifies no more attempts, over the same
// denominator.
func hiddenInvariants(k *checker) (Status, string) {
	// The card's conditions in order of tightening SLO.
	type cond struct {
		ms float64
		c  *Condition
	}
	var cs []cond
	for _, c := range k.present() {
		if !conditionStated(c) {
			return notStated("每个门槛条件下的合格数、合格率和 goodput")
		}
		ms, ok := toMS(c.SLO)
		if !ok {
			return Fail, "门槛没有时间单位，无法比较两个条件。"
		}
		cs = append(cs, cond{ms, c})
	}
	if len(cs) < 2 {
		return Fail, "需要两个门槛条件才能比较。"
	}
	slices.SortFunc(cs, func(a, b cond) int {
		switch {
		case a.ms > b.ms:
			return -1
		case a.ms < b.ms:
			return 1
		}
		return 0
	})
	first := cs[0].c
	for _, x := range cs[1:] {
		c := x.c
		if !sameCount(c.QualifiedRate.Den, first.QualifiedRate.Den) {
			return Fail, "只改门槛不会改变任何一次尝试：两个条件下合格率的分母（全部尝试）应当相同。"
		}
		if c.Qualified > first.Qualified || c.QualifiedRate.Num > first.QualifiedRate.Num || goodputPerS(c.Goodput) > goodputPerS(first.Goodput)*(1+1e-9) {
			return Fail, "门槛收紧后，合格数、合格率和 goodput 都不可能变大。"
		}
	}
	return Pass, ""
}

func hiddenBounds(k *checker) (Status, string) {
	if len(k.present()) == 0 {
		return Fail, "口径卡缺少门槛条件，无法核对合格数。"
	}
	if k.c.SuccessSamples <= 0 {
		return notStated("成功样本数")
	}
	for _, c := range k.present() {
		if c.Qualified == 0 {
			return notStated("每个门槛条件下的合格数")
		}
		if c.Qualified < 0 || c.Qualified > k.c.SuccessSamples {
			return Fail, "合格必须先完整成功，合格数不能超过成功样本数。"
		}
	}
	return Pass, ""
}

// hiddenRequestView: with retries, attempts and business requests differ,
// and every rate on the card is per attempt. Without retries the two
// counts coincide: the card holds it when it states its attempts and
// counts every rate over them.
func hiddenRequestView(k *checker) (Status, string) {
	s := k.s
	if k.c.Attempts <= 0 || len(k.present()) == 0 {
		return notStated("全部尝试数和各比率的分母")
	}
	if s.Requests == s.Attempts {
		if !sameCount(k.c.FailureRate.Den, float64(k.c.Attempts)) {
			return Fail, "各比率的分母要按尝试计，与口径卡上写的全部尝试数一致。"
		}
		for _, c := range k.present() {
			if !sameCount(c.QualifiedRate.Den, float64(k.c.Attempts)) {
				return Fail, "各比率的分母要按尝试计，与口径卡上写的全部尝试数一致。"
			}
		}
		return Pass, ""
	}
	ok := int64(k.c.Attempts) == s.Attempts && sameCount(k.c.FailureRate.Den, float64(s.Attempts))
	for _, c := range k.present() {
		ok = ok && sameCount(c.QualifiedRate.Den, float64(s.Attempts))
	}
	if !ok {
		return Fail, "这份 trace 有重试：重试是一次新的尝试。尝试数和各比率的分母按尝试计，业务请求另外计数。"
	}
	return Pass, ""
}
