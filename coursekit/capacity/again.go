package capacity

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// LoadAvg is the machine's 1-minute load average (Linux's /proc/loadavg)
// when a step's run started and when it ended: two searches with the same
// flags can then say whether a step decided differently under a different
// load. Null in JSON where the machine does not tell.
type LoadAvg struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// mean is the load average over the step, as far as two reads tell.
func (l *LoadAvg) mean() float64 { return (l.Start + l.End) / 2 }

// readLoadAvg reads the 1-minute load average; false where there is none.
// A variable, so that tests can set the machine's load.
var readLoadAvg = func() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}

// Why kinds: the reasons Again gives for two searches' answers.
const (
	// WhyFlagsDiffer: the searches were not run with the same flags, so
	// their answers need not agree.
	WhyFlagsDiffer = "flags_differ"
	// WhyInterrupted: one search was interrupted; its answer is provisional.
	WhyInterrupted = "interrupted"
	// WhyWithinResolution: the answers differ by no more than the
	// search's --resolution, the precision it was asked for.
	WhyWithinResolution = "within_resolution"
	// WhyIntervalsOverlap: at the first rate the two searches judged
	// differently, the 95 % intervals of its attainment overlap: the same
	// attainment, near the target, could give either verdict.
	WhyIntervalsOverlap = "intervals_overlap"
	// WhyUndecided: at that rate one search's step stayed undecided at its
	// longest window and counted as not meeting.
	WhyUndecided = "undecided"
	// WhyOverload: at that rate one search's step failed on overload.
	WhyOverload = "overload"
	// WhyLoadAverage: the machine's load average during that step differed
	// between the searches (by at least LoadAvgDiffers).
	WhyLoadAverage = "load_average"
	// WhyUnexplained: the intervals do not overlap and nothing recorded
	// differs: the server itself answered differently.
	WhyUnexplained = "unexplained"
)

// LoadAvgDiffers is the smallest difference of two steps' mean load
// averages that Again names as a reason.
const LoadAvgDiffers = 1.0

// Why is one reason two searches' answers differ.
type Why struct {
	Kind string `json:"kind"`
	// Rate is the first rate both searched and judged differently (null
	// for flags_differ, interrupted and within_resolution).
	Rate *float64 `json:"rate,omitempty"`
	// Previous and This are that step in each search.
	Previous *Step `json:"previous_step,omitempty"`
	This     *Step `json:"this_step,omitempty"`
	// Flags lists the flags that differ (flags_differ).
	Flags []string `json:"flags,omitempty"`
}

// Agreement is a search set beside an earlier one with the same flags:
// whether they give the same answer and, when they do not, why; a changed
// condition (WhyFlagsDiffer) is named either way.
type Agreement struct {
	// Previous names the earlier search's JSON (capacity --previous).
	Previous       string   `json:"previous"`
	Same           bool     `json:"same"`
	PreviousAnswer *float64 `json:"previous_answer"`
	Answer         *float64 `json:"answer"`
	PreviousBound  string   `json:"previous_bounded_by"`
	Bound          string   `json:"bounded_by"`
	// Resolution is the larger of the two searches' --resolution.
	Resolution float64 `json:"resolution"`
	// StepsDiffer is set beside the same answer (Same) when a rate both
	// searches ran was judged differently (one failed, the other stayed
	// undecided, say): the answers agree, their evidence does not, and
	// Reasons say why at that rate (walk 35h, item 3).
	StepsDiffer bool  `json:"steps_differ"`
	Reasons     []Why `json:"reasons"`
	// SameSeed says both searches were run with one --seed: every rate
	// both ran replayed the same arrival schedule (StepSeed derives a
	// step's seed from --seed and its rate), so the repeat checks the
	// server's variation, not the schedule's. False when either search
	// does not record its seed (saved before it did).
	SameSeed bool `json:"same_seed"`
	// Seed is that seed when SameSeed.
	Seed *uint64 `json:"seed,omitempty"`
}

