// Package capacity searches the offered open-loop rate for the highest one
// at which joint qualification (complete success ∧ quality pass ∧ TTFT ≤
// SLO) meets a target share of all attempts, failures included.
//
// Each step is a full measurement (loadgen.Run with warm-up and window)
// whose trace is kept; its verdict comes from the 95 % Wilson interval of
// qualified / attempts, so a step too short to tell is undecided, not fine.
package capacity

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Verdicts of a step.
const (
	Meets       = "meets"       // Wilson lower bound ≥ target
	Fails       = "fails"       // Wilson upper bound < target, or overload
	Undecided   = "undecided"   // the interval straddles the target
	Interrupted = "interrupted" // the search was stopped during this step
)

// Config is one search.
type Config struct {
	// Bench is the template of every step: URL, model, dataset, tokens,
	// timeout, seed. Rate, Duration and Warmup are set per step, and the
	// seed of each step's schedule is derived from Bench.Seed (StepSeed).
	Bench     loadgen.Config
	Target    float64 // share of attempts that must qualify, in (0, 1]
	SLOTTFTMS float64
	// Latency are the per-attempt SLOs joint with TTFT (zero: none).
	Latency metrics.LatencySLO
	// StartRate is the first step's rate; the rate grows by Growth until a
	// step does not meet or MaxRate is passed.
	StartRate, MaxRate, Growth float64
	// Resolution ends the bisection: the gap between the highest rate
	// that meets and the lowest that does not.
	Resolution float64
	Warmup     time.Duration
	// StepDuration is a step's first window; an undecided step is run
	// again with a doubled window up to StepMaxDuration.
	StepDuration, StepMaxDuration time.Duration
	// OutDir receives one trace per step run, never overwritten.
	OutDir string
	// BusyGauge names the server's busy reading on /metrics, read every
	// 250 ms of each step into the step trace's metrics sidecar: a counter
	// of busy seconds (name ending _total, e.g. SimBusyCounter), whose
	// rate over the window is used, or a 0–1 gauge, whose reads in the
	// window are averaged. "" reads none; a server without it leaves the
	// steps' busy fields null.
	BusyGauge string
	// OnStep, if set, learns each finished step.
	OnStep func(Step)
	// OnRun, if set, learns each run of a step as it starts: its rate and
	// window (an undecided step runs again with a longer window), so that
	// a caller can say what is running between Bench.Progress reports.
	OnRun func(rate float64, window time.Duration)

	// seen are the search's finished steps, whose time in flight tells the
	// next step's early-stop watch the level a filled pipeline holds.
	seen []Step
}

// Step is one searched rate.
type Step struct {
	Rate       float64  `json:"rate"`
	Attempts   int64    `json:"attempts"`
	Qualified  int64    `json:"qualified"`
	Attainment *float64 `json:"attainment"`
	CILow      *float64 `json:"ci_low"`
	CIHigh     *float64 `json:"ci_high"`
	Verdict    string   `json:"verdict"`
	Reason     string   `json:"reason"`
	Trace      string   `json:"trace"`
	// Seed is the seed of the arrival schedule of the run the verdict
	// comes from (StepSeed), as its trace's header records it: every step
	// draws its own schedule.
	Seed uint64 `json:"seed"`
	// Extended counts the longer re-runs of an undecided step; WindowS is
	// the window of the run the verdict comes from.
	Extended int `json:"extended"`
	// BeforeWindow says the search was interrupted before the window of
	// the step's last run began (in its warm-up): the step measured
	// nothing, so its WindowS is 0, its Load and busy share null, and no
	// view prints load figures or an extension for it.
	BeforeWindow bool `json:"interrupted_before_window,omitempty"`
	// InFlight are the window's attempts still in flight when the run
	// ended. Attempts holds them (they count against attainment), except
	// in a step stopped early on overload, which cut them off: there they
	// are neither qualified nor failed, and Attempts leaves them out.
	InFlight int64 `json:"in_flight"`
	// TimeInFlightS is the mean time in flight (send to end) of the
	// attempts that ended in the window: × the rate, the in-flight level
	// of a pipeline that keeps up (Little's law; LoadCheck.ExpectedInFlight).
	TimeInFlightS float64  `json:"time_in_flight_mean_s"`
	WindowS       float64  `json:"window_s"`
	GoodputPerS   float64  `json:"goodput_per_s"`
	P95TTFTMS     *float64 `json:"p95_ttft_ms"`
	// BusyMean and BusyMax are the server's busy share over the window
	// (null when it exposes none), from BusyReads reads in the window by
	// BusyMethod (BusyCounterRate or BusyGaugeMean); Metrics is the
	// sidecar with every scrape.
	BusyMean   *float64 `json:"busy_mean"`
	BusyMax    *float64 `json:"busy_max"`
	BusyReads  int      `json:"busy_reads"`
	BusyMethod string   `json:"busy_method,omitempty"`
	Metrics    string   `json:"metrics,omitempty"`
	// Load is the overload test of the window (OverloadTest): arrivals,
	// completions, offered − completed and its interval. Null when the
	// window is empty.
	Load *LoadCheck `json:"load"`
	// ClientLag is how late the measuring client itself woke during the
	// step's attempts, as the card counts it (null when they record none);
	// SendLagP99MS is the step's send lag P99 (actual − scheduled send,
	// nearest rank; null in a trace without run_end.sends). A step whose
	// client was late measured its TTFT late too.
	ClientLag    *metrics.ClientLag `json:"client_lag"`
	SendLagP99MS *float64           `json:"send_lag_p99_ms"`
	// LoadAvg is the machine's load average when the step's run started
	// and ended (null where the machine does not tell): a search run again
	// says whether a step decided differently under another load (Again).
	LoadAvg *LoadAvg `json:"load_avg"`
	// WarmupArrivals are the attempts sent in the step's warm-up, before
	// its window, and WarmupArrivalsPlanned rate × --warmup; WarmupBacklog says the warm-up drew clearly more than
	// its plan and the window started with more in flight than a server
	// keeping up holds (WarmupBacklogged): the window's first attempts
	// waited behind the warm-up's. The verdict does not change.
	WarmupArrivals        int64   `json:"warmup_arrivals"`
	WarmupArrivalsPlanned float64 `json:"warmup_arrivals_planned"`
	WarmupBacklog         bool    `json:"warmup_backlog"`
}

