package cardfmt

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// The words of a capacity search (coursekit capacity, the lab's notebook
// 10): its joint-qualification rule and the names of its verdicts.

// CapacityRule is the joint-qualification rule of a capacity search in
// Chinese: complete success ∧ quality pass (when judged) ∧ TTFT ≤ the
// SLO, and the latency SLOs beyond TTFT when there are any.
func CapacityRule(sloTTFTMS float64, lat metrics.LatencySLO, judged bool) string {
	return CapacityRuleIn(lang.ZH, sloTTFTMS, lat, judged)
}

// CapacityRuleIn is CapacityRule in lg. judged says a dataset's answers
// were judged: only then does the rule hold "∧ quality pass"; without
// one a search qualifies on its latency SLOs alone, and says so.
func CapacityRuleIn(lg lang.Lang, sloTTFTMS float64, lat metrics.LatencySLO, judged bool) string {
	l := LatencyName(lat)
	if !judged && l != "" {
		return lg.F(lang.Msg{"完整成功 ∧ %s ∧ %s；逐次判定；未评质量：只按时延判定", "complete success ∧ %s ∧ %s; judged per attempt; quality not judged: latency only"}, sloName(sloTTFTMS), l)
	}
	// The TTFT SLO as the card names it ("TTFT ≤ 1 s"), not in ms.
	rule := lg.F(lang.Msg{"完整成功 ∧ 质量通过 ∧ %s", "complete success ∧ quality pass ∧ %s"}, sloName(sloTTFTMS))
	if l != "" {
		rule += lg.F(lang.Msg{" ∧ %s；逐次判定", " ∧ %s; judged per attempt"}, l)
	}
	return rule
}

// capacityVerdicts name the verdicts of a capacity step (the constants of
// coursekit/capacity).
var capacityVerdicts = map[string]lang.Msg{
	capacity.Meets:       {"达标", "meets"},
	capacity.Fails:       {"不达标", "fails"},
	capacity.Undecided:   {"尚无定论", "undecided"},
	capacity.Interrupted: {"被中断", "interrupted"},
}

// CapacityVerdict names a step's verdict in Chinese: 达标, 不达标, 尚无定论
// or 被中断. An unknown code is returned as it is.
func CapacityVerdict(v string) string { return CapacityVerdictIn(lang.ZH, v) }

// CapacityVerdictIn is CapacityVerdict in lg.
func CapacityVerdictIn(lg lang.Lang, v string) string {
	if m, ok := capacityVerdicts[v]; ok {
		return m.In(lg)
	}
	return v
}

// CapacityUndecided is CapacityUndecidedIn in Chinese.
func CapacityUndecided(most int64, need int, target float64) string {
	return CapacityUndecidedIn(lang.ZH, most, need, target)
}

// CapacityUndecidedIn is the answer of a search in which no step decided
// either way (capacity.Result.Undecided): undecided, not "no rate meets",
// and why. most is the most attempts a step had, need how many a step
// needs to meet the target at best (capacity.AttemptsToMeet).
func CapacityUndecidedIn(lg lang.Lang, most int64, need int, target float64) string {
	why := lg.S(lang.Msg{"每一步的 95% 区间都跨过目标", "every step's 95% interval straddles the target"})
	if need > 0 && most < int64(need) {
		why = lg.F(lang.Msg{"样本太少：每一步至多 %d 次尝试，而全部合格时也要至少 %d 次尝试，Wilson 下界才能 ≥ %s%%", "too few attempts: at most %d in a step, and even with every attempt qualified a step needs at least %d for its Wilson lower bound to reach %s%%"},
			most, need, Num(target*100))
	}
	return lg.F(lang.Msg{"结论：尚无定论：没有一步能判定达标或不达标（%s），所以这不是“没有速率达标”；请让每一步有更多尝试：加长 --step-duration 或 --step-max-duration，或从更高的 --start-rate 开始。",
		"Answer: undecided: no step could decide either way (%s), so this is not \"no rate meets\"; give each step more attempts: a longer --step-duration or --step-max-duration, or a higher --start-rate."}, why)
}

