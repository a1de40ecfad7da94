// Package cardopts is the one place where a command's flags meet a
// trace's recorded conditions: it turns both into the options of the
// trace's metrics summary, and computes that summary. `coursekit card`,
// `report`, `import`, `capacity`, `compare` (a summary per trace), the
// notebooks' helpers and the grader summarize through it, so that one
// trace under the same flags gives one set of numbers in every view.
//
// The rule, for each option (Flags.Options):
//   - SLOs: the flags' when any SLO flag was given (--slo-ttft, --slo-e2e,
//     --slo-itl-p95, --slo-tpot; with latency SLOs alone the TTFT SLO is
//     1 s), else the run's SLO set recorded as conditions.slo, else one
//     condition at TTFT ≤ 1 s;
//   - percentile levels: --percentiles, else conditions.percentiles, else
//     the card's four (50, 90, 95, 99);
//   - percentile method: --percentile, else nearest-rank;
//   - window cost: --window-cost, else the header's window_cost;
//   - judge: asked for when the header names a dataset (conditions.dataset)
//     or any attempt was rated.
package cardopts

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit/internal/spill"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Flags are what a command's flags say about its summary; a zero field
// was not given.
type Flags struct {
	// TTFTMS are the TTFT SLOs, one condition each (--slo-ttft, repeated).
	TTFTMS []float64
	// Latency are the per-attempt SLOs beyond TTFT (--slo-e2e,
	// --slo-itl-p95, --slo-tpot).
	Latency metrics.LatencySLO
	// Method is the percentile method (--percentile).
	Method metrics.Method
	// Levels are the percentile levels, as fractions (--percentiles).
	Levels []float64
	// WindowCost is the cost of the window (--window-cost).
	WindowCost *float64
	// MemoryBytes is the memory budget of the summary's samples (--memory;
	// 0: no limit; see Budget).
	MemoryBytes int64
}

// Budget is the memory budget: --memory, else half of the memory
// available to the process (it is also set in f).
func (f *Flags) Budget() int64 {
	if f.MemoryBytes == 0 {
		f.MemoryBytes = spill.DefaultLimit()
	}
	return f.MemoryBytes
}

// SLOsGiven reports whether any SLO flag was given.
func (f *Flags) SLOsGiven() bool { return len(f.TTFTMS) > 0 || f.Latency.Set() }

// SLOSet is the SLO set the flags give, as a bench run records it in its
// header (conditions.slo): TTFT 1 s when no TTFT SLO was given.
func (f *Flags) SLOSet() metrics.SLOSet {
	ttft := f.TTFTMS
	if len(ttft) == 0 {
		ttft = []float64{metrics.DefaultSLOMS}
	}
	return metrics.SLOSet{TTFTMS: ttft, LatencySLO: f.Latency}
}

// Options resolves the flags against the trace's header h into the
// options of its summary (the rule is in the package doc). An error is a
// recorded condition that cannot be read, as a *trace.Error naming the
// field.
func (f *Flags) Options(h *trace.Header) (metrics.Options, error) {
	o := metrics.Options{
		SLOsMS: f.TTFTMS, Latency: f.Latency, Method: f.Method, Levels: f.Levels,
		WindowCost: f.WindowCost, MemoryBytes: f.MemoryBytes,
	}
	if o.Method == "" {
		o.Method = metrics.NearestRank
	}
	if len(o.Levels) == 0 {
		ps, err := metrics.HeaderLevels(h)
		if err != nil {
			return o, err
		}
		o.Levels = ps
	}
	if !f.SLOsGiven() {
		set, err := metrics.HeaderSLO(h)
		if err != nil {
			return o, err
		}
		if set != nil {
			o.SLOsMS, o.Latency = set.TTFTMS, set.LatencySLO
		}
	}
	if len(o.SLOsMS) == 0 {
		o.SLOsMS = []float64{metrics.DefaultSLOMS}
	}
	if o.WindowCost == nil {
		o.WindowCost = h.WindowCost
	}
	o.Judged = metrics.HeaderJudged(h)
	return o, nil
}

