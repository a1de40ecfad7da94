package metrics

import "github.com/llmperf-course/course/coursekit/trace"

// Reason is the first joint-qualification check an attempt fails.
type Reason string

const (
	Qualified      Reason = "qualified"
	NotComplete    Reason = "not_complete"    // any outcome but ok
	QualityFail    Reason = "quality_fail"    // complete, but the rubric said fail
	QualityUnrated Reason = "quality_unrated" // complete, but nobody rated it: not a pass
	TTFTOverSLO    Reason = "ttft_over_slo"   // complete and passed, but TTFT > SLO
)

// Verdict is one attempt judged on its own, before anything is aggregated.
type Verdict struct {
	Attempt  string
	Request  string
	Outcome  trace.Outcome
	Complete bool
	// TTFTMS is nil when no first event arrived: missing, not 0.
	TTFTMS    *float64
	Quality   trace.Quality
	Qualified bool
	Reason    Reason
}

// Rule is joint qualification under one condition: the one definition
// that the summary's counts, the charts' labels and stages, the
// notebooks' verdict tables and the grader all ask. An attempt qualifies
// when it is a complete success ∧ it passed quality (when quality is
// required) ∧ TTFT ≤ TTFTMS (inclusive) ∧ every latency SLO holds; it
// drops out at the first check it fails, in that order.
//
// A condition carries its rule (Condition.Rule); RuleAt is the rule of a
// condition with a TTFT SLO alone, the unit's rule.
type Rule struct {
	TTFTMS  float64
	Latency LatencySLO
	// QualityRequired: an unrated success does not qualify. It is false
	// only for a condition with latency SLOs whose trace asked for no judge
	// (QualityNotJudged); a quality fail never qualifies.
	QualityRequired bool
}

// RuleAt is the rule of a condition with the TTFT SLO sloMS and no other
// SLO: complete success ∧ quality pass ∧ TTFT ≤ sloMS.
func RuleAt(sloMS float64) Rule { return Rule{TTFTMS: sloMS, QualityRequired: true} }

// Rule is the condition's rule.
func (c Condition) Rule() Rule {
	return Rule{TTFTMS: c.SLOTTFTMS, Latency: c.LatencySLO, QualityRequired: c.QualityRule != QualityNotJudged}
}

// Judge applies the rule to one attempt.
func (r Rule) Judge(a *trace.Attempt) Verdict {
	return r.judge(a, func() Reason { return r.Latency.check(a) })
}

// JudgeMeasured applies the rule to an attempt of which a holds the
// outcome, quality and first event, and m the measures of the whole
// attempt (Measure): the verdict Judge gives the whole attempt.
func (r Rule) JudgeMeasured(a *trace.Attempt, m Measures) Verdict {
	return r.judge(a, func() Reason { return r.Latency.checkMeasures(m) })
}

func (r Rule) judge(a *trace.Attempt, latency func() Reason) Verdict {
	v := Verdict{Attempt: a.ID, Request: a.Request, Outcome: a.Outcome, Quality: a.Quality, Complete: a.Outcome == trace.OK}
	if t, ok := a.TTFT(); ok {
		v.TTFTMS = &t
	}
	v.Reason = r.before(v.Complete, a.Quality, v.TTFTMS)
	if v.Reason == Qualified {
		v.Reason = latency()
	}
	v.Qualified = v.Reason == Qualified
	return v
}

// before is the rule up to the latency SLOs: completeness, quality, TTFT.
func (r Rule) before(complete bool, q trace.Quality, ttft *float64) Reason {
	switch {
	case !complete:
		return NotComplete
	case q == trace.Fail:
		return QualityFail
	case q == trace.Unrated && r.QualityRequired:
		return QualityUnrated
	case ttft == nil || *ttft > r.TTFTMS:
		return TTFTOverSLO
	}
	return Qualified
}

// Judge applies RuleAt(sloMS), joint qualification under a TTFT SLO alone:
// complete success AND quality pass AND TTFT ≤ SLO (inclusive).
func Judge(a *trace.Attempt, sloMS float64) Verdict { return RuleAt(sloMS).Judge(a) }