// WarmupBacklogged says a step's window started behind a warm-up backlog:
// the warm-up's arrivals exceed their plan, rate × warmupS, by more than
// 1.96 Poisson standard deviations plus one (a one-sided 97.5 % bound,
// the one for a count this small), and the window started with more in
// flight than expected, the level a server keeping up holds by the
// window's own attempts (LoadCheck.ExpectedInFlight). That level is read
// from attempts that themselves waited behind the backlog, so it is
// inflated by it: the test on the warm-up's arrivals is what says the
// schedule, not the server, put them there; a server that cleared them
// in the warm-up starts its window at the expected level and is not
// flagged.
func WarmupBacklogged(rate, warmupS float64, warmupArrivals, inFlightStart int64, expected float64) bool {
	plan := rate * warmupS
	if !(plan > 0) {
		return false
	}
	return float64(warmupArrivals) > plan+1.96*math.Sqrt(plan)+1 && float64(inFlightStart) > expected
}

// Overloaded says whether the step failed because the server fell behind
// its offered rate: by OverloadTest, or stopped early on a growing queue.
func (s Step) Overloaded() bool {
	return s.StoppedEarly() || (s.Verdict == Fails && s.Load != nil && s.Load.Overloaded)
}

// stoppedEarly prefixes the reason of a step ended early on overload.
const stoppedEarly = "stopped early: "

// StoppedEarly says whether the step ended early on overload.
func (s Step) StoppedEarly() bool { return strings.HasPrefix(s.Reason, stoppedEarly) }

// TraceAttempts is the step's window attempts as a summary of its trace
// counts them: Attempts, plus the in-flight ones a stop on overload cut
// off (Step.InFlight), which the trace keeps and the step leaves out.
func (s Step) TraceAttempts() int64 {
	if s.StoppedEarly() {
		return s.Attempts + s.InFlight
	}
	return s.Attempts
}

// Result is the search's answer and its evidence.
type Result struct {
	Target    float64 `json:"target"`
	SLOTTFTMS float64 `json:"slo_ttft_ms"`
	// Model is the model every step asked for (the server's first when
	// none was given); MaxTokens the max_tokens every request sent, which
	// caps the answers' length (the server may stop sooner; its own default does not apply).
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	// QualityJudged says the steps judged a dataset's answers: the rule
	// holds "∧ quality pass". Without a dataset a search qualifies on its
	// latency SLOs alone.
	QualityJudged bool `json:"quality_judged"`
	metrics.LatencySLO
	Confidence     float64  `json:"confidence"`
	Method         string   `json:"method"`
	Steps          []Step   `json:"steps"`
	MaxRateMeeting *float64 `json:"max_rate_meeting"`
	// BoundedBy says what bounds the answer from above: BoundFailingStep
	// (a searched rate above it did not meet), BoundMaxRate (every step met
	// up to MaxRate, so the capacity is at least the answer, the search's
	// limit) or BoundInterrupted; BoundNoRate when no rate met and some
	// step failed, BoundUndecided when no rate met and none failed
	// (Undecided).
	BoundedBy string `json:"bounded_by"`
	// AnswerIsLowerBound is true when BoundedBy is BoundMaxRate (AtLeast):
	// every step met up to --max-rate, so MaxRateMeeting, kept for
	// compatibility, is only a lower bound on the capacity, not a
	// measured one (walk 35g, F11).
	AnswerIsLowerBound bool    `json:"answer_is_lower_bound"`
	MaxRate            float64 `json:"max_rate"`
	// The rest of the search's flags, so that two searches can be checked
	// for the same flags (Again).
	StartRate        float64 `json:"start_rate"`
	Growth           float64 `json:"growth"`
	Resolution       float64 `json:"resolution"`
	WarmupS          float64 `json:"warmup_s"`
	StepDurationS    float64 `json:"step_duration_s"`
	StepMaxDurationS float64 `json:"step_max_duration_s"`
	// Seed is the search's --seed, from which every step's schedule seed
	// is derived (StepSeed): two searches with one seed replay the same
	// arrivals at every rate both ran. Null in a search saved before it
	// was recorded.
	Seed *uint64 `json:"search_seed,omitempty"`
	// Again sets this search beside an earlier one with the same flags
	// (capacity --previous): the same answer, or why not. Null otherwise.
	Again *Agreement `json:"again,omitempty"`
	// Undecided is true when no rate met and none failed: every step was
	// still undecided at its longest window (or interrupted), so the
	// search has no answer either way, which is not "no rate meets".
	// AttemptsToMeet is the fewest attempts with which a step can meet
	// the target (AttemptsToMeet): a step with fewer is undecided at best.
	Undecided      bool `json:"undecided"`
	AttemptsToMeet int  `json:"attempts_to_meet"`
	// AnswerQueueGrowing is true when the answer's own step shows a queue
	// growing that its overload test could not decide on (the step's
	// load.growing_undecided): the answer may be above what the server
	// sustains, and a longer window would tell.
	AnswerQueueGrowing bool `json:"answer_queue_growing"`
	// AnswerWithinPerS is how much less than the answer the server may
	// sustain, as the answer's own step measured it (null when the answer
	// is not a rate): max(0, the step's keep-up bound,
	// load.keep_up_bound_per_s), 0 when its window completed at least the
	// offered rate; the resolution when the step has no load check. A step
	// meets when that bound is at most --resolution (LoadCheck.KeepsUp), so
	// it is never more than the resolution for a step that met.
	AnswerWithinPerS *float64 `json:"answer_within_per_s"`
	// StoppedBefore is the rate the bisection ended before, not run: its
	// longest window could not hold the attempts meeting the target needs
	// (LowestDecidableRate). Null otherwise.
	StoppedBefore *float64 `json:"stopped_before_rate,omitempty"`
	// Provisional is true when the search was interrupted.
	Provisional bool    `json:"provisional"`
	ElapsedS    float64 `json:"elapsed_s"`
	StopReason  string  `json:"stop_reason"`
}

// What bounds an answer (Result.BoundedBy).
const (
	BoundFailingStep = "failing_step"
	BoundMaxRate     = "max_rate"
	BoundInterrupted = "interrupted"
	// BoundNoRate: no searched rate met, so there is no answer to bound
	// (a search's JSON before it had a name says "").
	BoundNoRate = "no_rate_met"
	// BoundUndecided: no searched rate met and none failed (Undecided):
	// undecided is not "no rate meets", so two searches that differ so do
	// not agree (Agreement). A search saved before BoundedBy said it wrote
	// BoundNoRate beside "undecided": true, which bound reads as this.
	BoundUndecided = "undecided"
)

