package metrics

import (
	"encoding/json"

	"github.com/llmperf-course/course/coursekit/trace"
)

// CapacityStop is the count a capacity search judged a step by, when the
// trace is one of its steps (conditions.capacity_step) and the search
// stopped it early on overload (conditions.run_end.reason "overload"): the
// search leaves the attempts still in flight at the stop out of its count
// (they were cut off, neither qualified nor failed), so its attainment is
// Qualified / Attempts while the card's denominators hold every in-window
// attempt. The views name this basis beside the card's own counts.
type CapacityStop struct {
	// Attempts are the step's in-window attempts less those in flight:
	// the capacity search's denominator.
	Attempts int64 `json:"attempts"`
	// InFlight are the attempts the stop cut off, left out of Attempts.
	InFlight int64 `json:"in_flight"`
	// Qualified counts the qualified attempts under the step's TTFT SLO
	// (SLOTTFTMS), from the card's condition at that SLO; nil when the
	// card has no such condition or its qualified count is unknown.
	Qualified *int64  `json:"qualified"`
	SLOTTFTMS float64 `json:"slo_ttft_ms"`
	// LatencySLO are that condition's SLOs beyond TTFT (E2E, say), which
	// the search judged the step by too (walk 35h, item 9).
	LatencySLO
}

// capacityStop is s's CapacityStop (nil when the trace is not a capacity
// step stopped early on overload), from the header's conditions and the
// summary's counts and conditions.
func capacityStop(s *Summary) *CapacityStop {
	if s.RunEnd == nil || s.RunEnd.Reason != trace.RunOverload || len(s.TraceConditions) == 0 {
		return nil
	}
	var c struct {
		Step *struct {
			SLOTTFTMS float64 `json:"slo_ttft_ms"`
		} `json:"capacity_step"`
	}
	if json.Unmarshal(s.TraceConditions, &c) != nil || c.Step == nil {
		return nil
	}
	out := &CapacityStop{Attempts: s.Attempts - s.InFlight, InFlight: s.InFlight, SLOTTFTMS: c.Step.SLOTTFTMS}
	for _, cond := range s.Conditions {
		if cond.SLOTTFTMS == c.Step.SLOTTFTMS && cond.Unknown == "" {
			q := cond.Qualified
			out.Qualified, out.LatencySLO = &q, cond.LatencySLO
			break
		}
	}
	return out
}
