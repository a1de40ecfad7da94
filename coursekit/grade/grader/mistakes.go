package grader

import (
	"math"
	"strings"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
)

// The unit's typical mistakes, recognised from a card's numbers and named
// in the class report, so an instructor sees what to teach again. Each is
// a pattern the wrong numbers follow, not a criterion: a card can fail
// figures.p95 for many reasons, and one of them is a linear P95.
const (
	MistakeFailuresDeleted = "failures_deleted"     // failed attempts left out of the counts
	MistakeMissingTTFTZero = "missing_ttft_as_zero" // attempts without a first token counted as TTFT 0
	MistakeLinearP95       = "linear_p95"           // P95 by linear interpolation, not nearest rank
	MistakeStrictLess      = "strict_less_than"     // TTFT < SLO where joint qualification says ≤
	MistakeCourseTrace     = "course_trace"         // the public teaching trace's numbers, not the own variant's
)

// MistakeInfo names a mistake in Chinese and says which criteria it costs.
type MistakeInfo struct {
	Code, Title string
	Criteria    []string
}

// MistakeList is every mistake the report names, in teaching order.
var MistakeList = []MistakeInfo{
	{MistakeFailuresDeleted, "删掉了失败的尝试（分母只剩成功请求）", []string{"stated.attempts", "figures.failure_rate", "figures.qualified_rate"}},
	{MistakeMissingTTFTZero, "把没有首字的尝试当成 TTFT = 0", []string{"stated.samples", "figures.p95"}},
	{MistakeLinearP95, "P95 用了线性插值，而不是最近秩", []string{"stated.method", "figures.p95"}},
	{MistakeStrictLess, "TTFT 恰好等于门槛的没算合格（联合合格是 ≤）", []string{"figures.qualified", "figures.qualified_rate", "figures.goodput", "figures.cost"}},
	{MistakeCourseTrace, "用了课程示例 trace，而不是发给自己的那一份", []string{criteria.OwnVariantID}},
}

// mistakeRef is what recognising the mistakes needs from one variant,
// computed once through metrics.
type mistakeRef struct {
	linearP95 *float64 // success TTFT P95 under linear interpolation
	atSLO     [2]int64 // qualified attempts whose TTFT is exactly the SLO (1 s, 0.5 s)
}

// mistakeRef is computed on first use, like the summary.
func (v *variantInfo) mistakeRef() *mistakeRef {
	v.refOnce.Do(func() {
		s := v.summary()
		r := &mistakeRef{linearP95: s.TTFTOther.P95}
		for i, c := range s.Conditions[:2] {
			rule, slo := c.Rule(), c.SLOTTFTMS
			for j := range v.t.Attempts {
				a := &v.t.Attempts[j]
				if !v.t.Header.Window.Contains(a.StartMS) {
					continue
				}
				if j := rule.Judge(a); j.Qualified && j.TTFTMS != nil && *j.TTFTMS == slo {
					r.atSLO[i]++
				}
			}
		}
		v.ref = r
	})
	return v.ref
}

// mistakesOf recognises the typical mistakes in card c, graded against
// own; traceSHA is the trace the self-check ran on, from the trace the
// own-variant check found the numbers copied from (nil: none).
func (g *Grader) mistakesOf(c *card.Card, own *variantInfo, traceSHA string, from *variantInfo) []string {
	s := own.summary()
	ref := own.mistakeRef()
	conds := criteria.CondsBySLO(c)
	var out []string
	// Failures deleted: the attempts or a failure rate's denominator count
	// only what did not fail, or no failure is counted at all.
	if s.Failures > 0 {
		f := c.FailureRate
		deleted := c.Attempts > 0 && int64(c.Attempts) == s.Attempts-s.Failures
		if f.Den > 0 && (f.Num == 0 || f.Den == float64(s.Attempts-s.Failures)) {
			deleted = true
		}
		if deleted {
			out = append(out, MistakeFailuresDeleted)
		}
	}
	// Missing TTFT as 0: the success sample counts the attempts that never
	// had a first token.
	if s.TTFTMissing > 0 && int64(c.SuccessSamples) == int64(s.TTFT.N)+s.TTFTMissing {
		out = append(out, MistakeMissingTTFTZero)
	}
	// Linear P95: the stated method, or a P95 that is the linear one where
	// the two methods differ.
	method := strings.ToLower(c.PercentileMethod)
	linear := strings.Contains(method, "linear") || strings.Contains(method, "线性") || strings.Contains(method, "插值")
	if lp, np := ref.linearP95, s.TTFT.P95; lp != nil && np != nil && math.Abs(*lp-*np) > 5 {
		if ms, _ := criteria.ToMS(c.P95); math.Abs(ms-*lp) <= 5 {
			linear = true
		}
	}
	if linear {
		out = append(out, MistakeLinearP95)
	}
	// < for ≤: a condition's qualified count misses exactly the attempts
	// whose TTFT equals the SLO.
	for i, cc := range conds {
		if cc != nil && ref.atSLO[i] > 0 && int64(cc.Qualified) == s.Conditions[i].Qualified-ref.atSLO[i] {
			out = append(out, MistakeStrictLess)
			break
		}
	}
	// The course trace: the numbers fit the public example, or the
	// self-check ran on it.
	public := from != nil && from.who == ""
	for _, o := range g.others {
		if o.who == "" && o.sha == traceSHA {
			public = true
		}
	}
	if public {
		out = append(out, MistakeCourseTrace)
	}
	return out
}