// CapacityNoRateIn is the answer of a search in which no rate met, in lg.
// short is capacity.Result.ShortStep: with one, the answer says that the
// step's length bounds it (too few attempts to meet the target at that
// rate), not the server, and how to lengthen the steps; need is
// capacity.AttemptsToMeet.
func CapacityNoRateIn(lg lang.Lang, short *capacity.Step, need int) string {
	if short == nil {
		return lg.S(lang.Msg{"结论：搜索过的速率没有一个达标。", "Answer: no rate searched meets the target."})
	}
	return lg.F(lang.Msg{"结论：搜索过的速率没有一个达标，但限制它的是每一步的长度，不是服务器：%s 次/s 这一步尚无定论，样本太少（%s 次尝试，全部合格也要至少 %d 次才能达标）；请加长 --step-duration 或 --step-max-duration 再搜索。",
		"Answer: no rate searched meets the target, but the step length bounds this, not the server: the %s req/s step is undecided with too few attempts (%s, and meeting the target needs at least %d even if all qualify); search again with a longer --step-duration or --step-max-duration."},
		numfmt.Num(short.Rate), lang.N(lg, short.Attempts, "attempt", "attempts"), need)
}

// CapacityWithinIn is what follows a search's answer when it is the
// highest rate that met, in every view (the CLI's text, notebook 10, the
// chart's subtitle): m is capacity.Result.AnswerMargin, how much less than
// the answer the server may sustain as the answer's own step measured it
// (its keep-up bound, the figure its keep-up line prints), or the
// resolution when that step has no load check. A bound of 0 says its
// window completed at least the offered rate: "may sustain up to 0 less"
// would read as a caveat with nothing in it, and saying nothing would hide
// that the window showed the server keeping up. "" for no answer.
func CapacityWithinIn(lg lang.Lang, m capacity.AnswerMargin) string {
	res := numfmt.Num(m.Resolution)
	switch {
	case m.Measured() && m.PerS > 0:
		return lg.F(lang.Msg{"，该步窗口显示服务器能持续承受的速率可能比它低至多 %s 次/s（该步测出的差额；一步在 --resolution %s 次/s 以内即可达标）",
			", and its window shows the server may sustain up to %s req/s less (its keep-up bound; a step meets within --resolution %s req/s)"}, m.Load.Figures().KeepUpBound, res)
	case m.Measured():
		return lg.F(lang.Msg{"，该步窗口完成的速率不低于提供的速率（一步在 --resolution %s 次/s 以内即可达标）",
			", and its window completed at least the offered rate (a step meets within --resolution %s req/s)"}, res)
	case m.PerS > 0:
		return lg.F(lang.Msg{"，误差在 --resolution %s 次/s 以内：服务器能持续承受的速率可能比它低至多 %s 次/s", ", within --resolution %s req/s: the server may sustain up to %s req/s less"}, numfmt.Num(m.PerS), numfmt.Num(m.PerS))
	}
	return ""
}

// CapacityAtLimitWindowIn is the sentence after an answer "capacity ≥ R"
// (every step met up to --max-rate, capacity.Result.AtLeast), in lg: the
// ≥ is what the steps met, and this says what the last step's window
// could show of R, so that a lower bound and "maybe less" do not meet in
// one clause. m is capacity.Result.AnswerMargin; "" for no answer.
func CapacityAtLimitWindowIn(lg lang.Lang, m capacity.AnswerMargin) string {
	rate, res := numfmt.Num(m.Rate), numfmt.Num(m.Resolution)
	switch {
	case m.Measured() && m.PerS > 0:
		f := m.Load.Figures()
		return lg.F(lang.Msg{"%s 次/s 这一步的窗口显示服务器每秒至少完成 %s 次（最多比提供的速率少 %s 次/s；一步在 --resolution %s 次/s 以内即可达标）。",
			"The %s req/s step's window shows the server completes at least %s req/s (up to %s req/s short of the offered rate: its keep-up bound; a step meets within --resolution %s req/s)."}, rate, f.SaturationShown, f.KeepUpBound, res)
	case m.Measured():
		return lg.F(lang.Msg{"%s 次/s 这一步的窗口完成的速率不低于提供的速率。", "The %s req/s step's window completed at least the offered rate."}, rate)
	case m.PerS > 0:
		return lg.F(lang.Msg{"一步达标时，窗口显示服务器比提供的速率少不超过 --resolution %s 次/s。", "A step meets when its window shows the server short of the offered rate by at most --resolution %s req/s."}, numfmt.Num(m.PerS))
	}
	return ""
}