// Again sets cur beside prev, an earlier search meant to be run with the
// same flags: the same answer (both none, or the same rate bounded the same
// way), with the reasons when a rate both ran was judged differently
// (StepsDiffer), or the reasons they differ, from what each search recorded: the
// flags, an interruption, the resolution, and at the first rate they
// judged differently the steps' intervals, verdicts, overload and load
// averages. Both searches follow the same path of rates until their
// verdicts first differ, so that rate was searched by both.
func Again(prev, cur *Result) Agreement {
	ag := Agreement{PreviousAnswer: prev.MaxRateMeeting, Answer: cur.MaxRateMeeting, PreviousBound: prev.bound(), Bound: cur.bound(),
		Resolution: max(prev.Resolution, cur.Resolution), Reasons: []Why{}}
	if prev.Seed != nil && cur.Seed != nil && *prev.Seed == *cur.Seed {
		seed := *cur.Seed
		ag.SameSeed, ag.Seed = true, &seed
	}
	ag.Same = sameRate(prev.MaxRateMeeting, cur.MaxRateMeeting) && prev.bound() == cur.bound()
	// Changed conditions are named even beside the same answer: it is then
	// an answer to two questions, not one found twice.
	if d := flagsDiffer(prev, cur); len(d) > 0 {
		ag.Reasons = append(ag.Reasons, Why{Kind: WhyFlagsDiffer, Flags: d})
	}
	if ag.Same {
		if p, c, ok := firstDifference(prev.Steps, cur.Steps); ok {
			ag.StepsDiffer = true
			ag.Reasons = append(ag.Reasons, stepReasons(p, c)...)
		}
		return ag
	}
	if prev.Provisional || cur.Provisional {
		ag.Reasons = append(ag.Reasons, Why{Kind: WhyInterrupted})
	}
	if a, b := prev.MaxRateMeeting, cur.MaxRateMeeting; a != nil && b != nil && math.Abs(*a-*b) <= ag.Resolution+1e-9 {
		ag.Reasons = append(ag.Reasons, Why{Kind: WhyWithinResolution})
	}
	if p, c, ok := firstDifference(prev.Steps, cur.Steps); ok {
		ag.Reasons = append(ag.Reasons, stepReasons(p, c)...)
	}
	if len(ag.Reasons) == 0 {
		ag.Reasons = append(ag.Reasons, Why{Kind: WhyUnexplained})
	}
	return ag
}

func sameRate(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// searchFlags are the flags a Result records, by name, for flagsDiffer.
var searchFlags = []struct {
	name string
	of   func(*Result) any
}{
	{"--target", func(r *Result) any { return r.Target }},
	{"--slo-ttft (ms)", func(r *Result) any { return r.SLOTTFTMS }},
	{"--slo-e2e (ms)", func(r *Result) any { return r.E2EMS }},
	{"--slo-itl-p95 (ms)", func(r *Result) any { return r.ITLP95MS }},
	{"--slo-tpot (ms)", func(r *Result) any { return r.TPOTMS }},
	{"--start-rate", func(r *Result) any { return r.StartRate }},
	{"--max-rate", func(r *Result) any { return r.MaxRate }},
	{"--growth", func(r *Result) any { return r.Growth }},
	{"--resolution", func(r *Result) any { return r.Resolution }},
	{"--warmup (s)", func(r *Result) any { return r.WarmupS }},
	{"--step-duration (s)", func(r *Result) any { return r.StepDurationS }},
	{"--step-max-duration (s)", func(r *Result) any { return r.StepMaxDurationS }},
	{"model", func(r *Result) any { return r.Model }},
	{"--max-tokens", func(r *Result) any { return r.MaxTokens }},
	{"quality judged (--dataset)", func(r *Result) any { return r.QualityJudged }},
}

// flagsDiffer names the recorded flags in which the searches differ.
func flagsDiffer(a, b *Result) []string {
	var d []string
	for _, f := range searchFlags {
		if x, y := f.of(a), f.of(b); fmt.Sprint(x) != fmt.Sprint(y) {
			d = append(d, fmt.Sprintf("%s %v vs %v", f.name, x, y))
		}
	}
	return d
}

// firstDifference is the first step, in search order, whose rate or
// verdict differs between the searches: both ran it when the rate is the
// same.
func firstDifference(a, b []Step) (Step, Step, bool) {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i].Rate != b[i].Rate {
			return Step{}, Step{}, false // not the same path: flags differ
		}
		if a[i].Verdict != b[i].Verdict {
			return a[i], b[i], true
		}
	}
	return Step{}, Step{}, false
}

// stepReasons says why two runs of one rate were judged differently.
func stepReasons(p, c Step) []Why {
	rate := p.Rate
	why := func(kind string) Why { return Why{Kind: kind, Rate: &rate, Previous: &p, This: &c} }
	var out []Why
	if p.CILow != nil && p.CIHigh != nil && c.CILow != nil && c.CIHigh != nil && *p.CILow <= *c.CIHigh && *c.CILow <= *p.CIHigh {
		out = append(out, why(WhyIntervalsOverlap))
	}
	if p.Verdict == Undecided || c.Verdict == Undecided {
		out = append(out, why(WhyUndecided))
	}
	if p.Overloaded() != c.Overloaded() {
		out = append(out, why(WhyOverload))
	}
	if p.LoadAvg != nil && c.LoadAvg != nil && math.Abs(p.LoadAvg.mean()-c.LoadAvg.mean()) >= LoadAvgDiffers {
		out = append(out, why(WhyLoadAverage))
	}
	if len(out) == 0 {
		out = append(out, why(WhyUnexplained))
	}
	return out
}
