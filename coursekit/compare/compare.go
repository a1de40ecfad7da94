// Package compare answers two questions about an A/B measurement: is B
// really better than A, metric by metric, and did only one condition
// change between them? Like Go's benchstat, it takes one or several runs
// (traces) per side and gives, for every metric, A, B, B − A, the
// relative change, a 95 % interval of the difference with its method
// named, and a verdict that knows the metric's direction: better, worse,
// or same (the interval holds 0; printed "~").
//
// Every number comes from coursekit/metrics: a run's value is its own
// card's number (its summary through cardopts, as the card computes it),
// and with several runs a side's value
// is the mean of its runs' values. The intervals:
//
//   - one run per side: percentiles by the bootstrap over attempts
//     (MethodBootstrap), TTFT and E2E drawn exactly from each run's order
//     statistics (metrics.OrderWindow.Resample), the event gaps by attempt,
//     an attempt's gaps together (metrics.ClusterWindow.Resample), since
//     they are not independent (above 2,048 attempts, from the cluster
//     bootstrap's normal limit, which costs no draw per attempt); shares of attempts (failure rate,
//     qualified rate) by Newcombe's hybrid score interval for a difference
//     of two proportions, from the two Wilson intervals (MethodNewcombe);
//     goodput and output tokens per second, counts over a fixed window, by
//     a Poisson score interval of each side combined the same way
//     (MethodPoisson). Between-run variance is not covered, and the output
//     says so.
//   - several runs on both sides: goodput and tokens per second by Welch's
//     t interval over the runs' own rates (MethodWelchRuns): the runs are
//     the independent units, whose spread carries the noise within them,
//     open loop or closed, with no Poisson assumption;
//   - several runs on a side: every other metric by a hierarchical bootstrap
//     (MethodHierarchical): each resample draws the side's runs with
//     replacement, then each drawn run's attempts with replacement (for
//     goodput and tokens per second, counts over the window, a Poisson
//     bootstrap: each attempt counted a Poisson(1) number of times, so the
//     count varies as an open loop's arrivals do), and averages the runs'
//     redrawn values, so the interval carries the variance between runs as
//     well as within them. With few runs it cannot see much of the former:
//     three runs that differ a lot give an interval too narrow (measured
//     coverage 0.81–0.87 instead of 0.95 when run-to-run shifts of ±30 %
//     dominate); runs that differ only by sampling give one too wide (their
//     within-run noise is counted twice).
//     For shares, the interval is also widened to Newcombe's over the
//     side's attempts pooled (MethodHierarchicalNewcombe): a share at 0 %
//     or 100 % in every run gives the bootstrap nothing to redraw.
//   - several runs on both sides, percentiles and shares: the hull of the
//     above and Welch's t over the runs' own values
//     (MethodHierarchicalWelch, MethodHierarchicalNewcombeWelch), so the
//     verdict takes the runs as the independent units (A/A coverage 0.965–0.995
//     with run-level shifts, TestCoverageWithRunShifts, against 0.81 for
//     the TTFT median from the bootstrap alone).
//
// Only a share difference is clipped, to [−1, 1], the bounds that hold for
// the true shares (possible; Metric.Clipped names the bounds moved): the
// observed values bound no true difference.
//
// A percentile whose own 95 % order-statistic interval has no upper (or
// lower) bound in some run — too few samples, as the card says — leaves the
// within-run method's difference unbounded on that side. With several runs
// on both sides, each with a value, the interval is then Welch's t over the
// runs alone (MethodWelchRuns, Metric.WelchOnly), since the runs still
// bound it; otherwise it stays unbounded, and the verdict is then same. For the
// event gaps the samples counted are the run's attempts with gaps (the
// clusters the bootstrap redraws), not its gaps. Above that bound the
// event-gap P95 interval covers about 0.935 rather than 0.95 (seeded A/A
// pairs, docs/engineers.md).
//
// The bootstrap is seeded (Options.Seed): the same traces and options give
// the same output, byte for byte. Each metric draws from its own stream,
// seeded by Options.Seed and the metric's data in each run, so identical
// data give identical intervals and no metric's interval depends on which
// others are compared.
package compare

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Verdicts of a metric.
const (
	Better = "better"
	Worse  = "worse"
	// Same means the 95 % interval of B − A holds 0: no difference is
	// shown at this sample size. benchstat prints it "~".
	Same = "same"
	// NA means a side has no value (e.g. no complete success, so no
	// percentile): nothing to compare.
	NA = "n/a"
)

// Interval methods, named beside every interval.
const (
	// MethodBootstrap is the percentile bootstrap over attempts, one run
	// per side.
	MethodBootstrap = "bootstrap"
	// MethodHierarchical is the two-stage percentile bootstrap: runs with
	// replacement, then attempts within each drawn run.
	MethodHierarchical = "hierarchical-bootstrap"
	// MethodHierarchicalNewcombe, for shares with several runs on a side,
	// is the hull of the hierarchical bootstrap's interval and Newcombe's
	// over the runs' attempts pooled: a share at 0 % or 100 % in every run
	// leaves the bootstrap nothing to redraw ([0, 0]), a certainty no
	// sample gives, and the pooled interval is what the attempts alone
	// allow; between-run variance can only widen it.
	MethodHierarchicalNewcombe = "hierarchical-bootstrap+newcombe-wilson"
	// MethodNewcombe is Newcombe's hybrid score interval (his method 10)
	// for a difference of two proportions, from their Wilson intervals.
	MethodNewcombe = "newcombe-wilson"
	// MethodPoisson is a score interval for each side's count over its
	// window, Poisson for goodput and scaled Poisson for tokens, combined
	// into an interval of the difference by the same square-and-add
	// (MOVER) as Newcombe's.
	MethodPoisson = "poisson-score-mover"
	// MethodWelchRuns is Welch's t interval over the runs' own values: for
	// goodput and tokens per second with several runs on each side, whose
	// runs, not attempts, are the independent units (a closed loop's count
	// of attempts is no Poisson count).
	MethodWelchRuns = "welch-t-runs"
	// With several runs on both sides, a percentile's or a share's
	// interval is the hull of its within-run method's and Welch's t over
	// the runs' own values (a rate's is MethodWelchRuns alone), and the
	// method names both; Welch's part is left out when the runs agree
	// exactly, with no spread to scale a t by.
	MethodHierarchicalWelch         = MethodHierarchical + "+" + MethodWelchRuns
	MethodHierarchicalNewcombeWelch = MethodHierarchicalNewcombe + "+" + MethodWelchRuns
)