// bound is what Again compares: r's BoundedBy, "" read as BoundNoRate when
// no rate met (a search saved before that had a name), and BoundUndecided
// when no rate met because every step stayed undecided (a search saved
// before BoundedBy said so wrote BoundNoRate there).
func (r *Result) bound() string {
	if r.MaxRateMeeting == nil && r.Undecided {
		return BoundUndecided
	}
	if r.BoundedBy == "" && r.MaxRateMeeting == nil {
		return BoundNoRate
	}
	return r.BoundedBy
}

// AnswerStep is the step at the answer (the last one measured at that
// rate); nil when no rate met.
func (r *Result) AnswerStep() *Step {
	var at *Step
	for i := range r.Steps {
		if r.MaxRateMeeting != nil && r.Steps[i].Rate == *r.MaxRateMeeting {
			at = &r.Steps[i]
		}
	}
	return at
}

// ShortStep is the lowest-rate step that did not meet, when no rate met
// and some step failed, if that step was left undecided with fewer
// attempts than meeting the target needs: the step's length, not the
// server, bounds the answer "no rate meets" there. nil otherwise, and nil
// when the lowest step that did not meet failed: that step was decided,
// the server failed it.
func (r *Result) ShortStep() *Step {
	if r.MaxRateMeeting != nil || r.Undecided {
		return nil
	}
	need := int64(r.AttemptsToMeet)
	if need == 0 {
		need = int64(AttemptsToMeet(r.Target))
	}
	var low *Step
	for i := range r.Steps {
		if s := &r.Steps[i]; s.Verdict != Meets && s.Verdict != Interrupted && (low == nil || s.Rate < low.Rate) {
			low = s
		}
	}
	if low == nil || low.Verdict != Undecided || low.Attempts >= need {
		return nil
	}
	return low
}

// MostAttempts is the most attempts any step had in its window.
func (r *Result) MostAttempts() int64 {
	most := int64(0)
	for _, s := range r.Steps {
		most = max(most, s.Attempts)
	}
	return most
}

// Judged says whether the rule requires a quality pass: a dataset was
// judged, or (a search saved before quality_judged was recorded) no
// latency SLO could have qualified it alone.
func (r *Result) Judged() bool { return r.QualityJudged || !r.LatencySLO.Set() }

// AnswerWithin is how much less than the answer the server may sustain
// (AnswerMargin's PerS): max(0, the answer step's keep-up bound), or the
// resolution when that step has no load check. 0 when the answer is not a
// rate.
func (r *Result) AnswerWithin() float64 {
	m, _ := r.AnswerMargin()
	return m.PerS
}

// AnswerMargin is what the answer's caveat quotes: how much less than the
// answer the server may sustain, and where that comes from.
type AnswerMargin struct {
	// Rate is the answer (Result.MaxRateMeeting).
	Rate float64
	// PerS is the margin: max(0, Load.KeepUpBound) when Load is set, else
	// the resolution. 0 says the answer step's window completed at least
	// the offered rate.
	PerS float64
	// Load is the answer step's load check when it has a keep-up bound
	// (its Resolution > 0): PerS is its own measured margin, printed as
	// Load.Figures().KeepUpBound, the figure of the step's keep-up line.
	// nil: no load check, PerS is the resolution.
	Load *LoadCheck
	// Resolution is the search's --resolution, within which a step meets.
	Resolution float64
}

// Measured says PerS is the answer step's own keep-up bound, not the
// resolution.
func (m AnswerMargin) Measured() bool { return m.Load != nil }

// AnswerMargin is the answer's margin (AnswerMargin); false when the
// answer is not a rate. It is read from the answer step's recorded load
// check, so that a search saved before answer_within_per_s was the step's
// own bound (it was the resolution then) reads the same as a new one; a
// step without a keep-up bound falls back to answer_within_per_s, then to
// the resolution.
func (r *Result) AnswerMargin() (AnswerMargin, bool) {
	if r.MaxRateMeeting == nil {
		return AnswerMargin{}, false
	}
	m := AnswerMargin{Rate: *r.MaxRateMeeting, PerS: r.Resolution, Resolution: r.Resolution}
	if a := r.AnswerStep(); a != nil && a.Load != nil && a.Load.Resolution > 0 {
		m.Load, m.PerS = a.Load, max(0, a.Load.KeepUpBound)
		return m, true
	}
	if r.AnswerWithinPerS != nil {
		m.PerS = *r.AnswerWithinPerS
	}
	return m, true
}

// AtLeast says whether the answer is only a lower bound: every searched
// rate met, up to the search's limit.
func (r *Result) AtLeast() bool { return r.MaxRateMeeting != nil && r.BoundedBy == BoundMaxRate }

// settleAnswer sets the answer from the steps searched up to maxRate: the
// highest rate meeting, what bounds it, whether it is only a lower bound
// (AnswerIsLowerBound) and whether every step stayed undecided.
func (r *Result) settleAnswer(maxRate float64) {
	r.MaxRateMeeting = answer(r.Steps)
	r.BoundedBy = boundedBy(r.Steps, r.MaxRateMeeting, maxRate)
	r.AnswerIsLowerBound = r.AtLeast()
	r.Undecided = undecided(r.Steps, r.MaxRateMeeting)
}

