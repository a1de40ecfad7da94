package capacity

import (
	"fmt"
	"math"
	"time"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// LoadMethod names the statistics of LoadCheck.
const LoadMethod = "poisson-exact+count-difference"

// overloadZ is the two-sided 95 % normal quantile: the arrivals' and the
// decide-window estimates use it; the completion-rate interval is the
// exact 95 % one.
const overloadZ = 1.959964

// growthZ is how many standard errors of in-flight growth the Grew signal
// asks for: the two-sided 99 % quantile. Either signal fails a step, so
// each must be surer than one alone would be; and the standard error,
// sqrt(N₀ + N₁), is a Poisson count's, while a queue's in-flight count
// near saturation spreads more than its mean. At 1.96 a stable window
// was called overloaded in 15 of 1,000 (TestOverloadFalseAlarmsRare).
const growthZ = 2.575829

// LoadCheck is a step's evidence on whether the server kept up with the
// offered rate: the window's arrivals and completions, the in-flight count
// at the window's edges (client side, from the trace's start and end of
// every attempt) and the slope of the in-flight count with its interval.
type LoadCheck struct {
	OfferedPerS float64 `json:"offered_per_s"`
	WindowS     float64 `json:"window_s"`
	// Arrivals are the attempts sent in the window; Completions are the
	// attempts of any phase (warm-up included) that ended in it, with any
	// outcome: an attempt is in flight from its send to its end.
	Arrivals    int64 `json:"arrivals"`
	Completions int64 `json:"completions"`
	// ArrivalsExpected is λW, the arrivals the offered rate plans in the
	// window; ArrivalsShort says the window had clearly fewer, Arrivals <
	// λW − 1.96·sqrt(λW) (its Poisson schedule happened to be light). Such
	// a window tested a lighter load than λ, and its keep-up bound, which
	// stays against λ, reads that shortfall as the server's: the reasons
	// and the text say so (ArrivalsShortReason).
	ArrivalsExpected float64 `json:"arrivals_expected"`
	ArrivalsShort    bool    `json:"arrivals_short"`
	// InFlightStart and InFlightEnd are the attempts in flight at the
	// window's start and end.
	InFlightStart int64 `json:"inflight_start"`
	InFlightEnd   int64 `json:"inflight_end"`
	// CompletionPerS is Completions / WindowS, with its exact 95 % Poisson
	// (Garwood) interval.
	CompletionPerS float64 `json:"completion_per_s"`
	CompletionLow  float64 `json:"completion_ci_low"`
	CompletionHigh float64 `json:"completion_ci_high"`
	// SlopePerS is how fast the in-flight count grows at the offered rate,
	// OfferedPerS − CompletionPerS, with the interval that the completion
	// rate's interval gives it: [SlopeLow, SlopeHigh].
	SlopePerS float64 `json:"inflight_slope_per_s"`
	SlopeLow  float64 `json:"inflight_slope_ci_low"`
	SlopeHigh float64 `json:"inflight_slope_ci_high"`
	// GrowthZ is the in-flight growth over the window in standard errors:
	// (InFlightEnd − InFlightStart) / sqrt(InFlightStart + InFlightEnd).
	// ExpectedInFlight is the in-flight level a server that keeps up
	// holds at the offered rate, by Little's law: the offered rate × the
	// mean time in flight of the attempts that ended in the window (0:
	// unknown). A pipeline still filling after a short warm-up starts the
	// window below it, and its rise to that level is not growth.
	ExpectedInFlight float64 `json:"inflight_expected"`
	// GrowthZ is the in-flight growth over the window in standard errors,
	// from the higher of the start count and the expected level, B =
	// max(InFlightStart, ExpectedInFlight): (InFlightEnd − B) /
	// sqrt(B + InFlightEnd).
	GrowthZ float64 `json:"inflight_growth_z"`
	// FellBehind is the first overload signal: the completions' 95 %
	// interval lies wholly below both the offered rate and the window's
	// own arrivals (Arrivals/WindowS), so the server completed fewer than
	// what was offered and fewer than what came. A window whose arrivals
	// were light is judged against what came (BelowOfferedOnly).
	FellBehind bool `json:"completions_fell_behind"`
	// Grew is the second: the in-flight count grew beyond 2.58 standard
	// errors (GrowthZ, growthZ) while fewer completed than were offered (SlopePerS
	// > 0), so the growth is not a burst of extra arrivals the server kept
	// pace with.
	Grew bool `json:"inflight_grew"`
	// Overloaded is FellBehind or Grew: either signal fails the step.
	Overloaded bool `json:"overloaded"`
	// KeepUpBound is the most the server can be short of the offered rate,
	// λ − (Completions − InFlightStart)/T: in T seconds a server of
	// saturation μ completes at most μT attempts it started in the window
	// plus the InFlightStart it had already begun, so μ ≥ (Completions −
	// InFlightStart)/T. Resolution is the search's --resolution; KeepsUp
	// says KeepUpBound ≤ Resolution: the window shows that the server's
	// saturation is within the resolution of the offered rate or above it.
	// Only such a step can meet. The outputs say "keeps up" only when the
	// bound is ≤ 0 (the window completed at least the offered rate), and
	// "within the resolution" otherwise (WithinResolution).
	KeepUpBound float64 `json:"keep_up_bound_per_s"`
	Resolution  float64 `json:"resolution"`
	KeepsUp     bool    `json:"keeps_up"`
	// GrowingUndecided says the window decided neither way: not
	// overloaded, and not shown to keep up (KeepsUp false), so a step that
	// meets on its SLOs is extended, and undecided at its longest window.
	// DecideWindowS is about how long a window at this rate would decide
	// it (null when nothing completed).
	GrowingUndecided bool     `json:"growing_undecided"`
	DecideWindowS    *float64 `json:"window_to_decide_s"`
	Method           string   `json:"method"`
}

// OverloadTest judges whether a step's server fell behind its offered rate.
//
// The statistics. In a window of T seconds at an offered open-loop rate λ,
// a server that keeps up completes, over the window, as many attempts as
// arrive: its completions form a stationary departure process of mean λT.
// For Poisson arrivals that count varies like a Poisson count of mean λT
// (exactly so for exponential service, by Burke's theorem; a server whose
// service is more regular, as a batching engine's is, departs more evenly,
// so the Poisson lower tail is conservative). A server that cannot keep up
// completes at its own saturation μ < λ whatever arrives, and the
// difference λ − μ is the slope at which its in-flight count grows.
//
// So the rule is two signals, the first at 95 % and the second at 99 %,
// and either fails the step:
//
//  1. Completions fell behind (FellBehind): the exact (Garwood) 95 %
//     Poisson interval of the completion count, divided by T, lies wholly
//     below both λ and the window's own arrivals A/T. Against λ alone, a
//     window in which simply fewer attempts than λT arrived (Poisson
//     arrivals do that in one window of 40) would read the schedule's
//     shortfall as the server's; against A alone, a burst of extra
//     arrivals would. Equivalently, the slope of the in-flight count at the
//     offered rate, λ − completions/T, has an interval wholly above 0, and
//     the completions are short of what came too.
//  2. The in-flight count grew through the window (Grew): its growth over
//     the level a server that keeps up holds, N₁ − max(N₀, λ·W̄) (W̄ the
//     mean time in flight, Little's law), exceeds 2.58 standard errors of
//     a difference of two counts, sqrt(N₀' + N₁) (99 %: growthZ says
//     why), while fewer completed
//     than were offered (λ − completions/T > 0): a pipeline still filling
//     after a short warm-up rises to that level, and a burst of arrivals
//     the server keeps pace with raises the count while completions keep
//     up with λ; neither is growth.
//
// By conservation (N₁ = N₀ + A − C) the two read one count, the attempts
// that came and did not finish, weighed two ways: test 1 against the
// completions' sampling interval, test 2 against the in-flight level's.
// Neither is a threshold on one reading.
//
// What it can see: with Poisson arrivals no statistic of a window can tell
// a rate a fraction δ above saturation from one at it until λT reaches
// about 3.84(1+δ)/δ² attempts: about 1,600 at 5 % over, 420 at 10 %, 120 at
// 20 %. A shorter window leaves test 1 inconclusive, and then only the SLOs
// (TTFT, E2E) can fail the step; an extended step has more attempts.
func OverloadTest(offeredPerS, windowS float64, arrivals, completions, inflightStart, inflightEnd int64) (LoadCheck, error) {
	return CheckLoad(LoadWindow{OfferedPerS: offeredPerS, WindowS: windowS, Arrivals: arrivals, Completions: completions, InFlightStart: inflightStart, InFlightEnd: inflightEnd})
}

// LoadWindow is what CheckLoad reads of one step's window.
type LoadWindow struct {
	OfferedPerS, WindowS                              float64
	Arrivals, Completions, InFlightStart, InFlightEnd int64
	// ExpectedInFlight is the level a server that keeps up holds (Little's
	// law, LoadCheck.ExpectedInFlight); 0: unknown, the start count alone.
	ExpectedInFlight float64
	// Resolution is the search's --resolution; 0: no keep-up test
	// (KeepsUp and GrowingUndecided stay false).
	Resolution float64
}

// CheckLoad is OverloadTest with the expected in-flight level and the
// keep-up test (LoadCheck.KeepUpBound).
func CheckLoad(w LoadWindow) (LoadCheck, error) {
	offeredPerS, windowS := w.OfferedPerS, w.WindowS
	arrivals, completions, inflightStart, inflightEnd := w.Arrivals, w.Completions, w.InFlightStart, w.InFlightEnd
	c := LoadCheck{OfferedPerS: offeredPerS, WindowS: windowS, Arrivals: arrivals, Completions: completions,
		InFlightStart: inflightStart, InFlightEnd: inflightEnd, Method: LoadMethod, Resolution: w.Resolution}
	switch {
	case !(windowS > 0) || math.IsInf(windowS, 0):
		return c, fmt.Errorf("overload test: window %g s must be positive", windowS)
	case !(offeredPerS > 0) || math.IsInf(offeredPerS, 0):
		return c, fmt.Errorf("overload test: offered rate %g must be positive", offeredPerS)
	case arrivals < 0 || completions < 0 || inflightStart < 0 || inflightEnd < 0:
		return c, fmt.Errorf("overload test: negative count (arrivals %d, completions %d, in flight %d → %d)", arrivals, completions, inflightStart, inflightEnd)
	case !(w.ExpectedInFlight >= 0) || !(w.Resolution >= 0):
		return c, fmt.Errorf("overload test: expected in flight %g and resolution %g must not be negative", w.ExpectedInFlight, w.Resolution)
	}
	c.ArrivalsExpected = offeredPerS * windowS
	c.ArrivalsShort = float64(arrivals) < c.ArrivalsExpected-overloadZ*math.Sqrt(c.ArrivalsExpected)
	lo, hi := PoissonInterval(completions, 0.95)
	c.CompletionPerS = float64(completions) / windowS
	c.CompletionLow, c.CompletionHigh = lo/windowS, hi/windowS
	c.SlopePerS = offeredPerS - c.CompletionPerS
	c.SlopeLow, c.SlopeHigh = offeredPerS-c.CompletionHigh, offeredPerS-c.CompletionLow
	c.ExpectedInFlight = w.ExpectedInFlight
	base := max(float64(inflightStart), w.ExpectedInFlight)
	if s := base + float64(inflightEnd); s > 0 {
		c.GrowthZ = (float64(inflightEnd) - base) / math.Sqrt(s)
	}
	c.FellBehind = c.CompletionHigh < min(offeredPerS, float64(arrivals)/windowS)
	c.Grew = c.GrowthZ > growthZ && c.SlopePerS > 0
	c.Overloaded = c.FellBehind || c.Grew
	c.KeepUpBound = offeredPerS - float64(completions-inflightStart)/windowS
	if w.Resolution <= 0 {
		return c, nil
	}
	c.KeepsUp = !c.Overloaded && c.KeepUpBound <= w.Resolution
	c.GrowingUndecided = !c.Overloaded && !c.KeepsUp
	if !c.GrowingUndecided || c.CompletionPerS <= 0 {
		return c, nil
	}
	var t float64
	if c.SlopePerS > 0 && c.GrowthZ > 0 {
		// A queue that seems to grow: the arrivals λT at which a rate a
		// share δ over saturation is told from it (the doc above):
		// 3.84(1+δ)/δ², δ = λ/μ − 1.
		d := c.SlopePerS / c.CompletionPerS
		t = overloadZ * overloadZ * (1 + d) / (d * d) / offeredPerS
	} else {
		// A server that keeps up completes about what arrives, so its
		// bound is about (L + λT − arrivals)/T, L the level it holds: the
		// window T at which res·T = L + 1.96·sqrt(λT), arrivals 1.96
		// standard errors short (x = sqrt(T) solves a quadratic).
		l := max(base, float64(inflightEnd))
		r := w.Resolution
		x := (overloadZ*math.Sqrt(offeredPerS) + math.Sqrt(overloadZ*overloadZ*offeredPerS+4*r*l)) / (2 * r)
		t = x * x
	}
	c.DecideWindowS = &t
	return c, nil
}

// undecidedReason says, in one line, why a step that met at its longest
// window (longest) is undecided: its window showed neither overload nor
// the server keeping up within the resolution.
func (c LoadCheck) undecidedReason(longest time.Duration) string {
	return fmt.Sprintf("overload undecided at the longest window (--step-max-duration %s): %s", longest, c.notShownReason())
}

// notShownReason says why a window did not show the server keeping up.
func (c LoadCheck) notShownReason() string {
	f := c.Figures()
	r := fmt.Sprintf("not shown to keep up: %s in %.2f s, %d of them begun before the window, so the server may be short of the offered %s/s by up to %s/s, more than --resolution %s/s; in flight %d → %d (expected %s, %s standard errors)",
		lang.N(lang.EN, c.Completions, "completion", "completions"), c.WindowS, c.InFlightStart, f.Offered, f.KeepUpBound, f.Resolution, c.InFlightStart, c.InFlightEnd, f.ExpectedInFlight, f.GrowthZ)
	if c.DecideWindowS != nil {
		r += fmt.Sprintf("; a window of about %.1f s would decide it", *c.DecideWindowS)
	}
	return r + c.behindClause() + c.arrivalsShortClause()
}

// ArrivalsShortReason says, when the window had clearly fewer arrivals
// than offered (ArrivalsShort), that it tested a lighter load than λ while
// its keep-up bound is against λ; "" otherwise. The bound is kept against
// the offered rate on purpose: a window that had fewer arrivals did not
// test λ, so it cannot show the server keeping up with λ (conservative:
// such a step is extended or undecided rather than met on a light load).
// cardfmt.CapacityArrivalsShortIn is this sentence in zh and en.
func (c LoadCheck) ArrivalsShortReason() string {
	if !c.ArrivalsShort {
		return ""
	}
	f := c.Figures()
	return fmt.Sprintf("%s in %s s where λW ≈ %s were expected: this window tested a lighter load than λ; the bound is against λ",
		lang.N(lang.EN, c.Arrivals, "arrival", "arrivals"), f.Window, f.ArrivalsExpected)
}

// arrivalsShortClause is ArrivalsShortReason after "; ", or "".
func (c LoadCheck) arrivalsShortClause() string {
	if r := c.ArrivalsShortReason(); r != "" {
		return "; " + r
	}
	return ""
}

// keepsUpReason says why a window shows the server keeping up: "keeps up"
// only when it completed at least the offered rate (KeepUpBound ≤ 0);
// otherwise what the window shows, a saturation of at least
// SaturationShown, within the resolution of the offered rate
// (WithinResolution), not that the server keeps up with it.
func (c LoadCheck) keepsUpReason() string {
	f := c.Figures()
	if c.KeepUpBound <= 0 { // a negative "short by at most" reads oddly
		return fmt.Sprintf("keeps up: completed at least the offered %s/s in the window (a step meets within --resolution %s/s)", f.Offered, f.Resolution) + c.arrivalsShortClause()
	}
	if c.NoSaturationShown() {
		return fmt.Sprintf("within the resolution: the window's %s were all begun before it (%d in flight at its start), so it shows no saturation of its own; the server may be short of the offered %s/s by up to %s/s ≤ --resolution %s/s",
			lang.N(lang.EN, c.Completions, "completion", "completions"), c.InFlightStart, f.Offered, f.KeepUpBound, f.Resolution) + c.behindClause() + c.arrivalsShortClause()
	}
	return fmt.Sprintf("within the resolution: the window shows the server completes at least %s/s (saturation ≥ %s/s), so it may be short of the offered %s/s by up to %s/s ≤ --resolution %s/s",
		f.SaturationShown, f.SaturationShown, f.Offered, f.KeepUpBound, f.Resolution) + c.behindClause() + c.arrivalsShortClause()
}

// NoSaturationShown says the window's completions were no more than the
// attempts already in flight at its start, so it shows no saturation of
// its own (SaturationShown 0): "completes at least 0.00/s" beside "4
// completed" reads as a contradiction (walk 35i).
func (c LoadCheck) NoSaturationShown() bool { return c.Completions <= c.InFlightStart }

// WithinResolution says the window did not show the server keeping up
// with the offered rate but within the resolution of it: KeepsUp with a
// positive bound. Such a step can meet, and every output calls it "within
// the resolution", never "keeps up": its saturation may be below the
// offered rate by up to the bound (a walk's 15 req/s step on a server
// saturating at 14.3 completed 12/s).
func (c LoadCheck) WithinResolution() bool { return c.KeepsUp && c.KeepUpBound > 0 }

// SaturationShown is the saturation the window shows the server has at
// least: (Completions − InFlightStart)/WindowS (OfferedPerS −
// KeepUpBound), not below 0. Of the window's completions at most
// InFlightStart were begun before it, so the server began and finished at
// least that many per second in it.
func (c LoadCheck) SaturationShown() float64 {
	if !(c.WindowS > 0) {
		return 0
	}
	return max(0, float64(c.Completions-c.InFlightStart)/c.WindowS)
}

// BelowOfferedOnly says the completions' interval lies wholly below the
// offered rate (SlopeLow > 0) but not below the window's own arrivals, and
// the step is not overloaded: fewer arrived than were offered, and the
// server completed what came, so the shortfall against λ is the
// schedule's, not the server's (walk 35h, item 4).
func (c LoadCheck) BelowOfferedOnly() bool { return !c.Overloaded && c.SlopeLow > 0 }

// behindClause is, after "; ", what BelowOfferedOnly says, or "".
// cardfmt.CapacityBehindIn is the sentence in zh and en.
func (c LoadCheck) behindClause() string {
	if !c.BelowOfferedOnly() {
		return ""
	}
	f := c.Figures()
	return fmt.Sprintf("; completions came in below the offered rate (offered − completed 95%% [%s, %s], wholly above 0), but not below the window's arrivals: the server completed what came",
		f.SlopeLow, f.SlopeHigh)
}

// Reason says the overload in one line (English, for logs and JSON), with
// the numbers every output prints (Figures): the signal or signals that
// failed the step (FellBehind, Grew) first. The overload rule is those
// signals, not the keep-up bound: a window can fail them while its
// keep-up bound is within the resolution (the shortfall is sure but
// small, or the in-flight growth is the client's own delay), and then the
// reason says so rather than calling the bound overload.
func (c LoadCheck) Reason() string {
	f := c.Figures()
	against := fmt.Sprintf("against the offered %s/s", f.Offered)
	if c.FellBehind {
		against = fmt.Sprintf("below the offered %s/s and the window's %s (completions fell behind)", f.Offered, lang.N(lang.EN, c.Arrivals, "arrival", "arrivals"))
	}
	grew := ""
	if c.Grew {
		grew = ": the in-flight count grew"
	}
	r := fmt.Sprintf("overload: %s in %.2f s = %s/s, 95%% [%s, %s], %s; offered − completed %s/s, 95%% [%s, %s]; in flight %d → %d (expected %s, %s standard errors)%s",
		lang.N(lang.EN, c.Completions, "completion", "completions"), c.WindowS, f.CompletionPerS, f.CompletionLow, f.CompletionHigh, against,
		f.Slope, f.SlopeLow, f.SlopeHigh, c.InFlightStart, c.InFlightEnd, f.ExpectedInFlight, f.GrowthZ, grew)
	if c.BoundWithinResolution() {
		r += fmt.Sprintf("; the keep-up bound, short by at most %s/s, is within --resolution %s/s: the overload test failed, not the keep-up test", f.KeepUpBound, f.Resolution)
	}
	return r
}

// BoundWithinResolution says the window failed the overload test while its
// keep-up bound is within the resolution: the rule that failed it is the
// overload test (completions behind, or the in-flight count growing), not
// the keep-up bound.
func (c LoadCheck) BoundWithinResolution() bool {
	return c.Overloaded && c.Resolution > 0 && c.KeepUpBound <= c.Resolution
}

// PoissonInterval is the exact (Garwood) two-sided interval, at the given
// confidence, of the mean of a Poisson count k: the means at which k or
// more, and k or fewer, have probability (1 − confidence)/2 each.
func PoissonInterval(k int64, confidence float64) (lo, hi float64) {
	a := (1 - confidence) / 2
	top := float64(k) + 20*math.Sqrt(float64(k)+1) + 20
	// P(X ≤ k | m) falls as m grows: hi is where it reaches a.
	hi = bisect(0, top, func(m float64) bool { return poissonCDF(k, m) > a })
	if k == 0 {
		return 0, hi
	}
	// P(X ≥ k | m) = 1 − P(X ≤ k−1 | m) grows with m: lo is where it reaches a.
	lo = bisect(0, top, func(m float64) bool { return 1-poissonCDF(k-1, m) < a })
	return lo, hi
}

// bisect finds where below turns false on [lo, hi] (below true at lo).
func bisect(lo, hi float64, below func(float64) bool) float64 {
	for range 200 {
		mid := (lo + hi) / 2
		if below(mid) {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-7*max(1, hi) {
			break
		}
	}
	return (lo + hi) / 2
}

// poissonCDF is P(X ≤ k) for X ~ Poisson(m), summed downwards from k in
// log space (log pmf(i−1) = log pmf(i) + log(i/m)), so that large counts
// neither underflow nor overflow.
func poissonCDF(k int64, m float64) float64 {
	if k < 0 {
		return 0
	}
	if m <= 0 {
		return 1
	}
	lg, _ := math.Lgamma(float64(k) + 1)
	l := float64(k)*math.Log(m) - m - lg
	top := l        // the largest term seen, for scaling
	var sum float64 // Σ exp(term − top)
	logM := math.Log(m)
	for i := k; i >= 0; i-- {
		if l > top {
			sum *= math.Exp(top - l)
			top = l
		}
		sum += math.Exp(l - top)
		if float64(i) < m && l-top < -40 {
			break
		}
		if i > 0 {
			l += math.Log(float64(i)) - logM
		}
	}
	return min(1, sum*math.Exp(top))
}

// loadCounts counts, from a step's trace, the attempts sent in the window
// [startMS, endMS), those of any phase that ended in it, and those in
// flight at its edges. An attempt is in flight after its StartMS up to its
// EndMS; one without an end (still in flight when the run stopped) stays in
// flight. meanInFlightS is the mean time in flight (send to end) of those
// that ended in the window. With these edges atEnd = atStart + arrivals − completions exactly.
func loadCounts(t *trace.Trace, startMS, endMS float64) (arrivals, completions, atStart, atEnd int64, meanInFlightS float64) {
	var inFlightMS float64
	inFlight := func(a *trace.Attempt, ms float64) bool {
		return a.StartMS < ms && (!a.HasEnd || a.EndMS >= ms)
	}
	for i := range t.Attempts {
		a := &t.Attempts[i]
		if a.StartMS >= startMS && a.StartMS < endMS {
			arrivals++
		}
		if a.HasEnd && a.EndMS >= startMS && a.EndMS < endMS {
			completions++
			inFlightMS += a.EndMS - a.StartMS
		}
		if inFlight(a, startMS) {
			atStart++
		}
		if inFlight(a, endMS) {
			atEnd++
		}
	}
	if completions > 0 {
		meanInFlightS = inFlightMS / float64(completions) / 1000
	}
	return
}