// CapacityGrowthIn is the caveat on an answer whose own step shows a queue
// growing that its overload test could not decide on
// (capacity.LoadCheck.GrowingUndecided).
func CapacityGrowthIn(lg lang.Lang, l capacity.LoadCheck) string {
	need := ""
	if l.DecideWindowS != nil {
		need = lg.F(lang.Msg{"；约 %s s 的窗口（--step-duration）才能判定", "; a window of about %s s (--step-duration) would decide it"}, Num(float64(int(*l.DecideWindowS*10+0.5))/10))
	}
	return lg.F(lang.Msg{"注意：答案这一步的队列看起来在增长：在途 %d → %d，完成 %s 次/s 低于提供的 %s 次/s，但 %s s 的窗口太短，过载检验判定不了%s。这个速率可能高于服务器能持续承受的速率。",
		"Caveat: the answer's own step looks like a growing queue: in flight %d → %d, completions %s/s below the offered %s/s, but its %s s window is too short for the overload test to decide%s. This rate may be above what the server sustains."},
		l.InFlightStart, l.InFlightEnd, Num(float64(int(l.CompletionPerS*10+0.5))/10), numfmt.Num(l.OfferedPerS), Num(l.WindowS), need)
}

// CapacityArrivalsShortIn says, under a step's keep-up line, that its
// window had clearly fewer arrivals than the offered rate plans
// (capacity.LoadCheck.ArrivalsShort): it tested a lighter load than λ,
// while the keep-up bound stays against λ; "" otherwise. The English is
// capacity.LoadCheck.ArrivalsShortReason, the step's reason.
func CapacityArrivalsShortIn(lg lang.Lang, l capacity.LoadCheck) string {
	if !l.ArrivalsShort {
		return ""
	}
	f := l.Figures()
	return lg.F(lang.Msg{"到达 %s 次（窗口 %s s），而按提供的速率应有 λW ≈ %s 次：这个窗口测的负载比 λ 轻；上一行的界仍按 λ 计算",
		"%s in %s s where λW ≈ %s were expected: this window tested a lighter load than λ; the bound is against λ"},
		lang.N(lg, l.Arrivals, "arrival", "arrivals"), f.Window, f.ArrivalsExpected)
}

// CapacityArrivalsShortNoteIn is CapacityArrivalsShortIn in a table cell:
// "（到达偏少：10 次，λW ≈ 18.0）"; "" when the window's arrivals were not short.
func CapacityArrivalsShortNoteIn(lg lang.Lang, l capacity.LoadCheck) string {
	if !l.ArrivalsShort {
		return ""
	}
	return lg.F(lang.Msg{"（到达偏少：%d 次，λW ≈ %s）", " (arrivals short: %d, λW ≈ %s)"}, l.Arrivals, l.Figures().ArrivalsExpected)
}