// Validate rejects bad input before any load is sent.
func (c *Config) Validate() error {
	switch {
	case !(c.Target > 0 && c.Target <= 1):
		return fmt.Errorf("target %g is outside (0, 1]", c.Target)
	case !(c.SLOTTFTMS > 0):
		return errors.New("the TTFT SLO must be positive")
	case !(c.StartRate > 0) || math.IsInf(c.StartRate, 0):
		return fmt.Errorf("start rate %g must be positive", c.StartRate)
	case !(c.MaxRate > c.StartRate) && c.Resolution > 0 && !math.IsInf(c.Resolution, 0):
		// Above the start rate alone would be refused next for the
		// resolution: name the rate both allow (issue 35).
		return fmt.Errorf("max rate %g must be above the start rate %g plus the resolution %g req/s, that is above %s", c.MaxRate, c.StartRate, c.Resolution, numfmt.Exact(numfmt.Clean(c.StartRate+c.Resolution)))
	case !(c.MaxRate > c.StartRate) || math.IsInf(c.MaxRate, 0):
		return fmt.Errorf("max rate %g must be above the start rate %g", c.MaxRate, c.StartRate)
	case !(c.Growth > 1):
		return fmt.Errorf("growth %g must be above 1", c.Growth)
	case !(c.Resolution > 0):
		return errors.New("resolution must be positive")
	case c.Resolution >= c.MaxRate-c.StartRate:
		return fmt.Errorf("resolution %g req/s is not smaller than the searched range [%g, %g]: lower the resolution below %s or raise the max rate above %s",
			c.Resolution, c.StartRate, c.MaxRate, numfmt.Exact(numfmt.Clean(c.MaxRate-c.StartRate)), numfmt.Exact(numfmt.Clean(c.StartRate+c.Resolution)))
	case c.StepDuration <= 0 || c.StepMaxDuration < c.StepDuration:
		return errors.New("step duration must be positive and at most the step max duration")
	case c.Warmup < 0:
		return errors.New("warm-up must not be negative")
	case c.OutDir == "":
		return errors.New("no output directory for the step traces")
	}
	return nil
}

// Verdict judges q qualified of n attempts against target by the 95 %
// Wilson interval.
func Verdict(q, n int64, target float64) (verdict string, low, high float64, ok bool) {
	low, high, ok = metrics.WilsonBounds(float64(q), float64(n))
	switch {
	case !ok:
		return Undecided, 0, 0, false
	case low >= target:
		return Meets, low, high, true
	case high < target:
		return Fails, low, high, true
	}
	return Undecided, low, high, true
}

// AttemptsToMeet is the fewest attempts with which a step can meet target:
// the smallest n at which n qualified of n attempts has a 95 % Wilson lower
// bound of at least target (35 at 0.9). A step with fewer attempts is
// undecided at best, whatever the server does. 0 means never (a target of
// 1, which no finite step reaches).
func AttemptsToMeet(target float64) int {
	for n := int64(1); n <= 1<<20; n++ {
		if v, _, _, _ := Verdict(n, n, target); v == Meets {
			return int(n)
		}
	}
	return 0
}

// Search runs the search. Cancelling ctx interrupts it: finished steps are
// kept, the running one is marked, and the answer so far is provisional.
// The error is non-nil only for bad input, an unreachable server or a trace
// that cannot be written.
func Search(ctx context.Context, c Config) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	b := c.Bench
	if b.Client == nil {
		b.Client = loadgen.NewClient()
	}
	if b.Model == "" {
		m, err := loadgen.ResolveModel(ctx, b.Client, b.URL, b.Header)
		if err != nil {
			return nil, fmt.Errorf("server %s is not answering: %w", loadgen.RedactURL(b.URL), err)
		}
		b.Model = m
	}
	// Made once the server answered: a search that cannot start leaves no
	// empty folder behind.
	if err := os.MkdirAll(c.OutDir, 0o755); err != nil {
		return nil, err
	}
	if b.MaxTokens == 0 {
		b.MaxTokens = loadgen.DefaultMaxTokens
	}
	c.Bench = b
	start := time.Now()
	res := &Result{AttemptsToMeet: AttemptsToMeet(c.Target), MaxTokens: b.MaxTokens, QualityJudged: b.Dataset != nil, Target: c.Target, SLOTTFTMS: c.SLOTTFTMS, Model: b.Model, LatencySLO: c.Latency, Confidence: metrics.Confidence, Method: metrics.Wilson, MaxRate: c.MaxRate,
		StartRate: c.StartRate, Growth: c.Growth, Resolution: c.Resolution, WarmupS: c.Warmup.Seconds(), StepDurationS: c.StepDuration.Seconds(), StepMaxDurationS: c.StepMaxDuration.Seconds()}
	seed := b.Seed
	res.Seed = &seed
	n := 0
	step := func(rate float64) (Step, error) {
		s, err := c.runStep(ctx, rate, &n)
		if err == nil {
			res.Steps = append(res.Steps, s)
			c.seen = append(c.seen, s)
			if c.OnStep != nil {
				c.OnStep(s)
			}
		}
		return s, err
	}
	finish := func(reason string) (*Result, error) {
		res.StopReason = reason
		res.settleAnswer(c.MaxRate)
		if res.Undecided && !res.Provisional {
			// Worded as the text's answer: undecided, not "no rate
			// searched meets … which does not meet" (walk 35f, item 1).
			tail := reason
			if res.StoppedBefore == nil {
				tail = fmt.Sprintf("bisected down to %s req/s, the lowest rate searched, within --resolution %s req/s of 0", numfmt.Num(lowestRate(res.Steps)), numfmt.Num(c.Resolution))
			}
			res.StopReason = undecidedReason(res.MostAttempts(), res.AttemptsToMeet, res.Target) + "; " + tail
		}
		if a := res.AnswerStep(); a != nil && a.Load != nil {
			res.AnswerQueueGrowing = a.Load.GrowingUndecided
		}
		if m, ok := res.AnswerMargin(); ok {
			w := m.PerS
			res.AnswerWithinPerS = &w
		}
		res.ElapsedS = time.Since(start).Seconds()
		return res, nil
	}
	lo, hi := 0.0, 0.0 // highest rate meeting, lowest not meeting
	for rate := c.StartRate; ; rate *= c.Growth {
		rate = min(rate, c.MaxRate)
		s, err := step(rate)
		if err != nil {
			return nil, err
		}
		if s.Verdict == Interrupted {
			res.Provisional = true
			return finish("interrupted")
		}
		if s.Verdict != Meets {
			hi = rate
			break
		}
		lo = rate
		if rate >= c.MaxRate {
			return finish(fmt.Sprintf("the highest rate searched (%g req/s) meets the target", c.MaxRate))
		}
	}
	need := res.AttemptsToMeet
	for hi-lo > c.Resolution {
		// Rounded to a rate's printed precision (Rate), so that the step's
		// rate, its trace's name and every output say one number.
		mid := math.Round((lo+hi)/2*1000) / 1000
		if need > 0 && mid*c.StepMaxDuration.Seconds() < float64(need) {
			// Even its longest window holds about mid × StepMaxDuration
			// attempts, fewer than meeting the target needs: the step
			// could not meet, so it is not run.
			res.StoppedBefore = &mid
			return finish(cannotMeetReason(mid, need, c.StepMaxDuration))
		}
		s, err := step(mid)
		if err != nil {
			return nil, err
		}
		if s.Verdict == Interrupted {
			res.Provisional = true
			return finish("interrupted")
		}
		if s.Verdict == Meets {
			lo = mid
		} else {
			hi = mid
		}
	}
	return finish(bisectedReason(lo, hi, c.Resolution))
}

