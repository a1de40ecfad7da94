package criteria

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Criterion kinds.
const (
	KindPublic = "public" // the self-check's criteria, recomputed
	KindHidden = "hidden" // grader-only criteria
	KindManual = "manual" // free text: read by a person
)

// OwnVariantID is the hidden criterion that the card's numbers come from
// the learner's own variant.
const OwnVariantID = "hidden.own_variant"

// OwnVariantTitle is the own-variant criterion's title, as learners read it.
const OwnVariantTitle = "数字来自发给你的那一份 trace"

// ExecutionID is the criterion "the notebook, with its locked cells
// restored, runs top to bottom in the course image and reproduces the
// submitted card". It exists only when the batch was executed.
const ExecutionID = "execution"

// KindExecution is the kind of the ExecutionID score.
const KindExecution = "execution"

// DefaultExecutionPoints is the execution criterion's weight when the
// rubric does not name it.
const DefaultExecutionPoints = 2

// ManualIDs are the public criteria whose answer is free text.
var ManualIDs = map[string]bool{
	"stream.aggregation": true, "text.counter_evidence": true, "text.outputs": true, "text.denominator": true,
	"text.uncertain": true,
}

// DefaultPoints is the rubric: points per criterion id. Numbers and the
// path map weigh more than the stated definitions; free text is read by a
// person; copying someone else's numbers costs the most of any hidden row.
func DefaultPoints() map[string]float64 {
	p := map[string]float64{}
	for _, id := range card.CriterionIDs() {
		switch {
		case strings.HasPrefix(id, "map."), strings.HasPrefix(id, "figures."):
			p[id] = 2
		case ManualIDs[id] && id != "stream.aggregation" && id != "text.uncertain":
			p[id] = 2
		default:
			p[id] = 1
		}
	}
	for _, id := range card.HiddenIDs() {
		p[id] = 1
	}
	p[OwnVariantID] = 3
	return p
}

// CriterionIDs is every graded criterion in report order: public (manual
// ones included, in place), then hidden, then the own-variant check.
func CriterionIDs() []string {
	return append(append(card.CriterionIDs(), card.HiddenIDs()...), OwnVariantID)
}

// Score is one criterion's grade.
type Score struct {
	ID     string      `json:"id"`
	Title  string      `json:"title"`
	Kind   string      `json:"kind"`
	Status card.Status `json:"status"`
	Points float64     `json:"points"`
	Max    float64     `json:"max"`
	// Pending is true for free text waiting for a person; Points is 0 until then.
	Pending bool `json:"pending,omitempty"`
	// Message is learner-facing (Chinese) and never holds an expected value.
	Message string `json:"message,omitempty"`
	// Detail is for the instructor only: never written to learner feedback
	// or results.json.
	Detail string `json:"detail,omitempty"`
}

// SummaryOf is the summary of t every criterion is checked against: both
// of the unit's SLOs, 1 s and 0.5 s.
func SummaryOf(t *trace.Trace) *metrics.Summary {
	return cardopts.MustSummarize(t, cardopts.Unit(metrics.NearestRank), cardopts.OtherMethod(metrics.Linear))
}

// FmtPts writes points as people read them: at most two decimals, no
// trailing zeros.
func FmtPts(v float64) string {
	v = math.Round(v*100) / 100
	if v == 0 {
		return "0" // never "-0"
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

// Round2 rounds points to two decimals, so that totals add up as written
// (0.1 + 0.2 is not 0.3 in binary).
func Round2(v float64) float64 { return math.Round(v*100) / 100 }