// Bounds of an interval clipped (Metric.Clipped).
const (
	ClippedLow  = "low"
	ClippedHigh = "high"
)

// What an interval covers (Metric.Covers): a side's variance between runs
// is carried only when it has two runs or more.
const (
	// CoversAttempts: the sampling noise within one run a side only, not
	// the variance between runs.
	CoversAttempts = "attempts"
	// CoversRuns: the variance between runs on both sides, and within
	// them.
	CoversRuns = "runs_and_attempts"
	// CoversRunsOfA and CoversRunsOfB: between-run variance on that side
	// only (the other has one run).
	CoversRunsOfA = "runs_of_a_and_attempts"
	CoversRunsOfB = "runs_of_b_and_attempts"
)

// covers is what an interval over na and nb runs covers.
func covers(na, nb int) string {
	switch {
	case na > 1 && nb > 1:
		return CoversRuns
	case na > 1:
		return CoversRunsOfA
	case nb > 1:
		return CoversRunsOfB
	}
	return CoversAttempts
}

// Default levels of the compared percentiles, and the resamples drawn.
var (
	DefaultTTFTLevels = []float64{0.50, 0.95, 0.99}
	DefaultE2ELevels  = []float64{0.95}
	DefaultITLLevels  = []float64{0.50, 0.95}
)

// DefaultResamples is how many bootstrap resamples an interval draws.
const DefaultResamples = 2000

// DefaultSeed seeds the bootstrap when Options.Seed is not set.
const DefaultSeed = 1

// Options choose what is compared and how.
type Options struct {
	// Card are the card's flags both sides are summarized under
	// (cardopts, as `coursekit card` reads them): SLOs, percentile method,
	// memory budget. With no SLO, Files takes the first A trace's (its
	// header's conditions.slo, else 1 s) for every trace. Levels are set
	// by compare (TTFT, E2E, ITL).
	Card cardopts.Flags
	// TTFT, E2E and ITL are the percentile levels compared (fractions;
	// nil: the defaults).
	TTFT, E2E, ITL []float64
	// Seed seeds every bootstrap (0: DefaultSeed).
	Seed uint64
	// Resamples is the number of bootstrap resamples (0: DefaultResamples).
	Resamples int
}