// cannotMeet prefixes the stop reason of a search that ended before a rate
// whose longest window could not hold the attempts meeting the target needs.
const cannotMeet = "stopped before "

// StoppedCannotMeet says the search ended before a rate too low to meet
// the target within --step-max-duration (cannotMeetReason, StoppedBefore).
func (r *Result) StoppedCannotMeet() bool { return r.StoppedBefore != nil }

// LowestDecidableRate is the lowest rate whose longest window holds, on
// average, the attempts meeting the target needs: AttemptsToMeet ÷
// --step-max-duration (0 when no finite step meets, or no duration).
func (r *Result) LowestDecidableRate() float64 {
	if r.AttemptsToMeet <= 0 || r.StepMaxDurationS <= 0 {
		return 0
	}
	return float64(r.AttemptsToMeet) / r.StepMaxDurationS
}

// cannotMeetReason is the stop reason of a bisection whose next rate, at
// most rate × longest attempts in its longest window, could not reach the
// need of AttemptsToMeet: a step there could only be undecided (or fail).
func cannotMeetReason(rate float64, need int, longest time.Duration) string {
	return fmt.Sprintf("%s%s req/s: its longest window (--step-max-duration %s) holds about %s attempts, fewer than the %d meeting the target needs, so a step there could not meet; the lowest rate that can meet within --step-max-duration is %d ÷ %s = %s req/s; to search lower, give a longer --step-max-duration (%s req/s needs at least %s), or a lower --target",
		cannotMeet, Rate(rate), longest, numfmt.Num(rate*longest.Seconds()), need, need, longest, Rate(float64(need)/longest.Seconds()), Rate(rate), time.Duration(math.Ceil(float64(need)/rate))*time.Second)
}

// bisectedReason is the stop reason of a bisection that ended between lo
// (the highest rate that met) and hi (the lowest that did not): they are
// within the resolution, which is a precision, not a rate found. lo 0 is
// no rate met: the bisection went down towards 0.
func bisectedReason(lo, hi, resolution float64) string {
	if lo == 0 {
		return fmt.Sprintf("no rate searched meets: bisected down to %s req/s, the lowest rate searched, which does not meet and is within --resolution %s req/s of 0",
			numfmt.Num(hi), numfmt.Num(resolution))
	}
	return fmt.Sprintf("bisected until the highest rate that meets (%s req/s) and the lowest that does not (%s req/s) are within the resolution, --resolution %s req/s",
		numfmt.Num(lo), numfmt.Num(hi), numfmt.Num(resolution))
}

// undecidedReason is the head of the stop reason of an undecided search
// (Result.Undecided), worded as the text's answer
// (cardfmt.CapacityUndecidedIn): most is the most attempts a step had,
// need the fewest with which a step can meet target (AttemptsToMeet).
func undecidedReason(most int64, need int, target float64) string {
	why := "every step's 95% interval straddles the target"
	if need > 0 && most < int64(need) {
		why = fmt.Sprintf("too few attempts: at most %d in a step, and even with every attempt qualified a step needs at least %d for its Wilson lower bound to reach %s%%",
			most, need, numfmt.Num(target*100))
	}
	return fmt.Sprintf("undecided: no step could decide either way (%s), so this is not \"no rate meets\"", why)
}

// lowestRate is the lowest rate the steps searched (0 for none).
func lowestRate(steps []Step) float64 {
	low := 0.0
	for i, s := range steps {
		if i == 0 || s.Rate < low {
			low = s.Rate
		}
	}
	return low
}

// undecided says whether a search with answer ans is undecided: no rate
// met and none failed.
func undecided(steps []Step, ans *float64) bool {
	return ans == nil && !slices.ContainsFunc(steps, func(s Step) bool { return s.Verdict == Fails })
}

// answer is the highest searched rate that meets, with every lower
// searched rate meeting too.
func answer(steps []Step) *float64 {
	var best *float64
	lowestNot := math.Inf(1)
	for _, s := range steps {
		if s.Verdict != Meets && s.Verdict != Interrupted {
			lowestNot = min(lowestNot, s.Rate)
		}
	}
	for _, s := range steps {
		if s.Verdict == Meets && s.Rate < lowestNot && (best == nil || s.Rate > *best) {
			r := s.Rate
			best = &r
		}
	}
	return best
}

// boundedBy says what bounds ans from above: a searched rate above it that
// did not meet, the search's limit maxRate when ans reached it, or an
// interrupted step. With no answer there is nothing to bound: BoundNoRate
// when some step failed, BoundUndecided when none did (undecided).
func boundedBy(steps []Step, ans *float64, maxRate float64) string {
	if ans == nil {
		if undecided(steps, ans) {
			return BoundUndecided
		}
		return BoundNoRate
	}
	for _, s := range steps {
		if s.Rate > *ans && s.Verdict != Meets && s.Verdict != Interrupted {
			return BoundFailingStep
		}
	}
	if *ans >= maxRate {
		return BoundMaxRate
	}
	return BoundInterrupted
}

// runStep measures one rate, running it again with a doubled window while
// its window did not decide it (Step.runAgain), up to StepMaxDuration.
func (c *Config) runStep(ctx context.Context, rate float64, n *int) (Step, error) {
	var s Step
	for d, ext := c.StepDuration, 0; ; d, ext = min(2*d, c.StepMaxDuration), ext+1 {
		*n++
		path := filepath.Join(c.OutDir, fmt.Sprintf("step-%02d-rate-%s.jsonl", *n, Rate(rate)))
		if c.OnRun != nil {
			c.OnRun(rate, d)
		}
		var err error
		s, err = c.measure(ctx, rate, d, path, StepSeed(c.Bench.Seed, rate, ext))
		if err != nil {
			return s, err
		}
		s.Extended = ext
		if !s.runAgain() || ctx.Err() != nil {
			return s, nil
		}
		if d >= c.StepMaxDuration {
			s.settleAtLongest(c.StepMaxDuration)
			return s, nil
		}
	}
}

