package compare

import (
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
)

// Warning is one thing a reader must know before trusting the verdicts:
// Kind names it for scripts, Text says it.
type Warning struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Kinds of warnings.
const (
	// WarnSLODropped: SLO flags replaced runs' recorded SLO sets, dropping
	// an SLO beyond TTFT they record (cardopts.Dropped).
	WarnSLODropped = "slo_dropped"
	// WarnUnrated: the rule requires a quality pass and no complete
	// success is rated, so qualified rates and goodput are 0 on that side
	// whatever the latency (the card's note).
	WarnUnrated = "unrated"
)

var msgRunsNote = lang.Msg{"%s（%s）", "%s (%s)"}

// warnings are r's warnings in l.
func (r *Result) warnings(l lang.Lang) []Warning {
	out := []Warning{}
	runs := r.allRuns()
	// The card's note on SLOs dropped, once per distinct note, naming its
	// runs.
	var texts []string
	byText := map[string][]string{}
	for _, run := range runs {
		if t := cardfmt.SLONoteIn(l, run.Summary); t != "" {
			if byText[t] == nil {
				texts = append(texts, t)
			}
			byText[t] = append(byText[t], run.Name)
		}
	}
	for _, t := range texts {
		out = append(out, Warning{WarnSLODropped, msgRunsNote.F(l, t, strings.Join(byText[t], msgSep.In(l)))})
	}
	// The card's note on unrated successes, over every run it applies to.
	var names []string
	var n int64
	for _, run := range runs {
		if cardfmt.Unrated(run.Summary) {
			names = append(names, run.Name)
			n += run.Summary.CompleteSuccess
		}
	}
	if len(names) > 0 {
		out = append(out, Warning{WarnUnrated, msgRunsNote.F(l, cardfmt.UnratedNoteIn(l, n), strings.Join(names, msgSep.In(l)))})
	}
	return out
}

// allRuns are the runs of A, then of B, with their names.
func (r *Result) allRuns() []Run {
	var out []Run
	for _, s := range []Side{r.A, r.B} {
		for i, sum := range s.runs {
			out = append(out, Run{Name: s.Traces[i], Summary: sum})
		}
	}
	return out
}
