package metrics

// Check names one check of a condition's rule, in the order the checks
// apply (Rule): the funnel of a condition has one stage per check.
type Check string

const (
	CheckAttempts Check = "attempts" // every attempt in the window: the funnel's top, no check
	CheckComplete Check = "complete" // complete success
	CheckQuality  Check = "quality"  // quality pass (or, not required, no quality fail)
	CheckTTFT     Check = "ttft"     // TTFT ≤ the condition's SLO
	CheckE2E      Check = "e2e"      // E2E ≤ its SLO
	CheckITLP95   Check = "itl_p95"  // the attempt's own ITL P95 ≤ its SLO
	CheckTPOT     Check = "tpot"     // TPOT ≤ its SLO
)

// Stage is one check of a condition's rule with the attempts still in
// after it (Kept) and those it dropped (Dropped, the attempts whose first
// failed check it is). The last stage's Kept is the condition's
// Qualified; each stage's Kept is the previous one's less its Dropped.
type Stage struct {
	Check Check
	// LimitMS is the SLO of a latency check (TTFT, E2E, ITL P95, TPOT);
	// 0 for the others.
	LimitMS float64
	// Required is false for a quality check the rule does not require
	// (latency SLOs, no judge asked for): only quality fails drop there.
	Required bool
	Kept     int64
	Dropped  int64
}

// Stages are the checks of condition i of s in the order its rule applies
// them, each with what it kept and dropped: the counts of the summary,
// never recomputed. Nil when s has no condition i.
func (s *Summary) Stages(i int) []Stage {
	if i < 0 || i >= len(s.Conditions) {
		return nil
	}
	c := s.Conditions[i]
	r, d := c.Rule(), c.NotQualified
	kept := s.Attempts
	out := []Stage{{Check: CheckAttempts, Required: true, Kept: kept}}
	add := func(ch Check, limit float64, required bool, drop int64) {
		kept -= drop
		out = append(out, Stage{Check: ch, LimitMS: limit, Required: required, Kept: kept, Dropped: drop})
	}
	add(CheckComplete, 0, true, d.NotComplete)
	add(CheckQuality, 0, r.QualityRequired, d.QualityFail+d.QualityUnrated)
	add(CheckTTFT, r.TTFTMS, true, d.TTFTOverSLO)
	if r.Latency.E2EMS > 0 {
		add(CheckE2E, r.Latency.E2EMS, true, d.E2EOverSLO)
	}
	if r.Latency.ITLP95MS > 0 {
		add(CheckITLP95, r.Latency.ITLP95MS, true, d.ITLOverSLO)
	}
	if r.Latency.TPOTMS > 0 {
		add(CheckTPOT, r.Latency.TPOTMS, true, d.TPOTOverSLO)
	}
	return out
}

// Check is the check at which a verdict's attempt dropped out (its
// reason's stage); "" for a qualified attempt.
func (v Verdict) Check() Check {
	switch v.Reason {
	case NotComplete:
		return CheckComplete
	case QualityFail, QualityUnrated:
		return CheckQuality
	case TTFTOverSLO:
		return CheckTTFT
	case E2EOverSLO:
		return CheckE2E
	case ITLOverSLO:
		return CheckITLP95
	case TPOTOverSLO:
		return CheckTPOT
	}
	return ""
}
