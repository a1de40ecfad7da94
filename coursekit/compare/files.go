package compare

import (
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// File is a trace file and the name it goes by in a comparison.
type File struct {
	Path, Name string
}

// Files compares trace files: a and b are each side's runs, named by
// their paths. Every trace is read once (a bad one is an error naming
// FILE:LINE) and judged under one SLO set: o.Card's, or, without one, the
// first A trace's (its header's conditions.slo, else 1 s), so that a run
// recorded under other SLOs is still judged like the rest (and its
// recorded SLOs show up as a changed condition).
func Files(a, b []string, o Options) (*Result, error) {
	named := func(paths []string) []File {
		out := make([]File, len(paths))
		for i, p := range paths {
			out[i] = File{Path: p, Name: p}
		}
		return out
	}
	return NamedFiles(named(a), named(b), o)
}

// NamedFiles is Files with names of the caller's choosing.
func NamedFiles(a, b []File, o Options) (*Result, error) {
	flags := o.CardFlags()
	var ra, rb []Run
	for i, f := range append(append([]File(nil), a...), b...) {
		// One summary per trace, through cardopts as the card's.
		s, err := cardopts.SummarizeFile(f.Path, flags, cardopts.Resampling())
		if err != nil {
			return nil, err
		}
		if i == 0 {
			flags.TTFTMS, flags.Latency = nil, metrics.LatencySLO{}
			for _, c := range s.Conditions {
				flags.TTFTMS = append(flags.TTFTMS, c.SLOTTFTMS)
				flags.Latency = c.LatencySLO
			}
		}
		if i < len(a) {
			ra = append(ra, Run{Name: f.Name, Summary: s})
		} else {
			rb = append(rb, Run{Name: f.Name, Summary: s})
		}
	}
	return Compare(ra, rb, o)
}