// CapacityLatenessIn says how late the client was during a step, as the
// card's notes do: its wake-up lag over the bound, and a send lag P99
// over metrics.SendLagBoundMS; "" when it was on time.
func CapacityLatenessIn(lg lang.Lang, s capacity.Step) string {
	var parts []string
	if c := s.ClientLag; c != nil && c.OverBound > 0 {
		parts = append(parts, lg.F(lang.Msg{"客户端唤醒延迟超过 %s ms 的尝试 %s 次（最大 %s ms），它们的 TTFT 可能被多算", "client wake-up lag over %s ms in %s (at most %s ms): TTFT may read long there"}, Num(c.BoundMS), lang.N(lg, c.OverBound, "attempt", "attempts"), num(c.MaxMS)))
	}
	if v := s.SendLagP99MS; v != nil && *v > metrics.SendLagBoundMS {
		parts = append(parts, lg.F(lang.Msg{"发送延迟 P99 %s ms，超过 %s ms：到达比计划晚", "send lag P99 %s ms, over %s ms: arrivals left later than planned"}, num(*v), Num(metrics.SendLagBoundMS)))
	}
	if len(parts) == 0 {
		return ""
	}
	return lg.S(lang.Msg{"客户端迟到：", "client late: "}) + strings.Join(parts, clauseSep.In(lg))
}

// CapacityLateStepsIn is the note beside a search's answer that names the
// steps in which the client itself was late (capacity.Step.ClientLate), in
// search order: a loaded client machine moves verdicts, and the answer is
// read first (walk 35j). "" when it was never late.
func CapacityLateStepsIn(lg lang.Lang, r *capacity.Result) string {
	var late []string
	for _, s := range r.Steps {
		if s.ClientLate() {
			late = append(late, Num(s.Rate))
		}
	}
	if len(late) == 0 {
		return ""
	}
	return lg.F(lang.Msg{"注意：%s 步里客户端自己迟到了（%s 次/s，见各步下的说明）：这些步的 TTFT 和完成时刻含客户端的延迟，判定可能反映的是这台机器的负载，而不只是服务器；在空闲的机器上再搜索一次可以分清。",
		"Note: the client itself was late in %s (%s req/s; see each step's line): their TTFT and completion times include the client's delay, so their verdicts may reflect this machine's load, not only the server; a search on an idle machine tells them apart."},
		lang.N(lg, len(late), "step", "steps"), strings.Join(late, lg.S(lang.Msg{"、", ", "})))
}

// CapacityCutOffIn is what follows a step's "qualified / attempts" in every
// view when the step was stopped early with attempts in flight: those the
// stop cut off, neither qualified nor failed and left out of the attempts
// (capacity.Step.InFlight); "" otherwise.
func CapacityCutOffIn(lg lang.Lang, stoppedEarly bool, inFlight int64) string {
	if !stoppedEarly || inFlight <= 0 {
		return ""
	}
	return lg.F(lang.Msg{"（另有 %d 次在途，提前停止时被截断，不计入）", " (and %d in flight, cut off by the early stop, not counted)"}, inFlight)
}

// CapacityBeforeWindowIn is what every view prints of a step in place of
// its window, extensions and load figures when the search was interrupted
// before its window began (capacity.Step.BeforeWindow): it measured
// nothing.
func CapacityBeforeWindowIn(lg lang.Lang) string {
	return lg.S(lang.Msg{"窗口开始前就被中断，什么也没有测到", "interrupted before its window began: nothing measured"})
}

// CapacityLoadWindowIn names the window a step's load figures
// (capacity.LoadCheck) come from: the overload test's own, which in a step
// stopped early is the span that stopped it, not the step's window.
func CapacityLoadWindowIn(lg lang.Lang, l capacity.LoadCheck) string {
	return lg.F(lang.Msg{"过载检验的 %s s 窗口", "the overload test's %s s window"}, numfmt.Fixed(l.WindowS, 1))
}

// CapacityExtendedIn says how many times a step's window was extended, in
// lg: "未延长", "延长一次", "延长 2 次"; "not extended", "extended once", "extended twice",
// "extended 3 times".
func CapacityExtendedIn(lg lang.Lang, n int) string {
	if lg != lang.EN {
		switch n {
		case 0:
			return "未延长"
		case 1:
			return "延长一次"
		}
		return fmt.Sprintf("延长 %d 次", n)
	}
	switch n {
	case 0:
		return "not extended"
	case 1:
		return "extended once"
	case 2:
		return "extended twice"
	}
	return fmt.Sprintf("extended %d times", n)
}