// An Extra asks a summary for a reading that a chart draws beside the
// card, outside the card's conditions and its JSON.
type Extra func(*metrics.Options)

// Sweep judges these TTFT SLOs too, under the conditions' rule
// (metrics.Summary.Sweep): the points of goodput against the SLO.
func Sweep(slosMS []float64) Extra {
	return func(o *metrics.Options) { o.SweepSLOsMS = slosMS }
}

// OtherMethod also reads the TTFT distribution under m
// (metrics.Summary.TTFTOther).
func OtherMethod(m metrics.Method) Extra {
	return func(o *metrics.Options) { o.OtherMethod = m }
}

// Resampling keeps what a bootstrap of the summary redraws
// (metrics.Summary.Resampling), for coursekit compare's intervals.
func Resampling() Extra {
	return func(o *metrics.Options) { o.Resampling = true }
}

func (f *Flags) choose(h *trace.Header, extras []Extra) (metrics.Options, error) {
	o, err := f.Options(h)
	if err != nil {
		return o, err
	}
	for _, e := range extras {
		e(&o)
	}
	return o, nil
}

// Summarize is the summary of an in-memory trace under the flags.
func Summarize(t *trace.Trace, f Flags, extras ...Extra) (*metrics.Summary, error) {
	o, err := f.choose(&t.Header, extras)
	if err != nil {
		return nil, err
	}
	return metrics.Summarize(t, o), nil
}

// MustSummarize is Summarize for a trace whose header was built in code
// (a simulator run, a fixture): a header it cannot read is a bug.
func MustSummarize(t *trace.Trace, f Flags, extras ...Extra) *metrics.Summary {
	s, err := Summarize(t, f, extras...)
	if err != nil {
		panic(fmt.Sprintf("cardopts: %v", err))
	}
	return s
}

// SummarizeFile streams a trace file and summarizes it under the flags;
// errors name FILE:LINE.
func SummarizeFile(path string, f Flags, extras ...Extra) (*metrics.Summary, error) {
	r, err := trace.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s, err := SummarizeReader(r, path, f, extras...)
	return s, NotACard(path, err)
}

// SummarizeReader streams a trace from r, named name in errors
// (NAME:LINE), and summarizes it under the flags.
func SummarizeReader(r io.Reader, name string, f Flags, extras ...Extra) (*metrics.Summary, error) {
	return metrics.SummarizeStream(r, name, f.MemoryBytes, func(h *trace.Header) (metrics.Options, error) { return f.choose(h, extras) })
}

// TTFT is a summary's flags of TTFT SLOs alone, as the unit's exercises
// set them (a condition per SLO).
func TTFT(slosMS ...float64) Flags { return Flags{TTFTMS: slosMS} }

// RegisterSLOs adds --slo-ttft (with ttftHelp; none when it is empty),
// --slo-e2e, --slo-itl-p95 and --slo-tpot to fs; the latter three default
// to none.
func (f *Flags) RegisterSLOs(fs *flag.FlagSet, ttftHelp string) {
	f.RegisterSLOsDefault(fs, ttftHelp, "none")
}

// RecordedSLODefault is the latency SLO flags' default of a command that
// judges a trace under its recorded SLO set when no --slo-* flag is given
// (Options).
const RecordedSLODefault = "the trace's recorded SLO (conditions.slo), none if it has none; any --slo-* flag replaces the whole recorded set"

// RegisterSLOsDefault is RegisterSLOs for a command whose latency SLO
// flags default to latencyDefault (e.g. RecordedSLODefault), which each
// flag's help names.
func (f *Flags) RegisterSLOsDefault(fs *flag.FlagSet, ttftHelp, latencyDefault string) {
	if ttftHelp != "" {
		f.RegisterTTFT(fs, ttftHelp)
	}
	d := " (default: " + latencyDefault + ")"
	fs.Var(msFlag{&f.Latency.E2EMS}, "slo-e2e", "per-attempt E2E SLO, joint with TTFT"+d)
	fs.Var(msFlag{&f.Latency.ITLP95MS}, "slo-itl-p95", "SLO on the P95 of each attempt's own gaps between text events, joint with TTFT"+d)
	fs.Var(msFlag{&f.Latency.TPOTMS}, "slo-tpot", "per-attempt TPOT SLO, (t_N − t_1) / (N − 1): the mean gap between output tokens after the first, joint with TTFT"+d)
}