// runAgain says a step's window did not decide it, so that it is run
// again with a longer window (and its own schedule, StepSeed) while
// --step-max-duration allows: undecided by the Wilson rule; met on its
// SLOs while its window did not show the server keeping up within the
// resolution (LoadCheck.GrowingUndecided; a step meets only when it
// does); or failed on attainment alone behind a warm-up backlog
// (WarmupBacklog): its window's first attempts waited behind arrivals the
// warm-up's schedule happened to bunch, so it judged that bunch, not the
// rate (walk 35i: 0 of 1 qualified after 6 warm-up arrivals where 1 was
// planned). A backlog only makes latencies worse, so a step that met
// despite one stands, and so does one that failed on overload.
func (s Step) runAgain() bool {
	switch {
	case s.Verdict == Undecided:
		return true
	case s.Verdict == Meets:
		return s.Load != nil && s.Load.GrowingUndecided
	case s.Verdict == Fails:
		return s.WarmupBacklog && !s.Overloaded()
	}
	return false
}

// settleAtLongest gives the verdict of a step's longest window: one that
// passes its SLOs while its window shows neither overload nor the server
// keeping up says nothing about the rate being sustainable, so it is
// undecided, not meets.
func (s *Step) settleAtLongest(longest time.Duration) {
	if s.Verdict == Meets && s.Load != nil && s.Load.GrowingUndecided {
		s.Verdict, s.Reason = Undecided, s.Load.undecidedReason(longest)
	}
}

// runStepOnce measures one rate with the first window only (tests).
func (c *Config) runStepOnce(ctx context.Context, rate float64) (Step, error) {
	return c.measure(ctx, rate, c.StepDuration, filepath.Join(c.OutDir, fmt.Sprintf("once-rate-%s.jsonl", Rate(rate))), StepSeed(c.Bench.Seed, rate, 0))
}

// StepSeed is the seed of one run's arrival schedule in a search whose
// seed is base (--seed): base mixed with the step's rate and the run's
// index within the step (0 its first window, n its n-th longer re-run).
// The warm-up is the start of the same schedule (one loadgen.Run), so it
// draws from the step's seed too; --dataset arith keeps base.
//
// Without it every step replayed one Poisson schedule scaled by 1/λ, so a
// schedule that happened to be light (10 arrivals where 18 were expected)
// was light in every step at once, and the steps were not independent
// evidence (issue 35). The seed is derived from the rate, not from the
// step's place in the search, so that a rate's schedule depends only on
// the search's seed and that rate, not on the path the search took to it:
// two searches with one seed that reach a rate by different start rates
// or growths (--previous) send it the same schedule, and a search run
// twice with the same flags replays the same steps. One search never runs
// a rate twice, so its steps draw different schedules. The run index
// keeps a longer re-run of an undecided step from replaying its first
// window's schedule, and with it that window's shortfall of arrivals.
//
// The seed has 53 bits, so that a JSON reader that holds numbers as
// doubles (jq, JavaScript) reads the step's seed exactly.
func StepSeed(base uint64, rate float64, run int) uint64 {
	h := splitmix64(base ^ 0x73746570) // "step"
	h = splitmix64(h ^ math.Float64bits(rate))
	h = splitmix64(h ^ uint64(run))
	return h >> 11
}