// CapacityKeepUpWordIn says, in lg, what a step's window showed of the
// server keeping up, as the last word of its keep-up line: overload,
// "keeps up" only when it completed at least the offered rate, "within
// the resolution" when it may be short of it by up to the resolution
// (capacity.LoadCheck.WithinResolution), or that the window cannot tell.
func CapacityKeepUpWordIn(lg lang.Lang, l capacity.LoadCheck) string {
	switch {
	case l.Overloaded:
		return lg.S(lang.Msg{"过载", "overload"})
	case l.WithinResolution():
		return lg.S(lang.Msg{"在分辨率以内", "within the resolution"})
	case l.KeepsUp:
		return lg.S(lang.Msg{"跟得上", "keeps up"})
	}
	return lg.S(lang.Msg{"窗口判定不了它跟不跟得上", "the window cannot tell whether it keeps up"})
}

// CapacitySignalsIn names, in lg, the overload signals that failed a step
// (capacity.LoadCheck.FellBehind, Grew), joined; "" when it is not
// overloaded.
func CapacitySignalsIn(lg lang.Lang, l capacity.LoadCheck) string {
	var parts []string
	if l.FellBehind {
		parts = append(parts, lg.S(lang.Msg{"完成速率的 95% 区间整个低于提供的速率和窗口里实际到达的速率（完成落后了）", "the completion rate's 95% interval lies wholly below both the offered rate and the window's arrivals (completions fell behind)"}))
	}
	if l.Grew {
		parts = append(parts, lg.F(lang.Msg{"在途数从 %d 涨到 %d，超出跟得上的服务器该有的水平 %s 个标准误（> 2.58）", "the in-flight count grew from %d to %d, %s standard errors over the level a server keeping up holds (> 2.58)"},
			l.InFlightStart, l.InFlightEnd, l.Figures().GrowthZ))
	}
	return strings.Join(parts, lg.S(lang.Msg{"，并且", ", and "}))
}

// CapacityBehindIn says, in a step's keep-up line, that its completions
// came in below the offered rate but not below the window's arrivals, so
// the step is not overloaded: fewer came than were offered and the server
// completed what came (capacity.LoadCheck.BelowOfferedOnly); "" otherwise.
// It follows the bound, before the line's verdict word.
func CapacityBehindIn(lg lang.Lang, l capacity.LoadCheck) string {
	if !l.BelowOfferedOnly() {
		return ""
	}
	f := l.Figures()
	return lg.F(lang.Msg{"；完成的速率低于提供的速率（提供 − 完成的区间 [%s, %s] 整个高于 0），但不低于窗口里实际到达的：服务器把到达的都完成了",
		"; completions came in below the offered rate (offered − completed 95%% [%s, %s], wholly above 0), but not below the window's arrivals: the server completed what came"},
		f.SlopeLow, f.SlopeHigh)
}