// RegisterTTFT adds --slo-ttft (repeatable, one condition each) to fs.
func (f *Flags) RegisterTTFT(fs *flag.FlagSet, help string) {
	fs.Var((*ttftList)(&f.TTFTMS), "slo-ttft", help)
}

// RegisterWindowCost adds --window-cost to fs.
func (f *Flags) RegisterWindowCost(fs *flag.FlagSet) {
	fs.Var(costFlag{&f.WindowCost}, "window-cost", "cost of the whole window, in the trace's currency (default: the header's window_cost)")
}

// RegisterReading adds the flags of how a summary reads a trace:
// --percentile, --percentiles, --window-cost and --memory.
func (f *Flags) RegisterReading(fs *flag.FlagSet) {
	f.RegisterMethod(fs)
	f.RegisterLevels(fs, "percentile levels every distribution shows, with their 95% intervals, e.g. 50,90,99,99.9; P95 is shown too, chosen or not, as the Markdown table and report's charts use it (default: the trace's conditions.percentiles, else 50,90,95,99)")
	f.RegisterWindowCost(fs)
	f.RegisterMemory(fs)
}

// RegisterMethod adds --percentile to fs.
func (f *Flags) RegisterMethod(fs *flag.FlagSet) {
	fs.Var(methodFlag{&f.Method}, "percentile", "percentile method: nearest-rank or linear (default nearest-rank)")
}

// RegisterLevels adds --percentiles (with help, what the levels are for
// the command) to fs.
func (f *Flags) RegisterLevels(fs *flag.FlagSet, help string) {
	fs.Var(levelsFlag{&f.Levels}, "percentiles", help)
}

// RegisterMemory adds --memory to fs.
func (f *Flags) RegisterMemory(fs *flag.FlagSet) {
	fs.Var(memoryFlag{&f.MemoryBytes}, "memory", "memory budget for the samples, attempt ids and requests held in memory, e.g. 512MiB or 4GiB; past it they are spilled to a temporary directory ($TMPDIR, removed at the end) as sorted runs, with the same card. It bounds those stores, not the process (about twice SIZE plus 100 MiB) nor the directory (up to about 8 bytes an event plus 48 an attempt) (default: half of the memory available to the process)")
}

// ttftList collects repeated --slo-ttft flags, in ms.
type ttftList []float64

// Metavar names the argument of each flag in a command's help.
func (*ttftList) Metavar() string  { return "DURATION" }
func (msFlag) Metavar() string     { return "DURATION" }
func (methodFlag) Metavar() string { return "METHOD" }
func (levelsFlag) Metavar() string { return "PERCENTILES" }
func (costFlag) Metavar() string   { return "COST" }
func (memoryFlag) Metavar() string { return "SIZE" }

func (s *ttftList) String() string {
	if s == nil || len(*s) == 0 {
		return ""
	}
	return fmt.Sprint([]float64(*s))
}

func (s *ttftList) Set(v string) error {
	ms, err := ParseSLO(v)
	if err != nil {
		return err
	}
	*s = append(*s, ms)
	return nil
}

// ParseSLO reads an SLO duration (1s, 500ms) into ms; it must be positive.
func ParseSLO(v string) (float64, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (write 1s or 500ms)", v)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q: an SLO must be positive", v)
	}
	return float64(d) / float64(time.Millisecond), nil
}

// msFlag is an optional positive duration, kept in ms (0: not given).
type msFlag struct{ ms *float64 }

func (f msFlag) String() string {
	if f.ms == nil || *f.ms == 0 {
		return ""
	}
	return strconv.FormatFloat(*f.ms, 'g', -1, 64) + "ms"
}