// splitmix64 is the SplitMix64 finaliser: every input bit moves about half
// of the output bits.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// measure is one bench run at rate with window d and the schedule's seed,
// written to path.
func (c *Config) measure(ctx context.Context, rate float64, d time.Duration, path string, seed uint64) (Step, error) {
	s := Step{Rate: rate, Trace: path, Seed: seed}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return s, err // an existing trace is never overwritten
	}
	defer f.Close()
	cfg := c.Bench
	cfg.Rate, cfg.Duration, cfg.Warmup, cfg.Seed = rate, d, c.Warmup, seed
	cfg.Conditions = map[string]any{}
	for k, v := range c.Bench.Conditions {
		cfg.Conditions[k] = v
	}
	cfg.Conditions["slo"] = metrics.SLOSet{TTFTMS: []float64{c.SLOTTFTMS}, LatencySLO: c.Latency}
	cfg.Conditions["capacity_step"] = map[string]any{"rate": rate, "target": c.Target, "slo_ttft_ms": c.SLOTTFTMS, "window_s": d.Seconds()}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watch := newOverloadWatch(rate)
	watch.fill, watch.expected = c.fillFor(rate)
	watch.resolution = c.Resolution
	cfg.ProgressEvery = 250 * time.Millisecond
	userProgress := c.Bench.Progress
	cfg.Progress = func(p loadgen.Progress) {
		if userProgress != nil {
			userProgress(p)
		}
		if reason := watch.observe(p); reason != "" {
			cancel(loadgen.Interrupted{At: time.Now(), Reason: trace.RunOverload})
		}
	}
	var scrapes bytes.Buffer
	if c.BusyGauge != "" {
		side, err := c.busySidecar(&cfg, path, &scrapes)
		if err != nil {
			return s, err
		}
		defer side.Close()
		s.Metrics = side.Name()
	}
	la0, ok0 := readLoadAvg()
	if _, err := loadgen.Run(runCtx, cfg, f); err != nil {
		return s, err
	}
	if la1, ok1 := readLoadAvg(); ok0 && ok1 {
		s.LoadAvg = &LoadAvg{Start: la0, End: la1}
	}
	if err := f.Close(); err != nil {
		return s, err
	}
	sum, err := cardopts.SummarizeFile(path, c.Flags())
	if err != nil {
		return s, err
	}
	// A run interrupted in its warm-up has a placeholder window of a
	// microsecond (trace.RunEnd.BeforeWindow): no test divides by it, or
	// its completions' interval reads [0, 3688879] per second.
	before := sum.RunEnd != nil && sum.RunEnd.BeforeWindow()
	if sum.WindowS > 0 && !before {
		t, err := trace.ReadFile(path)
		if err != nil {
			return s, fmt.Errorf("capacity step %g req/s: %w", rate, err)
		}
		a, d, n0, n1, w := loadCounts(t, sum.Window.StartMS, sum.Window.EndMS)
		lc, err := CheckLoad(LoadWindow{OfferedPerS: rate, WindowS: sum.WindowS, Arrivals: a, Completions: d, InFlightStart: n0, InFlightEnd: n1,
			ExpectedInFlight: rate * w, Resolution: c.Resolution})
		if err != nil {
			return s, fmt.Errorf("capacity step %g req/s (%s): %w", rate, path, err)
		}
		s.Load = &lc
		s.TimeInFlightS = w
		for i := range t.Attempts {
			if t.Attempts[i].StartMS < sum.Window.StartMS {
				s.WarmupArrivals++
			}
		}
		s.WarmupArrivalsPlanned = rate * c.Warmup.Seconds()
		s.WarmupBacklog = WarmupBacklogged(rate, c.Warmup.Seconds(), s.WarmupArrivals, n0, lc.ExpectedInFlight)
	}
	if watch.load != nil {
		// A step stopped early is judged by the watch's test, which the
		// trace's window after the stop need not repeat: its load is that
		// test, so that the reason, the JSON and every view print one set
		// of figures (walk 35c, item 1).
		s.Load = watch.load
	}
	if c.BusyGauge != "" && !before {
		sc, err := parseScrapes(scrapes.Bytes())
		if err != nil {
			return s, err
		}
		b := busyOver(sc, c.BusyGauge, sum.Window.StartMS, sum.Window.EndMS)
		s.BusyMean, s.BusyMax, s.BusyReads, s.BusyMethod = b.mean, b.max, b.reads, b.method
	}
	// Attempts still in flight when the watch stopped the step were cut
	// off by the stop, not failed: they are neither (Step.InFlight).
	v, lo, hi, ok := s.judge(sum, c.Target, watch.reason != "")
	if before {
		s.BeforeWindow, s.WindowS, s.GoodputPerS = true, 0, 0
	}
	switch {
	case before:
		s.Verdict, s.Reason = Interrupted, "the search was interrupted before this step's window began (in its warm-up): nothing was measured"
	case ctx.Err() != nil:
		s.Verdict, s.Reason = Interrupted, "the search was interrupted during this step"
	case watch.load != nil:
		s.Verdict, s.Reason = Fails, stoppedEarly+s.Load.Reason()
	case s.Load != nil && s.Load.Overloaded:
		// Whatever the attainment: a window that passes while the queue
		// grows says nothing about the rate being sustainable.
		s.Verdict, s.Reason = Fails, s.Load.Reason()
	case v == Meets:
		s.Reason = wilsonReason(v, lo, hi, c.Target)
		if s.Load != nil && s.Load.KeepsUp {
			s.Reason += "; " + s.Load.keepsUpReason()
		} else if s.Load != nil && s.Load.GrowingUndecided {
			s.Reason += "; " + s.Load.notShownReason()
		}
	case v == Fails:
		s.Reason = wilsonReason(v, lo, hi, c.Target)
	case ok:
		s.Reason = wilsonReason(v, lo, hi, c.Target)
		if need := AttemptsToMeet(c.Target); s.Attempts < int64(need) {
			s.Reason += fmt.Sprintf("; too few attempts: %d, and meeting it needs at least %d even if all qualify (a longer --step-duration or --step-max-duration, or a higher rate)", s.Attempts, need)
		}
	default:
		s.Reason = "no attempts in the window"
	}
	s.noteLate()
	return s, nil
}

// wilsonReason is the Wilson rule's part of a step's reason for verdict
// v, with the interval [lo, hi] and the target in percent, as the text,
// the JSON and the Chinese lines print attainment.
func wilsonReason(v string, lo, hi, target float64) string {
	switch v {
	case Meets:
		return fmt.Sprintf("Wilson lower bound %s ≥ target %s", numfmt.PctFixed(lo), targetPct(target))
	case Fails:
		return fmt.Sprintf("Wilson upper bound %s < target %s", numfmt.PctFixed(hi), targetPct(target))
	}
	return fmt.Sprintf("Wilson interval [%s, %s] holds the target %s", numfmt.PctFixed(lo), numfmt.PctFixed(hi), targetPct(target))
}

// targetPct is the target as every capacity line prints it, a percentage
// (90%), beside attainment bounds printed by numfmt.PctFixed (78.5%): one
// unit in a step's reason, its text and the Chinese lines (walk 35l: "upper
// bound 0.785 < target 0.9" beside "[21.5%, 78.5%]").
func targetPct(target float64) string { return numfmt.Num(target*100) + "%" }

// noteLate adds to the reason of a step failed on overload that the client
// was late, when it was (ClientLate).
func (s *Step) noteLate() {
	if s.Overloaded() && s.ClientLate() {
		s.Reason += "; " + s.lateReason()
	}
}

// ClientLate says the measuring client itself was late during the step, as
// the card counts it: a wake-up lag over its bound, or a send lag P99 over
// metrics.SendLagBoundMS.
func (s Step) ClientLate() bool {
	return (s.ClientLag != nil && s.ClientLag.OverBound > 0) || (s.SendLagP99MS != nil && *s.SendLagP99MS > metrics.SendLagBoundMS)
}

// lateReason says, on a step failed by the overload test, that the client
// was late: the test reads the in-flight count and the completions on the
// client's clock, so a client that woke late ends its attempts late and
// its own delay can look like a queue growing.
func (s Step) lateReason() string {
	var parts []string
	if c := s.ClientLag; c != nil && c.OverBound > 0 {
		word := "attempts"
		if c.OverBound == 1 {
			word = "attempt"
		}
		parts = append(parts, fmt.Sprintf("wake-up lag over %s ms in %d %s, at most %s ms", numfmt.Num(c.BoundMS), c.OverBound, word, numfmt.Num(c.MaxMS)))
	}
	if v := s.SendLagP99MS; v != nil && *v > metrics.SendLagBoundMS {
		parts = append(parts, fmt.Sprintf("send lag P99 %s ms", numfmt.Num(*v)))
	}
	return "but the client was late (" + strings.Join(parts, ", ") + "): the overload test's evidence may be the client's own delay, not the server's"
}

