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

// Judge applies joint qualification to one attempt: complete success AND
// quality pass AND TTFT ≤ SLO (inclusive).
func Judge(a *trace.Attempt, sloMS float64) Verdict {
	v := Verdict{Attempt: a.ID, Request: a.Request, Outcome: a.Outcome, Quality: a.Quality, Complete: a.Outcome == trace.OK}
	if t, ok := a.TTFT(); ok {
		v.TTFTMS = &t
	}
	v.Reason = reason(v.Complete, a.Quality, v.TTFTMS, sloMS)
	v.Qualified = v.Reason == Qualified
	return v
}

func reason(complete bool, q trace.Quality, ttft *float64, sloMS float64) Reason {
	switch {
	case !complete:
		return NotComplete
	case q == trace.Fail:
		return QualityFail
	case q == trace.Unrated:
		return QualityUnrated
	case ttft == nil || *ttft > sloMS:
		return TTFTOverSLO
	}
	return Qualified
}
