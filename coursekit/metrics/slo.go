package metrics

import (
	"math"
	"slices"

	"github.com/llmperf-course/course/coursekit/trace"
)

// LatencySLO are the per-attempt SLOs checked beside TTFT; a zero field is
// not checked. Each is judged on the attempt alone, never on the run's
// distribution:
//   - E2E: end − send of the attempt;
//   - ITL P95: the nearest-rank P95 of the attempt's own gaps between
//     consecutive text events (an attempt with fewer than two events has no
//     gap and cannot exceed it);
//   - TPOT: (t_N − t_1) / (N − 1), the mean gap between output tokens
//     after the first (an answer of fewer than two tokens or two events
//     has none and cannot exceed it).
type LatencySLO struct {
	E2EMS    float64 `json:"slo_e2e_ms,omitempty"`
	ITLP95MS float64 `json:"slo_itl_p95_ms,omitempty"`
	TPOTMS   float64 `json:"slo_tpot_ms,omitempty"`
}

// Set reports whether any SLO beyond TTFT is given.
func (l LatencySLO) Set() bool { return l.E2EMS > 0 || l.ITLP95MS > 0 || l.TPOTMS > 0 }

// Reasons an attempt drops out after its TTFT met the SLO.
const (
	E2EOverSLO  Reason = "e2e_over_slo"
	ITLOverSLO  Reason = "itl_p95_over_slo"
	TPOTOverSLO Reason = "tpot_over_slo"
)

// Quality rules of a condition with latency SLOs beyond TTFT.
const (
	// QualityJudged: a judge was asked for, so an unrated success is not a pass.
	QualityJudged = "judged: unrated successes do not qualify"
	// QualityNotJudged: no judge was asked for (no dataset, no rated
	// attempt), so a complete success qualifies on latency alone.
	QualityNotJudged = "not judged: latency only"
)

// AttemptITLP95 is the nearest-rank P95 of a's own event gaps; ok is false
// with fewer than two events.
func AttemptITLP95(a *trace.Attempt) (ms float64, ok bool) {
	gaps := a.EventIntervals(nil)
	if len(gaps) == 0 {
		return 0, false
	}
	slices.Sort(gaps)
	k := int(math.Ceil(0.95*float64(len(gaps)))) - 1
	return gaps[max(k, 0)], true
}

// check returns the first latency SLO beyond TTFT that a complete success
// exceeds, in the order E2E, ITL P95, TPOT; Qualified if none.
func (l LatencySLO) check(a *trace.Attempt) Reason {
	return l.checkMeasures(measure(a, l))
}

// Measures are what the latency checks of a rule read of an attempt beyond
// its first event: its E2E, its own ITL P95 and its TPOT, each with
// whether the attempt has it. A view that keeps only part of an attempt
// (a chart's row: its first event) keeps its Measures, taken from the
// whole attempt, and judges with Rule.JudgeMeasured: the same verdict as
// Rule.Judge of the whole attempt.
type Measures struct {
	E2EMS, ITLP95MS, TPOTMS    float64
	HasE2E, HasITLP95, HasTPOT bool
}

// Measure takes every measure of a that a latency SLO may check.
func Measure(a *trace.Attempt) Measures {
	return measure(a, LatencySLO{E2EMS: 1, ITLP95MS: 1, TPOTMS: 1})
}

// measure takes the measures of a that l checks (the others are left
// missing).
func measure(a *trace.Attempt, l LatencySLO) Measures {
	var m Measures
	if l.E2EMS > 0 {
		m.E2EMS, m.HasE2E = a.E2E()
	}
	if l.ITLP95MS > 0 {
		m.ITLP95MS, m.HasITLP95 = AttemptITLP95(a)
	}
	if l.TPOTMS > 0 {
		m.TPOTMS, m.HasTPOT = a.TPOT()
	}
	return m
}

// checkMeasures is check on an attempt's measures.
func (l LatencySLO) checkMeasures(m Measures) Reason {
	if l.E2EMS > 0 {
		if !m.HasE2E || m.E2EMS > l.E2EMS {
			return E2EOverSLO
		}
	}
	if l.ITLP95MS > 0 {
		if m.HasITLP95 && m.ITLP95MS > l.ITLP95MS {
			return ITLOverSLO
		}
	}
	if l.TPOTMS > 0 {
		if m.HasTPOT && m.TPOTMS > l.TPOTMS {
			return TPOTOverSLO
		}
	}
	return Qualified
}

// candidate is a complete success that did not fail quality: it qualifies
// under a TTFT SLO when its TTFT is within it and its latency check passed.
type candidate struct {
	ttft   float64
	reason Reason // Qualified or the first latency SLO it exceeds
	rated  bool   // quality pass (else unrated)
	late   bool   // ended after the window closed
}

// SLOSet is the set of SLOs a bench run asks its card to use, recorded in
// the header as conditions.slo.
type SLOSet struct {
	TTFTMS []float64 `json:"slo_ttft_ms"`
	LatencySLO
}

// HeaderSLO reads conditions.slo (trace's ReadConditions, the layout
// SLOSet writes); nil when the header has none.
func HeaderSLO(h *trace.Header) (*SLOSet, error) {
	c, err := h.ReadConditions()
	if err != nil || c.SLO == nil {
		return nil, err
	}
	return &SLOSet{TTFTMS: c.SLO.TTFTMS, LatencySLO: LatencySLO{E2EMS: c.SLO.E2EMS, ITLP95MS: c.SLO.ITLP95MS, TPOTMS: c.SLO.TPOTMS}}, nil
}

// HeaderJudged reports whether the header says a judge was asked for
// (conditions.dataset).
func HeaderJudged(h *trace.Header) bool {
	c, err := h.ReadConditions()
	return err == nil && c.Dataset != nil
}