// CapacityShortStartIn is the line a search prints up front when its first
// window cannot hold the attempts meeting the target needs (need,
// capacity.AttemptsToMeet), startRate × stepDurationS < need: its first
// steps are extended up to --step-max-duration to gather them, about
// need / startRate seconds of window at --start-rate, and a higher
// --start-rate shortens the search. When even --step-max-duration cannot
// hold them at --start-rate, it says that the first step cannot meet. ""
// when the first window holds them (or need is 0: a target no step meets).
func CapacityShortStartIn(lg lang.Lang, startRate, stepDurationS, stepMaxDurationS float64, need int) string {
	if need <= 0 || !(startRate > 0) || startRate*stepDurationS >= float64(need) {
		return ""
	}
	seconds := Num(math.Ceil(float64(need)/startRate*10) / 10)
	if startRate*stepMaxDurationS < float64(need) {
		return lg.F(lang.Msg{"--start-rate %s 次/s 的第一步即使延长到 --step-max-duration %s s，也只有约 %s 次尝试，不到达标所需的 %d 次（约要 %s s 的窗口）：它不可能达标；请提高 --start-rate 或加长 --step-max-duration",
			"the first step at --start-rate %s req/s, even extended to --step-max-duration %s s, holds about %s, fewer than the %d meeting the target needs (a window of about %s s), so it cannot meet; give a higher --start-rate or a longer --step-max-duration"},
			numfmt.Num(startRate), numfmt.Num(stepMaxDurationS), lang.N(lg, int64(math.Round(startRate*stepMaxDurationS)), "attempt", "attempts"), need, seconds)
	}
	return lg.F(lang.Msg{"第一个窗口（--step-duration %s s × --start-rate %s 次/s）约 %s 次尝试：最初几步的窗口会延长，至多到 --step-max-duration %s s，以攒够达标所需的 %s 次尝试，在 --start-rate %s 次/s 下约要 %s s 的窗口；更高的 --start-rate 能缩短搜索",
		"the first window (--step-duration %s s × --start-rate %s req/s) holds about %s: the first steps will be extended up to --step-max-duration %s s to gather the %s meeting the target needs: at --start-rate %s req/s, a window of about %s s; a higher --start-rate shortens the search"},
		numfmt.Num(stepDurationS), numfmt.Num(startRate), lang.N(lg, int64(math.Round(startRate*stepDurationS)), "attempt", "attempts"), numfmt.Num(stepMaxDurationS), lang.N(lg, need, "attempt", "attempts"), numfmt.Num(startRate), seconds)
}

// CapacityWarmupBacklogIn says, under a step, that its warm-up drew clearly
// more arrivals than planned and they queued into the window
// (capacity.Step.WarmupBacklog): the window's first attempts waited behind
// them. "" otherwise. The verdict stands; the line says what it measured.
func CapacityWarmupBacklogIn(lg lang.Lang, s capacity.Step) string {
	if !s.WarmupBacklog || s.Load == nil {
		return ""
	}
	return lg.F(lang.Msg{"预热积压：预热里到达 %s 次，按计划约 %s 次，窗口开始时仍有 %d 次在途（跟得上的服务器约 %s 次）：预热的到达排进了窗口，窗口最初的尝试要在它们后面等；换一个 --seed 会抽到另一个到达序列",
		"warm-up backlog: the warm-up drew %s where about %s were planned, and the window started with %d in flight (a server keeping up holds about %s): the warm-up's arrivals queued into the window, so its first attempts waited behind them; another --seed draws another schedule"},
		lang.N(lg, s.WarmupArrivals, "arrival", "arrivals"), numfmt.Fixed(s.WarmupArrivalsPlanned, 1), s.Load.InFlightStart, s.Load.Figures().ExpectedInFlight)
}

// CapacityStoppedBeforeIn is the sentence that follows a search's answer
// when its bisection stopped before a rate too low to meet
// (capacity.Result.StoppedBefore), in every view (the CLI's text, the
// chart's subtitle): below need ÷ --step-max-duration even the longest
// window holds fewer attempts than meeting the target needs (need,
// capacity.AttemptsToMeet).
func CapacityStoppedBeforeIn(lg lang.Lang, stoppedBefore float64, need int, stepMaxDurationS float64) string {
	lowest := 0.0
	if need > 0 && stepMaxDurationS > 0 {
		lowest = float64(need) / stepMaxDurationS
	}
	return lg.F(lang.Msg{"搜索在 %s 次/s 之前停下：低于 %s 次/s（%d ÷ --step-max-duration %s s）的速率，最长窗口里的尝试也不到达标所需的 %d 次，只能无定论，所以没有测；要往下搜，请加长 --step-max-duration 或降低 --target。", "The search stopped before %s req/s: below %s req/s (%d ÷ --step-max-duration %s s) even the longest window holds fewer attempts than the %d meeting the target needs, so a step could not meet and was not run; to search lower, give a longer --step-max-duration or a lower --target."},
		capacity.Rate(stoppedBefore), capacity.Rate(lowest), need, numfmt.Num(stepMaxDurationS), need)
}