func (o Options) withDefaults() Options {
	if o.TTFT == nil {
		o.TTFT = DefaultTTFTLevels
	}
	if o.E2E == nil {
		o.E2E = DefaultE2ELevels
	}
	if o.ITL == nil {
		o.ITL = DefaultITLLevels
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Resamples <= 0 {
		o.Resamples = DefaultResamples
	}
	return o
}

// CardFlags are the flags a run's summary must be computed under for
// Compare, with the extra cardopts.Resampling (Summarize does both):
// o.Card with every compared level.
func (o Options) CardFlags() cardopts.Flags {
	o = o.withDefaults()
	c := o.Card
	c.Levels = levelsOf(o)
	return c
}

// Summarize is the summary of an in-memory trace as Compare needs it
// (CardFlags, and what the bootstrap redraws), through cardopts.
func (o Options) Summarize(t *trace.Trace) (*metrics.Summary, error) {
	return cardopts.Summarize(t, o.CardFlags(), cardopts.Resampling())
}

// levelsOf is every compared level, ascending, once.
func levelsOf(o Options) []float64 {
	ls := slices.Concat(o.TTFT, o.E2E, o.ITL)
	slices.Sort(ls)
	return slices.Compact(ls)
}

// Run is one trace's summary and the name it goes by (its file).
type Run struct {
	Name    string
	Summary *metrics.Summary
}

// Result is a comparison, in the JSON shape `coursekit compare --format
// json` prints.
type Result struct {
	A Side `json:"a"`
	B Side `json:"b"`
	// ConditionsChanged lists every condition whose values differ between
	// the sides (see Conditions).
	ConditionsChanged []ConditionDiff `json:"conditions_changed"`
	Metrics           []Metric        `json:"metrics"`
	// RecordedSLOs lists the recorded SLOs (conditions.slo.*) whose values
	// differ between the sides or among a side's runs: a judgement, not a
	// condition of the runs, since every run is judged under one set (SLO);
	// never in ConditionsChanged.
	RecordedSLOs []ConditionDiff `json:"recorded_slos_differ,omitempty"`
	// RunsDiffer lists the conditions on which the runs of one side differ
	// among themselves.
	RunsDiffer []RunsDiffer `json:"runs_differ"`
	// BetweenRuns says, per side, whether the intervals carry the variance
	// between runs: only with two or more runs on that side.
	BetweenRuns struct {
		A bool `json:"a"`
		B bool `json:"b"`
	} `json:"between_run_variance_covered"`
	// Warnings are what a reader must know before trusting a verdict, in
	// English (the text report prints them in its language).
	Warnings  []Warning `json:"warnings"`
	Seed      uint64    `json:"seed"`
	Resamples int       `json:"resamples"`
	// SLO is the qualification every run was judged under: the first
	// condition of the first A run (TTFT SLO and the SLOs beyond it).
	SLO []metrics.Condition `json:"-"`
	// SLOFrom names the run whose recorded SLOs judged every run, when no
	// SLO flag was given (Files); "" when the flags set them.
	SLOFrom string `json:"-"`
}

// Metric returns r's metric named name (ttft_ms.p50, goodput@1000ms, …),
// and whether r has it.
func (r *Result) Metric(name string) (Metric, bool) {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Side is one side's runs.
type Side struct {
	Traces []string `json:"traces"`
	runs   []*metrics.Summary
}

// Runs are the side's summaries, in the order given.
func (s Side) Runs() []*metrics.Summary { return s.runs }

// Metric is one compared metric.
type Metric struct {
	// Name is the card's JSON name: ttft_ms.p95, failure_rate,
	// qualified_rate@1000ms, goodput@1000ms (a joint condition:
	// goodput@ttft1000ms+e2e3000ms, SLOName), throughput.output_tokens_per_s.
	Name string `json:"name"`
	// A and B are the sides' values (the mean of their runs'); nil when a
	// side has none.
	A    *float64 `json:"a"`
	B    *float64 `json:"b"`
	Diff *float64 `json:"diff"` // B − A
	Rel  *float64 `json:"rel"`  // (B − A) / A; nil when A is 0
	// CI95 is the 95 % interval of B − A; a nil side is unbounded.
	CI95    Bounds `json:"ci95"`
	Method  string `json:"method"`
	Verdict string `json:"verdict"`
	// Clipped names the bounds of CI95 cut to what holds for the true
	// values ("low", "high"): only a share difference, to [−1, 1].
	Clipped []string `json:"clipped,omitempty"`
	// Covers says what noise the interval carries: CoversAttempts,
	// CoversRuns, CoversRunsOfA or CoversRunsOfB.
	Covers string `json:"covers"`

	// Unit is what the values are in: "ms", "share" (a fraction of
	// attempts), "/s" (attempts per window second) or "token/s".
	Unit string `json:"-"`
	// LowerIsBetter is the metric's direction.
	LowerIsBetter bool `json:"-"`
	// ARuns and BRuns are each run's own value, in the order of the
	// side's traces (null where a run has none).
	ARuns []*float64 `json:"a_runs"`
	BRuns []*float64 `json:"b_runs"`
	// NeedN, for a percentile left unbounded, is the smallest number of
	// samples per run that bounds it (0 otherwise).
	NeedN int `json:"need_n_per_run"`
	// ShortRuns are the runs with fewer samples than NeedN, which leave
	// it unbounded (Unbounded names them).
	ShortRuns []ShortRun `json:"-"`
	// allShort: every run of both sides is in ShortRuns.
	allShort bool
	// unrated names the sides ("a", "b" or "ab") whose value is missing
	// because nothing was rated (the summary's goodput_unknown), not for
	// want of a success.
	unrated string

	// Borderline: a bound read off the bootstrap lies within its own
	// Monte-Carlo error of 0 (mcBand): another seed, or more resamples,
	// may put it on the other side and flip the verdict.
	Borderline bool `json:"borderline"`

	// slo is, for a qualified rate or a goodput, its SLO's index in the
	// summary's conditions plus 1 (0 for other metrics): it pairs the two
	// metrics of one SLO whatever their names.
	slo int

	// Unbounded says why the within-run method leaves a side of the
	// interval unbounded: "too few samples: n ≥ 72 per run needed; …" (null
	// when it bounds both or a side has no value). With several runs on
	// both sides, each with a value, CI95 is then Welch's t over the runs
	// alone (Method welch-t-runs, WelchOnly); otherwise that side of CI95
	// is null.
	Unbounded *string `json:"unbounded_reason"`
	// AtRunMax, for a percentile left unbounded: the smallest and largest
	// n of the runs whose nearest-rank percentile is their maximum
	// (⌈p·n⌉ = n), when any is; Welch's t over the runs is then not used.
	AtRunMax *[2]int `json:"at_run_max_n"`
}

// WelchOnly reports whether m's interval is Welch's t over the runs
// alone, because a short run leaves the within-run method unbounded.
func (m Metric) WelchOnly() bool {
	return m.Unbounded != nil && m.CI95.Low != nil && m.CI95.High != nil
}

// ShortRun is a run with too few samples to bound a percentile: its side
// ("A" or "B"), its trace and its samples (for the event gaps, its
// attempts with gaps).
type ShortRun struct {
	Side, Trace string
	N           int
}

// Values are A's and B's values as plain numbers, NaN for a side that has
// none (a notebook compares and prints them without a pointer).
func (m Metric) Values() (a, b float64) { return orNaN(m.A), orNaN(m.B) }

func orNaN(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// Real reports whether the difference is real at 95 %: the interval of
// B − A excludes 0 (the verdict is better or worse).
func (m Metric) Real() bool { return m.Verdict == Better || m.Verdict == Worse }

// Bounds is an interval; a nil side is unbounded.
type Bounds struct {
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
}

// Contains reports whether v lies in the interval.
func (b Bounds) Contains(v float64) bool {
	return (b.Low == nil || *b.Low <= v) && (b.High == nil || v <= *b.High)
}

// kind is how a metric's value is read and redrawn.
type kind int

const (
	quantile kind = iota // a percentile of TTFT, E2E or the event gaps
	share                // a share of attempts
	rate                 // a count over the window, per second
)

// metricDef defines one compared metric over a run's summary.
type metricDef struct {
	name  string
	unit  string
	lower bool
	kind  kind
	// quantile: the level's index in the card's levels, which
	// distribution, and how a bootstrap redraws the level.
	level  int
	dist   func(s *metrics.Summary) metrics.Dist
	redraw func(s *metrics.Summary, level int) metrics.Redraw
	// share: numerator and denominator.
	counts func(s *metrics.Summary) (num, den float64)
	// rate: the attempts by how much each adds to the count.
	parts func(s *metrics.Summary) []metrics.TokenCount
	// condition, for a condition's metric: its index, so that a run whose
	// condition is unknown (nothing rated) has no value, not 0.
	condition *int
}

// value is the run's own card value.
func (d metricDef) value(s *metrics.Summary) *float64 {
	if d.condition != nil && s.Conditions[*d.condition].Unknown != "" {
		return nil
	}
	switch d.kind {
	case quantile:
		dist := d.dist(s)
		if d.level >= len(dist.Chosen) {
			return nil
		}
		return dist.Chosen[d.level].Value
	case share:
		num, den := d.counts(s)
		if den == 0 {
			return nil
		}
		v := num / den
		return &v
	}
	if s.WindowS <= 0 {
		return nil
	}
	n, _ := sums(d.parts(s))
	v := n / s.WindowS
	return &v
}

// sums are Σ t·c and Σ t²·c over the attempts by count.
func sums(parts []metrics.TokenCount) (sum, squares float64) {
	for _, p := range parts {
		t, c := float64(p.Tokens), float64(p.Attempts)
		sum += t * c
		squares += t * t * c
	}
	return sum, squares
}

// redrawer returns a function that draws the run's value over one
// resample of its attempts: with replacement for percentiles and shares,
// a Poisson bootstrap for counts over the window.
func (d metricDef) redrawer(s *metrics.Summary) func(r *rand.Rand) float64 {
	switch d.kind {
	case quantile:
		w := d.redraw(s, d.level)
		return func(r *rand.Rand) float64 {
			v, _ := w.Resample(r)
			return v
		}
	case share:
		num, den := d.counts(s)
		return func(r *rand.Rand) float64 { return binomial(r, den, num/den) / den }
	}
	sum := sumRedrawer(d.parts(s))
	return func(r *rand.Rand) float64 { return sum(r) / s.WindowS }
}

// poissonClasses is the most values of t whose Poisson counts are drawn
// one by one.
const poissonClasses = 64

// sumRedrawer returns a function that draws Σ t over a Poisson bootstrap
// of the attempts in parts (attempts by t): each attempt is counted a
// Poisson(1) number of times, so the resample's count of attempts varies as
// an open loop's arrivals in a fixed window do, and its variance is the
// compound-Poisson Σt²·c that MethodPoisson assumes for one run. The
// attempts of one value of t together appear Poisson(c) times; with more
// than poissonClasses values, the sum is drawn from its normal
// approximation with the same mean and variance.
func sumRedrawer(parts []metrics.TokenCount) func(r *rand.Rand) float64 {
	var ts, cs []float64
	for _, p := range parts {
		if p.Tokens > 0 && p.Attempts > 0 {
			ts, cs = append(ts, float64(p.Tokens)), append(cs, float64(p.Attempts))
		}
	}
	if len(ts) > poissonClasses {
		sum, squares := sums(parts)
		sd := math.Sqrt(squares)
		return func(r *rand.Rand) float64 { return max(0, sum+sd*r.NormFloat64()) }
	}
	return func(r *rand.Rand) float64 {
		total := 0.0
		for i, t := range ts {
			total += t * distuv.Poisson{Lambda: cs[i], Src: r}.Rand()
		}
		return total
	}
}

// binomial draws Binomial(n, p) from r.
func binomial(r *rand.Rand, n, p float64) float64 {
	switch {
	case n <= 0 || p <= 0:
		return 0
	case p >= 1:
		return n
	}
	return distuv.Binomial{N: n, P: p, Src: r}.Rand()
}

// Compare compares the runs of A with those of B. Each summary must come
// from o.Summarize (and one SLO set for all): Files does that for trace
// files.
func Compare(a, b []Run, o Options) (*Result, error) {
	o = o.withDefaults()
	if len(a) == 0 || len(b) == 0 {
		return nil, errors.New("compare: want at least one run on each side")
	}
	levels := levelsOf(o)
	first := a[0].Summary
	for _, r := range slices.Concat(a, b) {
		s := r.Summary
		if s == nil || s.Resampling == nil {
			return nil, fmt.Errorf("compare: %s: summary computed without Resampling (use Options.Summarize)", r.Name)
		}
		// A run that measured nothing would count as zero throughput and
		// goodput while the percentiles left it out: refused, not averaged.
		if s.Attempts == 0 {
			return nil, &trace.Error{File: r.Name, Msg: "no attempt in the measured window: a run that measured nothing cannot be compared (leave it out, or run it again)"}
		}
		if !slices.Equal(levelsOfDist(s.TTFT), levels) {
			return nil, fmt.Errorf("compare: %s: summary computed with other percentile levels (use Options.Summarize)", r.Name)
		}
		if !sameSLOs(s, first) {
			return nil, fmt.Errorf("compare: %s: judged under other SLOs than %s; give every run the same (Files does)", r.Name, a[0].Name)
		}
		if s.PercentileMethod != first.PercentileMethod {
			return nil, fmt.Errorf("compare: %s: percentile method %s, %s has %s", r.Name, s.PercentileMethod, a[0].Name, first.PercentileMethod)
		}
	}
	res := &Result{Seed: o.Seed, Resamples: o.Resamples, SLO: first.Conditions}
	for _, r := range a {
		res.A.Traces = append(res.A.Traces, r.Name)
		res.A.runs = append(res.A.runs, r.Summary)
	}
	for _, r := range b {
		res.B.Traces = append(res.B.Traces, r.Name)
		res.B.runs = append(res.B.runs, r.Summary)
	}
	res.BetweenRuns.A, res.BetweenRuns.B = len(a) > 1, len(b) > 1
	res.ConditionsChanged, res.RunsDiffer, res.RecordedSLOs = conditions(res.A.runs, res.B.runs)
	if res.ConditionsChanged == nil {
		res.ConditionsChanged = []ConditionDiff{}
	}
	if res.RunsDiffer == nil {
		res.RunsDiffer = []RunsDiffer{}
	}
	for _, d := range definitions(o, levels, first) {
		res.Metrics = append(res.Metrics, measure(d, res.A.runs, res.B.runs, [2][]string{res.A.Traces, res.B.Traces}, o))
	}
	res.Warnings = res.warnings(lang.EN)
	return res, nil
}

// levelsOfDist are the levels a distribution was computed with.
func levelsOfDist(d metrics.Dist) []float64 {
	out := make([]float64, len(d.Chosen))
	for i, c := range d.Chosen {
		out[i] = c.P
	}
	return out
}

// sameSLOs reports whether two summaries were judged under one SLO set.
func sameSLOs(s, t *metrics.Summary) bool {
	return slices.EqualFunc(s.Conditions, t.Conditions, func(a, b metrics.Condition) bool {
		return a.SLOTTFTMS == b.SLOTTFTMS && a.LatencySLO == b.LatencySLO
	})
}

// definitions are the compared metrics, in the order they are printed.
func definitions(o Options, levels []float64, s *metrics.Summary) []metricDef {
	var out []metricDef
	idx := func(p float64) int { i, _ := slices.BinarySearch(levels, p); return i }
	// The unit every interval redraws is the attempt: TTFT and E2E have
	// one value per attempt; the event gaps of one attempt are redrawn
	// together (metrics.ClusterWindow), as they are not independent.
	for _, d := range []struct {
		name   string
		ps     []float64
		dist   func(s *metrics.Summary) metrics.Dist
		redraw func(s *metrics.Summary, level int) metrics.Redraw
	}{
		{"ttft_ms", o.TTFT, func(s *metrics.Summary) metrics.Dist { return s.TTFT }, func(s *metrics.Summary, i int) metrics.Redraw { return &s.Resampling.TTFT[i] }},
		{"e2e_ms", o.E2E, func(s *metrics.Summary) metrics.Dist { return s.E2E }, func(s *metrics.Summary, i int) metrics.Redraw { return &s.Resampling.E2E[i] }},
		{"itl_ms", o.ITL, func(s *metrics.Summary) metrics.Dist { return s.ITL }, func(s *metrics.Summary, i int) metrics.Redraw { return &s.Resampling.ITL[i] }},
	} {
		for _, p := range d.ps {
			out = append(out, metricDef{name: d.name + "." + LevelName(p), unit: "ms", lower: true, kind: quantile, level: idx(p), dist: d.dist, redraw: d.redraw})
		}
	}
	out = append(out, metricDef{name: "failure_rate", unit: "share", lower: true, kind: share,
		counts: func(s *metrics.Summary) (float64, float64) { return s.FailureRate.Num, s.FailureRate.Den }})
	for i, c := range s.Conditions {
		at := "@" + SLOName(c)
		out = append(out, metricDef{name: "qualified_rate" + at, unit: "share", kind: share, condition: &i,
			counts: func(s *metrics.Summary) (float64, float64) {
				r := s.Conditions[i].QualifiedRate
				return r.Num, r.Den
			}})
	}
	for i, c := range s.Conditions {
		at := "@" + SLOName(c)
		out = append(out, metricDef{name: "goodput" + at, unit: "/s", kind: rate, condition: &i,
			parts: func(s *metrics.Summary) []metrics.TokenCount {
				q := s.Conditions[i].Qualified
				return []metrics.TokenCount{{Tokens: 0, Attempts: s.Attempts - q}, {Tokens: 1, Attempts: q}}
			}})
	}
	out = append(out, metricDef{name: "throughput.output_tokens_per_s", unit: "token/s", kind: rate,
		parts: func(s *metrics.Summary) []metrics.TokenCount { return s.Resampling.Tokens }})
	return out
}

// SLOName names condition c in the names of its metrics, after "@": its
// TTFT SLO alone the unit's way, "1000ms"; a joint condition by every SLO
// kind it has, in the order its rule checks them, each kind as the card's
// JSON keys name it (slo_ttft_ms, slo_e2e_ms, slo_itl_p95_ms, slo_tpot_ms:
// the key without "slo_" and "_ms") followed by its SLO, joined by "+":
// "ttft1000ms+e2e3000ms", "ttft1000ms+e2e3000ms+itl_p95_50ms+tpot20ms"
// (a "_" after a kind ending in a digit). Conditions that differ in any
// SLO have different names.
func SLOName(c metrics.Condition) string {
	if !c.LatencySLO.Set() {
		return strconvFloat(c.SLOTTFTMS) + "ms"
	}
	var parts []string
	for _, k := range []struct {
		check metrics.Check
		ms    float64
	}{{metrics.CheckTTFT, c.SLOTTFTMS}, {metrics.CheckE2E, c.E2EMS}, {metrics.CheckITLP95, c.ITLP95MS}, {metrics.CheckTPOT, c.TPOTMS}} {
		if k.ms <= 0 && k.check != metrics.CheckTTFT {
			continue
		}
		kind := string(k.check)
		if last := kind[len(kind)-1]; last >= '0' && last <= '9' {
			kind += "_"
		}
		parts = append(parts, kind+strconvFloat(k.ms)+"ms")
	}
	return strings.Join(parts, "+")
}

// LevelName is how the card's JSON names a level: p50, p95, p99.9.
func LevelName(p float64) string { return "p" + strconvFloat(math.Round(p*100*1e9)/1e9) }

// strconvFloat prints a number the short way: 1000, 99.9.
func strconvFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// dataKey is a fingerprint of what metric d redraws in run s: the
// percentile's window of order statistics (or the event gaps' level, its
// value and sample sizes), a share's counts, a rate's counts by tokens and
// its window. The bootstrap orders a side's runs and seeds its stream by
// these keys alone, so that identical data give identical intervals and
// a metric's interval depends neither on the order the runs are listed in
// nor on which other metrics are compared.
func (d metricDef) dataKey(s *metrics.Summary) uint64 {
	h := fnv.New64a()
	switch d.kind {
	case quantile:
		switch w := d.redraw(s, d.level).(type) {
		case *metrics.OrderWindow:
			fmt.Fprint(h, "order", w.P, w.Method, w.N, w.First, w.Values)
		case *metrics.ClusterWindow:
			c := d.dist(s).Chosen[d.level]
			fmt.Fprint(h, "cluster", w.P, w.Method, w.N, w.Clusters, orNaN(c.Value), orNaN(c.CI95.Low), orNaN(c.CI95.High))
		}
	case share:
		num, den := d.counts(s)
		fmt.Fprint(h, "share", num, den)
	default:
		fmt.Fprint(h, "rate", d.parts(s), s.WindowS)
	}
	return h.Sum64()
}

// stream is metric d's own random stream and each side's runs in the
// order it draws them: both from the runs' data keys (dataKey) and seed.
func (d metricDef) stream(a, b []*metrics.Summary, seed uint64) (*rand.Rand, [2][]*metrics.Summary) {
	h := fnv.New64a()
	var drawn [2][]*metrics.Summary
	for i, runs := range [][]*metrics.Summary{a, b} {
		keys := make([]uint64, len(runs))
		order := make([]int, len(runs))
		for j, s := range runs {
			keys[j], order[j] = d.dataKey(s), j
		}
		slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(keys[x], keys[y]) })
		fmt.Fprint(h, "side", i)
		for _, j := range order {
			fmt.Fprint(h, " ", keys[j])
			drawn[i] = append(drawn[i], runs[j])
		}
	}
	return rand.New(rand.NewPCG(seed, h.Sum64())), drawn
}

// measure compares one metric; names are the sides' runs' names.
func measure(d metricDef, a, b []*metrics.Summary, names [2][]string, o Options) Metric {
	m := Metric{Name: d.name, Unit: d.unit, LowerIsBetter: d.lower}
	if d.condition != nil {
		m.slo = *d.condition + 1
	}
	for _, s := range a {
		m.ARuns = append(m.ARuns, d.value(s))
	}
	for _, s := range b {
		m.BRuns = append(m.BRuns, d.value(s))
	}
	m.A, m.B = mean(m.ARuns), mean(m.BRuns)
	m.Method = method(d, len(a), len(b))
	m.Covers = covers(len(a), len(b))
	if m.A == nil || m.B == nil {
		m.Verdict = NA
		if d.condition != nil {
			for side, runs := range map[string][]*metrics.Summary{"a": a, "b": b} {
				if slices.ContainsFunc(runs, func(s *metrics.Summary) bool {
					return s.Conditions[*d.condition].Unknown == metrics.GoodputUnrated
				}) {
					m.unrated += side
				}
			}
			if m.unrated == "ba" {
				m.unrated = "ab"
			}
		}
		return m
	}
	diff := *m.B - *m.A
	m.Diff = &diff
	if *m.A != 0 {
		rel := diff / *m.A
		m.Rel = &rel
	}
	var lo, hi float64
	// A bound read off the bootstrap, and its Monte-Carlo band (mcBand).
	var fromBootstrap [2]bool
	var mc [2][2]float64
	if m.Method == MethodWelchRuns {
		var ok bool
		if lo, hi, ok = welch(m.ARuns, m.BRuns); !ok {
			// Runs that agree exactly show no spread to scale a t by:
			// the bootstrap's within-run noise instead.
			m.Method = MethodHierarchical
		}
	}
	switch m.Method {
	case MethodWelchRuns:
	case MethodNewcombe:
		na, da := d.counts(a[0])
		nb, db := d.counts(b[0])
		lo, hi = newcombe(na, da, nb, db)
	case MethodHierarchicalNewcombe:
		var blo, bhi float64
		blo, bhi, mc = bootstrap(d, a, b, o)
		na, da := pooled(d, a)
		nb, db := pooled(d, b)
		plo, phi := newcombe(na, da, nb, db)
		lo, hi = min(blo, plo, diff), max(bhi, phi, diff)
		fromBootstrap = [2]bool{lo == blo, hi == bhi}
	case MethodPoisson:
		lo, hi = poissonDiff(d.parts(a[0]), a[0].WindowS, d.parts(b[0]), b[0].WindowS)
	default:
		var blo, bhi float64
		blo, bhi, mc = bootstrap(d, a, b, o)
		// A percentile interval can miss the observed difference when the
		// resamples' distribution is skewed (small, tied samples): widen it
		// to hold it.
		lo, hi = min(blo, diff), max(bhi, diff)
		fromBootstrap = [2]bool{lo == blo, hi == bhi}
	}
	// Several runs on both sides: the runs are the independent units, and
	// with three a side the bootstrap sees little of the variance between
	// them (A/A coverage 0.81–0.87 when runs shift by ±30 %). A
	// percentile's or a share's interval is the hull of its within-run
	// method's and Welch's t over the runs' own values, the runs the
	// independent units, and the method names both (a rate's is Welch's already).
	// The within-run interval, before Welch's part: a percentile at each
	// run's maximum keeps it alone (atRunMax below).
	within, withinMethod, withinFrom := [2]float64{lo, hi}, m.Method, fromBootstrap
	if len(a) > 1 && len(b) > 1 && d.kind != rate {
		if wlo, whi, ok := welch(m.ARuns, m.BRuns); ok {
			lo, hi = min(lo, wlo), max(hi, whi)
			fromBootstrap = [2]bool{fromBootstrap[0] && lo != wlo, fromBootstrap[1] && hi != whi}
			m.Method += "+" + MethodWelchRuns
		}
	}
	lo, hi, m.Clipped = possible(d, lo, hi)
	m.CI95 = Bounds{Low: &lo, High: &hi}
	if d.kind == quantile {
		var short []shortRun
		m.CI95, m.NeedN, short = unbounded(d, a, b, m.CI95)
		if m.NeedN > 0 && (m.CI95.Low == nil || m.CI95.High == nil) {
			for _, r := range short {
				m.ShortRuns = append(m.ShortRuns, ShortRun{Side: [2]string{"A", "B"}[r.side], Trace: names[r.side][r.run], N: r.n})
			}
			m.allShort = len(short) == len(a)+len(b)
			why := fmt.Sprintf("too few samples: n ≥ %d per run needed; %s", m.NeedN, m.shortRunsText(lang.EN))
			if strings.HasPrefix(d.name, "itl_ms.") {
				why = fmt.Sprintf("too few attempts: n ≥ %s with event gaps per run needed (an attempt's gaps are redrawn together); %s", lang.N(lang.EN, m.NeedN, "attempt", "attempts"), m.shortRunsText(lang.EN))
			}
			m.Unbounded = &why
			// Several runs on both sides, each with its value: the runs
			// still bound the difference where one short run leaves the
			// within-run method unbounded. Welch's t over the runs alone,
			// named as such; the reason stays, saying why.
			// Not where a run's nearest-rank percentile is its maximum
			// (⌈p·n⌉ = n): Welch's t over run maxima estimates the
			// expected maximum of n draws, not the percentile, and unequal
			// n bias it. The interval stays unbounded (~), named so.
			if len(a) > 1 && len(b) > 1 {
				m.AtRunMax = d.atRunMax(a, b)
			}
			if m.AtRunMax != nil {
				why += fmt.Sprintf("; %s, so Welch's t over the runs is not used", m.atRunMaxText(lang.EN))
				// Nor in the hull: the bounded side is the within-run
				// method's alone, and the method says so.
				m.Method, fromBootstrap = withinMethod, withinFrom
				if m.CI95.Low != nil {
					m.CI95.Low = &within[0]
				}
				if m.CI95.High != nil {
					m.CI95.High = &within[1]
				}
			}
			if len(a) > 1 && len(b) > 1 && m.AtRunMax == nil {
				if wlo, whi, ok := welch(m.ARuns, m.BRuns); ok {
					m.CI95 = Bounds{Low: &wlo, High: &whi}
					m.Method = MethodWelchRuns
					fromBootstrap = [2]bool{}
				}
			}
		}
	}
	m.Verdict = verdict(m)
	for i, b := range []*float64{m.CI95.Low, m.CI95.High} {
		if b != nil && fromBootstrap[i] && *b != 0 && mc[i][0] <= 0 && 0 <= mc[i][1] {
			m.Borderline = true
		}
	}
	return m
}

// method is the within-run method of a metric's interval with na and nb
// runs (measure adds Welch's t over the runs with several on both sides).
func method(d metricDef, na, nb int) string {
	switch {
	case na > 1 && nb > 1 && d.kind == rate:
		return MethodWelchRuns
	case (na > 1 || nb > 1) && d.kind == share:
		return MethodHierarchicalNewcombe
	case na > 1 || nb > 1:
		return MethodHierarchical
	case d.kind == share:
		return MethodNewcombe
	case d.kind == rate:
		return MethodPoisson
	}
	return MethodBootstrap
}

// possible clips an interval of B − A to the bounds that hold for the
// true values, whatever they are: a difference of two shares lies within
// [−1, 1]. Nothing else is clipped: the observed values bound nothing (the
// true A may exceed the observed one, so B − A may well lie below −A), and
// a Welch interval over few runs reaching past −A is what the runs allow.
// It reports which bounds it moved.
func possible(d metricDef, lo, hi float64) (float64, float64, []string) {
	if d.kind != share {
		return lo, hi, nil
	}
	var clipped []string
	if lo < -1 {
		lo, clipped = -1, append(clipped, ClippedLow)
	}
	if hi > 1 {
		hi, clipped = 1, append(clipped, ClippedHigh)
	}
	return lo, hi, clipped
}

// pooled are a share's counts over all the runs of a side.
func pooled(d metricDef, runs []*metrics.Summary) (num, den float64) {
	for _, s := range runs {
		n, m := d.counts(s)
		num, den = num+n, den+m
	}
	return num, den
}

// mean is the mean of the runs' values, as the card writes a number
// (numfmt.Clean: without the float noise of the division, so that runs
// of 10 % average to 0.1, not 0.10000000000000002, and equal sides differ
// by 0); nil when any run has none.
func mean(vs []*float64) *float64 {
	if len(vs) == 0 {
		return nil
	}
	if slices.Contains(vs, nil) {
		return nil
	}
	m := numfmt.Clean(sumSorted(vs) / float64(len(vs)))
	return &m
}

// sumSorted is the sum of the values, added in ascending order: the same
// values listed in another order give the same sum to the last bit, so two
// sides of the same runs differ by exactly 0.
func sumSorted(vs []*float64) float64 {
	xs := make([]float64, len(vs))
	for i, v := range vs {
		xs[i] = *v
	}
	slices.Sort(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum
}

// verdict reads the interval in the metric's direction.
func verdict(m Metric) string {
	if m.CI95.Contains(0) {
		return Same
	}
	if (*m.Diff < 0) == m.LowerIsBetter {
		return Better
	}
	return Worse
}

// unbounded opens the side of the interval that a run's percentile cannot
// bound: B's missing upper bound (or A's missing lower one) leaves B − A
// unbounded above, and the other way round. It returns the samples per
// run that bound it, and the runs (by side, 0 for A, and index) that have
// fewer, with their n.
func unbounded(d metricDef, a, b []*metrics.Summary, iv Bounds) (Bounds, int, []shortRun) {
	need := 0
	var short []shortRun
	open := func(side int, runs []*metrics.Summary, high bool) bool {
		out := false
		for i, s := range runs {
			n, has, needs := d.boundedBy(s, high)
			if !has {
				out, need = true, max(need, needs)
				if !slices.ContainsFunc(short, func(r shortRun) bool { return r.side == side && r.run == i }) {
					short = append(short, shortRun{side, i, n})
				}
			}
		}
		return out
	}
	bh, al := open(1, b, true), open(0, a, false)
	bl, ah := open(1, b, false), open(0, a, true)
	if bh || al {
		iv.High = nil
	}
	if bl || ah {
		iv.Low = nil
	}
	slices.SortFunc(short, func(x, y shortRun) int { return cmp.Or(cmp.Compare(x.side, y.side), cmp.Compare(x.run, y.run)) })
	return iv, need, short
}

// atRunMax is the range of n over the runs of both sides whose
// nearest-rank percentile at d's level is the run's maximum (⌈p·n⌉ = n),
// or nil when no run's is.
func (d metricDef) atRunMax(a, b []*metrics.Summary) *[2]int {
	var out *[2]int
	for _, s := range slices.Concat(a, b) {
		dist := d.dist(s)
		if d.level >= len(dist.Chosen) || dist.N == 0 {
			continue
		}
		if n := dist.N; int(math.Ceil(dist.Chosen[d.level].P*float64(n)-1e-9)) >= n {
			if out == nil {
				out = &[2]int{n, n}
			}
			out[0], out[1] = min(out[0], n), max(out[1], n)
		}
	}
	return out
}

// shortRun is a run with too few samples to bound a percentile: its side
// (0 A, 1 B), its index there, and its samples.
type shortRun struct{ side, run, n int }

// boundedBy reports the samples n of run s that bound d's level (its
// values; for the event gaps, its attempts with gaps, which the bootstrap
// redraws), whether its order-statistic interval has its upper (high) or
// lower bound, and the n that would give it one.
func (d metricDef) boundedBy(s *metrics.Summary, high bool) (n int, has bool, need int) {
	// The event gaps are redrawn by attempt, so the attempts, not the
	// gaps, are the samples that must bound the level: the
	// order-statistic rule over the run's attempts with gaps.
	if w, ok := d.redraw(s, d.level).(*metrics.ClusterWindow); ok {
		need := metrics.NeedN(w.P, metrics.Confidence, high)
		return w.Clusters, w.Clusters >= need, need
	}
	dist := d.dist(s)
	ci := dist.Chosen[d.level].CI95
	if high {
		return dist.N, ci.High != nil, ci.NeedNHigh
	}
	return dist.N, ci.Low != nil, ci.NeedNLow
}

// bootstrap is the percentile interval of B − A over o.Resamples
// resamples: each draws every side's runs with replacement, then redraws
// each drawn run's attempts, and averages. With one run a side, that is
// the bootstrap over attempts. The draws come from d's own stream
// (metricDef.stream).
func bootstrap(d metricDef, a, b []*metrics.Summary, o Options) (lo, hi float64, mc [2][2]float64) {
	r, drawn := d.stream(a, b, o.Seed)
	a, b = drawn[0], drawn[1]
	side := func(runs []*metrics.Summary) func() float64 {
		draw := make([]func(*rand.Rand) float64, len(runs))
		for i, s := range runs {
			draw[i] = d.redrawer(s)
		}
		return func() float64 {
			sum := 0.0
			for range draw {
				sum += draw[r.IntN(len(draw))](r)
			}
			return sum / float64(len(draw))
		}
	}
	sa, sb := side(a), side(b)
	diffs := make([]float64, o.Resamples)
	for i := range diffs {
		va := sa()
		diffs[i] = sb() - va
	}
	slices.Sort(diffs)
	lo, _ = metrics.Quantile(diffs, (1-metrics.Confidence)/2, metrics.Linear)
	hi, _ = metrics.Quantile(diffs, 1-(1-metrics.Confidence)/2, metrics.Linear)
	return lo, hi, [2][2]float64{mcBand(diffs, (1-metrics.Confidence)/2), mcBand(diffs, 1-(1-metrics.Confidence)/2)}
}

// mcSDs is how many of its standard errors a bootstrap bound's
// Monte-Carlo band spans on each side.
const mcSDs = 3

// mcBand is the Monte-Carlo band of the level p read off n sorted
// resamples: the rank of the resampling distribution's true p-quantile
// among them is Binomial(n, p), so the band spans mcSDs of its standard
// deviations of ranks around n·p. Another seed would read the bound
// within it.
func mcBand(sorted []float64, p float64) [2]float64 {
	n := float64(len(sorted))
	at, sd := p*(n-1), mcSDs*math.Sqrt(n*p*(1-p))
	rank := func(r float64) float64 { return sorted[int(min(max(r, 0), n-1))] }
	return [2]float64{rank(math.Floor(at - sd)), rank(math.Ceil(at + sd))}
}

// welch is Welch's 95 % t interval of mean(b) − mean(a) over the runs'
// values, with Welch–Satterthwaite degrees of freedom; false when neither
// side's runs spread (no scale for t).
func welch(a, b []*float64) (lo, hi float64, ok bool) {
	mv := func(vs []*float64) (m, v float64) {
		m = sumSorted(vs) / float64(len(vs))
		for _, x := range vs {
			v += (*x - m) * (*x - m)
		}
		return m, v / float64(len(vs)-1) / float64(len(vs)) // the squared standard error of the mean
	}
	ma, va := mv(a)
	mb, vb := mv(b)
	se2 := va + vb
	if !(se2 > 0) {
		return 0, 0, false
	}
	df := se2 * se2 / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1-(1-metrics.Confidence)/2) * math.Sqrt(se2)
	d := mb - ma
	return d - half, d + half, true
}

// newcombe is Newcombe's hybrid score interval of pB − pA (his method 10):
// the Wilson intervals of both proportions, combined by squares.
func newcombe(numA, denA, numB, denB float64) (lo, hi float64) {
	pa, pb := numA/denA, numB/denB
	la, ua, _ := metrics.WilsonBounds(numA, denA)
	lb, ub, _ := metrics.WilsonBounds(numB, denB)
	d := pb - pa
	return d - math.Hypot(pb-lb, ua-pa), d + math.Hypot(ub-pb, pa-la)
}

// z95 is the two-sided 95 % normal quantile.
var z95 = distuv.UnitNormal.Quantile(1 - (1-metrics.Confidence)/2)

// poissonRate is a side's rate over its window with its 95 % score
// interval. The count S = Σ t·c is taken as scaled Poisson: S = k·N with
// N ~ Poisson, k = Σt²c / Σtc (1 for goodput, where every qualified attempt
// counts 1), which keeps the variance Σt²c of a compound Poisson count of
// attempts carrying t tokens each; N's score interval is
// m + z²/2 ± z·√(m + z²/4), m = S/k.
func poissonRate(parts []metrics.TokenCount, windowS float64) (v, lo, hi float64) {
	s, q := sums(parts)
	k := 1.0
	if s > 0 {
		k = q / s
	}
	m := s / k
	z2 := z95 * z95
	half := z95 * math.Sqrt(m+z2/4)
	scale := k / windowS
	return s / windowS, max(0, m+z2/2-half) * scale, (m + z2/2 + half) * scale
}

// poissonDiff is the interval of rateB − rateA from the two score
// intervals, combined as Newcombe combines Wilson intervals (MOVER).
func poissonDiff(a []metrics.TokenCount, windowA float64, b []metrics.TokenCount, windowB float64) (lo, hi float64) {
	ra, la, ua := poissonRate(a, windowA)
	rb, lb, ub := poissonRate(b, windowB)
	d := rb - ra
	return d - math.Hypot(rb-lb, ua-ra), d + math.Hypot(ub-rb, ra-la)
}