func (f msFlag) Set(v string) error {
	ms, err := ParseSLO(v)
	if err != nil {
		return err
	}
	*f.ms = ms
	return nil
}

type methodFlag struct{ m *metrics.Method }

func (f methodFlag) String() string {
	if f.m == nil {
		return ""
	}
	return string(*f.m)
}

func (f methodFlag) Set(v string) error {
	m, err := metrics.ParseMethod(v)
	if err != nil {
		return err
	}
	*f.m = m
	return nil
}

type levelsFlag struct{ ps *[]float64 }

func (f levelsFlag) String() string {
	if f.ps == nil || len(*f.ps) == 0 {
		return ""
	}
	var s []string
	for _, p := range *f.ps {
		s = append(s, strconv.FormatFloat(p*100, 'g', -1, 64))
	}
	return strings.Join(s, ",")
}

func (f levelsFlag) Set(v string) error {
	ps, err := metrics.ParseLevels(v)
	if err != nil {
		return err
	}
	*f.ps = ps
	return nil
}

// costFlag is an optional non-negative number.
type costFlag struct{ v **float64 }

func (c costFlag) String() string {
	if c.v == nil || *c.v == nil {
		return ""
	}
	return strconv.FormatFloat(**c.v, 'g', -1, 64)
}

func (c costFlag) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%q is not a non-negative cost", s)
	}
	*c.v = &f
	return nil
}

type memoryFlag struct{ n *int64 }

func (m memoryFlag) String() string {
	if m.n == nil || *m.n == 0 {
		return ""
	}
	return strconv.FormatInt(*m.n, 10)
}

func (m memoryFlag) Set(s string) error {
	n, err := spill.ParseSize(s)
	if err != nil {
		return err
	}
	*m.n = n
	return nil
}

// Unit is the flags of the unit's definitions, the deliverable's and the
// grader's: TTFT SLOs 1 s and 0.5 s, side by side, the card's four
// percentile levels, and nearest-rank (or m, when given). Every option is
// given, so no recorded condition is read but whether a judge was asked
// for, and a summary under them cannot fail on a header.
func Unit(m metrics.Method) Flags {
	return Flags{TTFTMS: []float64{1000, 500}, Levels: metrics.Levels, Method: m}
}

// Dropped reports the SLOs beyond TTFT that the trace's header records
// (conditions.slo) but the summary was not judged under: SLO flags replace
// the whole recorded set (the rule above), so a run recorded with TTFT 2 s
// and E2E 4 s and summarized under --slo-ttft 3s alone is judged under
// TTFT 3 s with no E2E SLO, and, with no SLO beyond TTFT left, a complete
// success must also pass quality. recorded is the header's set; dropped
// holds each recorded SLO beyond TTFT for which the summary has none (a
// flag that changes one, --slo-e2e 5s, does not drop it). Every view that
// prints a summary says so (the card's notes, compare's warnings).
func Dropped(s *metrics.Summary) (recorded metrics.SLOSet, dropped metrics.LatencySLO, ok bool) {
	h := trace.Header{Conditions: s.TraceConditions}
	set, err := metrics.HeaderSLO(&h)
	if err != nil || set == nil || len(s.Conditions) == 0 {
		return metrics.SLOSet{}, dropped, false
	}
	used := Judged(s).LatencySLO
	if used.E2EMS == 0 {
		dropped.E2EMS = set.E2EMS
	}
	if used.ITLP95MS == 0 {
		dropped.ITLP95MS = set.ITLP95MS
	}
	if used.TPOTMS == 0 {
		dropped.TPOTMS = set.TPOTMS
	}
	return *set, dropped, dropped.Set()
}

// Judged is the SLO set the summary was judged under.
func Judged(s *metrics.Summary) metrics.SLOSet {
	var set metrics.SLOSet
	for _, c := range s.Conditions {
		set.TTFTMS = append(set.TTFTMS, c.SLOTTFTMS)
		set.LatencySLO = c.LatencySLO
	}
	return set
}