// busySidecar makes the step scrape the server's /metrics every busyEvery
// into path+".metrics.jsonl" (never overwritten) and into buf, as bench
// --metrics-url does, and names the sidecar in the step's conditions.
func (c *Config) busySidecar(cfg *loadgen.Config, path string, buf *bytes.Buffer) (*os.File, error) {
	if cfg.MetricsURL == "" {
		cfg.MetricsURL = loadgen.Endpoint(cfg.URL, "/metrics") // after the path, not after --url's query
	}
	side, err := os.OpenFile(path+".metrics.jsonl", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	cfg.MetricsEvery = busyEvery
	cfg.MetricsSink = io.MultiWriter(side, buf)
	cfg.Conditions["metrics_sidecar"] = filepath.Base(side.Name())
	cfg.Conditions["metrics_url"] = loadgen.RedactURL(cfg.MetricsURL)
	cfg.Conditions["busy_metric"] = c.BusyGauge
	return side, nil
}

// overloadWatch ends a step whose server has fallen behind, by the
// signals that judge a finished window (OverloadTest) applied to the
// progress reports' counts since the window's first report, both at once:
// the completions' interval wholly below the offered rate and the
// arrivals, and the in-flight growth beyond its standard error. A run of
// rising reports is not enough: bunched arrivals raise the in-flight count
// for a second while completions keep pace.
//
// A pipeline still filling is not a growing queue: after a warm-up shorter
// than the time an attempt spends in flight, the in-flight count rises
// through the window's first seconds towards the level a server that keeps
// up holds, rate × time in flight (Little's law). So the baseline is the
// first window report at or after fill (three times the time in flight of
// the search's last step at or below this rate), and the growth is counted
// from the highest of its count, expected (that level) and the mean count
// of the reports so far, which estimates the level when no step before
// gives it: a window that starts with an empty pipeline (in flight 0) is
// not 2.2 standard errors of growth when it ends with the 5 a filled one
// holds.
type overloadWatch struct {
	offered  float64
	fill     time.Duration // since the run's start: no baseline before
	expected float64       // the in-flight level of a filled pipeline; 0: unknown
	first    *loadgen.Progress
	sum      int64 // the in-flight counts of the reports from first on
	reports  int64
	reason   string
	// load is the test that stopped the step (nil while it runs on), and
	// resolution the search's, so that load has its keep-up bound too.
	load       *LoadCheck
	resolution float64
}

// fillFor is the watch's fill time and expected in-flight level at rate,
// from the search's last step at or below it (a step at a higher rate may
// be overloaded, its time in flight a queue's): none before the first.
func (c *Config) fillFor(rate float64) (time.Duration, float64) {
	for i := len(c.seen) - 1; i >= 0; i-- {
		if s := c.seen[i]; s.Rate <= rate && s.TimeInFlightS > 0 {
			return time.Duration(3 * s.TimeInFlightS * float64(time.Second)), rate * s.TimeInFlightS
		}
	}
	return 0, 0
}

// earlyStopAfter is the shortest span of reports the watch decides on:
// four reports, so that a step stopped early still has a window to read
// (the server's busy share is scraped every 250 ms) and one bunch of
// arrivals is not all the evidence.
const earlyStopAfter = time.Second

func newOverloadWatch(offered float64) *overloadWatch { return &overloadWatch{offered: offered} }

func (w *overloadWatch) observe(p loadgen.Progress) string {
	if w.reason != "" || p.Phase != "window" || p.Elapsed < w.fill {
		return ""
	}
	if w.first == nil {
		w.first = &p
	}
	w.sum += p.InFlight
	w.reports++
	f := w.first
	if p.Elapsed-f.Elapsed < earlyStopAfter {
		return ""
	}
	lc, err := CheckLoad(LoadWindow{OfferedPerS: w.offered, WindowS: (p.Elapsed - f.Elapsed).Seconds(), Arrivals: p.Sent - f.Sent, Completions: p.Done - f.Done,
		InFlightStart: f.InFlight, InFlightEnd: p.InFlight, ExpectedInFlight: max(w.expected, float64(w.sum)/float64(w.reports)), Resolution: w.resolution})
	// Asked at every report, so it takes both signals: one signal tested
	// again and again through a window would fire by chance (the finished
	// window is tested once, where either fails the step).
	if err == nil && lc.FellBehind && lc.Grew {
		w.reason, w.load = lc.Reason(), &lc
	}
	return w.reason
}

// Flags are the flags of a step's summary (coursekit/cardopts): the
// search's TTFT SLO with its latency SLOs, one condition.
func (c *Config) Flags() cardopts.Flags {
	return cardopts.Flags{TTFTMS: []float64{c.SLOTTFTMS}, Latency: c.Latency}
}

// judge fills the step's counts from sum, the summary of its trace under
// the search's flags (Config.Flags), and its verdict at target by the
// Wilson rule (Verdict), which it also returns with the interval. cutOff
// says the step was stopped early: its attempts still in flight are left
// out of Attempts (and the attainment), kept in InFlight.
func (s *Step) judge(sum *metrics.Summary, target float64, cutOff bool) (v string, lo, hi float64, ok bool) {
	cond := sum.Conditions[0]
	s.Attempts, s.Qualified, s.WindowS = sum.Attempts, cond.Qualified, sum.WindowS
	s.InFlight = sum.InFlight
	if cutOff {
		s.Attempts -= sum.InFlight
		if s.Attempts > 0 {
			a := float64(s.Qualified) / float64(s.Attempts)
			cond.QualifiedRate.Value = &a
		} else {
			cond.QualifiedRate.Value = nil
		}
	}
	s.Attainment = cond.QualifiedRate.Value
	s.GoodputPerS = cond.GoodputPerS
	s.P95TTFTMS = sum.TTFT.P95
	s.ClientLag = sum.ClientLag
	if sum.RunEnd != nil && sum.RunEnd.Sends != nil && sum.RunEnd.Sends.LagN > 0 {
		v := sum.RunEnd.Sends.LagP99MS
		s.SendLagP99MS = &v
	}
	v, lo, hi, ok = Verdict(s.Qualified, s.Attempts, target)
	if ok {
		s.CILow, s.CIHigh = &lo, &hi
	}
	s.Verdict = v
	return v, lo, hi, ok
}

// StepOf is a step judged from sum, the summary of a run under the
// search's flags (Config.Flags): its counts, and the verdict of the 95 %
// Wilson interval against target, without the overload test (the run's
// load counts are not in a summary). Rate is left 0.
func StepOf(sum *metrics.Summary, target float64) Step {
	var s Step
	s.judge(sum, target, false)
	return s
}
