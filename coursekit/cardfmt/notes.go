package cardfmt

import (
	"math"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

var (
	notePlanned     = lang.Msg{"计划测量 %s s（计划窗口 [%s, %s) ms）", "planned to measure %s s (planned window [%s, %s) ms)"}
	noteNotFinished = lang.Msg{"注意：trace 的头部仍写着“运行未结束”：写它的进程没有正常收尾（可能被强制结束），窗口仍是计划窗口，最后还在进行的尝试没有记下来，这份指标口径卡不完整。%s。", "Note: the trace's header still says \"run not finished\": the process writing it did not end cleanly (it may have been killed), the window is still the planned one, the attempts still running at the end were not recorded, and this metrics card is incomplete. It %s."}
	noteWarmup      = lang.Msg{"注意：这次运行在预热阶段就被中断了（第 %s s），测量窗口还没开始，窗口里没有尝试；%s。", "Note: this run was interrupted during warm-up (at %s s), before the measurement window began; the window has no attempts. It %s."}
	noteCutShort    = lang.Msg{"注意：这次运行被提前中断了（第 %s s），%s。窗口只算到中断时刻，所有比值和 goodput 都按 %s s 计；中断时还没结束的 %s 次尝试记为在途，不算失败。", "Note: this run was interrupted early (at %s s); it %s. The window ends at the interruption, so every ratio and goodput uses %s s; the %s."}
	noteOverload    = lang.Msg{"注意：容量搜索在第 %s s 提前结束了这一步，因为服务器跟不上提供的速率（过载：完成数的区间整体低于提供速率，在途请求在增长）；%s。窗口只算到这一刻，所有比值和 goodput 都按 %s s 计；当时还没结束的 %s 次尝试记为在途，不算失败。", "Note: the capacity search stopped this step early at %s s because the server fell behind the offered rate (overload: the completions' interval wholly below the offered rate, the in-flight count growing); it %s. The window ends there, so every ratio and goodput uses %s s; the %s."}
	// noteCapacityBasis names the count a capacity search judged its step
	// by (metrics.CapacityStop) beside the card's own counts.
	noteCapacityBasis = lang.Msg{"注意：容量搜索的口径与这张卡不同：它在过载时提前结束了这一步，把当时还在途的 %[1]s 次尝试排除在计数之外：它算的是 %[2]s / %[3]s 次尝试（%[4]s）；这张卡的分母是窗口内的全部 %[5]s 次尝试，在途的也算在内。",
		"Note: capacity's basis differs from this card's: capacity stopped this step early on overload and left the %[1]s out of its count: it counted %[2]s / %[3]s (%[4]s); this card's denominators hold all %[5]s, those in flight included."}
	capacityQualified = lang.Msg{"%d 次合格", "%d qualified"}
	capacityUnknown   = lang.Msg{"合格数未知", "qualified unknown"}
	noteAfterWindow   = lang.Msg{"注意：运行在窗口结束之后、等最后几个回答时被中断（第 %s s）：窗口是完整的，中断时还没结束的 %s 次尝试记为在途，不算失败。", "Note: the run was interrupted after the window ended, while waiting for the last answers (at %s s): the window is complete, and the %s."}
	noteNumReqDone    = lang.Msg{"结束方式：发满 --num-requests %s 个请求（按计划发送时刻计在窗口内，不含预热和重试）后不再发送，窗口止于最后一次尝试结束的时刻（第 %s s），所有比值和 goodput 都按 %s s 计；%s。", "How it ended: after --num-requests %s (counted in the window by planned send time, without warm-up and retries) nothing more was sent; the window ends when the last attempt ended (at %s s), so every ratio and goodput uses %s s. It %s."}
	noteNumReqShort   = lang.Msg{"结束方式：计划窗口先到，没有发满 --num-requests %s 个请求；窗口是完整的计划窗口。", "How it ended: the planned window ran out before --num-requests %s sent; the window is the full planned window."}
	noteClientLag     = lang.Msg{"注意：测量客户端自己迟到了：%s在 %s 次尝试期间超过 %s ms（最大 %s ms，%s 次记录了它）。%s", "Note: the measuring client itself was late: %[1]s was over %[3]s ms during %[2]s (at most %[4]s ms; %[5]s it). %[6]s"}
	// noteClientLagRuns is noteClientLag over several runs: a comparison
	// gives one note, with the ranges, not one per run.
	noteClientLagRuns = lang.Msg{"注意：%s 次运行（%s）的测量客户端自己迟到了：%s在每次运行 %s 次尝试期间超过 %s ms（最大 %s ms）。%s", "Note: the measuring client itself was late in %[1]s (%[2]s): %[3]s was over %[5]s ms during %[4]s per run (at most %[6]s ms). %[7]s"}
	clientLagWhat     = lang.Msg{"它的唤醒延迟（一个每 %s ms 触发一次的探测协程比预定时刻晚多少才运行；那时客户端打下的任何时间戳都可能晚这么多）", "its wake-up lag (how long after its due time a probe on a %s ms ticker ran; any stamp the client took then may be as late)"}
	clientLagWhy      = lang.Msg{"这些尝试的时间戳可能晚了这么多，TTFT 和间隔可能被多算；客户端机器负载过高时会这样，每次尝试的延迟见 meta.client_lag_ms。它不是发送延迟（计划发送 → 实际发送）。", "Their stamps may be that late, and their TTFT and gaps too long by as much; a loaded client machine does this, and each attempt's meta.client_lag_ms says how late. It is not the send lag (scheduled → sent)."}
	noteUnsent        = lang.Msg{"注意：计划的 %d 次到达中有 %d 次没有发出：窗口结束时它们还在等 --max-concurrency 的空位。它们不在任何尝试里，所以失败率、吞吐和 goodput 都不含它们；服务器承受的负载比计划的低（发出 %d 次）。", "Note: %[2]d of the %[1]d planned arrivals were never sent: they were still waiting for a --max-concurrency slot when the window ended. They are in no attempt, so the failure rate, throughput and goodput leave them out; the server took less load than planned (%[3]d sent)."}
	noteSendLag       = lang.Msg{"注意：发送比计划晚：发送延迟 P99 %s ms（最大 %s ms），超过 %s ms，服务器收到的不是计划的到达过程（到达被推迟、挤在一起）；原因是等待 --max-concurrency 的空位（设了它时）或客户端机器过载。TTFT 从实际发送算起，不含这段等待。", "Note: sends left later than planned: send lag P99 %s ms (max %s ms), over %s ms, so the server did not get the planned arrival process (arrivals delayed and bunched); a wait for a --max-concurrency slot (when one is set) or a loaded client machine does this. TTFT counts from the actual send, without this wait."}
	// noteSendLagRuns is noteSendLag over several runs.
	noteSendLagRuns = lang.Msg{"注意：%s 次运行（%s）的发送比计划晚：发送延迟 P99 %s ms（最大 %s ms），超过 %s ms，服务器收到的不是计划的到达过程（到达被推迟、挤在一起）；原因是等待 --max-concurrency 的空位（设了它时）或客户端机器过载。TTFT 从实际发送算起，不含这段等待。", "Note: sends left later than planned in %s (%s): send lag P99 %s ms (max %s ms), over %s ms, so the server did not get the planned arrival process (arrivals delayed and bunched); a wait for a --max-concurrency slot (when one is set) or a loaded client machine does this. TTFT counts from the actual send, without this wait."}
	// noteSendLagRunsSame: the runs' P99 and maximum send lags span the
	// same range (few sends a run): printed once.
	noteSendLagRunsSame = lang.Msg{"注意：%s 次运行（%s）的发送比计划晚：发送延迟 P99 与最大值都是 %s ms，超过 %s ms，服务器收到的不是计划的到达过程（到达被推迟、挤在一起）；原因是等待 --max-concurrency 的空位（设了它时）或客户端机器过载。TTFT 从实际发送算起，不含这段等待。", "Note: sends left later than planned in %s (%s): send lag P99 and max both %s ms, over %s ms, so the server did not get the planned arrival process (arrivals delayed and bunched); a wait for a --max-concurrency slot (when one is set) or a loaded client machine does this. TTFT counts from the actual send, without this wait."}
	noteConnect         = lang.Msg{"注意：%s 次尝试中 %d 次是连接失败（connect_error，%s 次/s）：这段时间里服务器的地址上大多没有服务在听（没有启动、已经停止或 --url 写错）。失败来得很快时（开环按计划照发；闭环的用户失败后退避 10 ms 起、翻倍到 1 s，没有 conditions.connect_backoff 的旧 trace 里则立刻重发），这个次数反映的是客户端重发得多快，不是服务器承受的负载；它们都留在分母里，没有删掉。",
		"Note: %[2]d of %[1]s are connect errors (connect_error, %[3]s/s): for most of the run nothing listened at the server's address (not started, stopped, or a wrong --url). When failures come this fast (an open loop keeps its schedule; a closed loop's users back off from 10 ms, doubling to 1 s, or resent at once in traces without conditions.connect_backoff), their count measures how fast the client resent, not a load on the server; they all stay in the denominators, none dropped."}
	noteConnectTail = lang.Msg{"注意：%s 次尝试中 %d 次是连接失败（connect_error，%s 次/s）：%s，服务器的地址上没有服务在听（已经停止、崩溃、没有启动或 --url 写错）。失败来得很快时（开环按计划照发；闭环的用户失败后退避 10 ms 起、翻倍到 1 s，没有 conditions.connect_backoff 的旧 trace 里则立刻重发），这个次数反映的是客户端重发得多快，不是服务器承受的负载；它们都留在分母里，没有删掉。",
		"Note: %[2]d of %[1]s are connect errors (connect_error, %[3]s/s): %[4]s, nothing listened at the server's address (stopped, crashed, not started, or a wrong --url). When failures come this fast (an open loop keeps its schedule; a closed loop's users back off from 10 ms, doubling to 1 s, or resent at once in traces without conditions.connect_backoff), their count measures how fast the client resent, not a load on the server; they all stay in the denominators, none dropped."}
	tailFrom    = lang.Msg{"从第 %s s 起到运行结束没有服务应答（此后 %s 次尝试都是连接失败）", "nothing answered from %s s to the end of the run (the %s)"}
	tailStart   = lang.Msg{"从运行开始到结束没有服务应答（%s 次尝试都是连接失败）", "nothing answered from the start to the end of the run (%s)"}
	noteUnrated = lang.Msg{"注意：%s 次完整成功都没有质量评分。未评分是“不知道”：不算质量通过，也不是 0，所以联合合格和 goodput 无法计算（未评分），和时延快慢无关。" +
		"要评分：测量时用 coursekit bench --dataset arith（内置算术题，答案可以精确判定），或 --dataset 题目.jsonl（每行一个 {\"prompt\": …, \"expect\": {…}}）；" +
		"导入别的工具的结果时用 coursekit import --dataset 同一个题目文件。",
		"Note: none of the %s has a quality rating. Unrated is unknown: not a quality pass, and not 0, so qualified and goodput are unknown (unrated), whatever the latency. " +
			"To rate: measure with coursekit bench --dataset arith (built-in arithmetic, answers judged exactly), or --dataset questions.jsonl (one {\"prompt\": ..., \"expect\": {...}} per line); " +
			"when importing another tool's results, use coursekit import --dataset with the same questions file."}
	noteSLODropped = lang.Msg{"注意：trace 记录的门槛是 %s；命令行的 --slo-* 会替换记录的整组门槛，所以这里按 %s 判定，不再使用记录的 %s%s。要保留它，加上 %s。",
		"Note: the trace records the SLOs %s; --slo-* flags replace the whole recorded set, so this is judged under %s, without the recorded %s%s. To keep it, add %s."}
	// noteSLOFromRun is noteSLODropped when no flag was given and the SLOs
	// came from another run, which a comparison judges every run by.
	noteSLOFromRun = lang.Msg{"注意：trace 记录的门槛是 %s；没有给 --slo-*，所以每次运行都按第一个 A 运行（%s）记录的门槛判定，这里是 %s，不再使用记录的 %s%s。要按记录的门槛判定所有运行，加上 %s。",
		"Note: the trace records the SLOs %s; no --slo-* flag was given, so every run is judged under the SLOs of the first A run (%s), here %s, without the recorded %s%s. To judge every run under the recorded ones, add %s."}
	noteSLOQuality = lang.Msg{"；没有了 TTFT 之外的门槛，完整成功还必须质量通过（未评分不算通过）", "; with no SLO beyond TTFT left, a complete success must also pass quality (unrated is not a pass)"}
)

// SLONoteIn is the note of a summary judged without SLOs beyond TTFT that
// its trace records (cardopts.Dropped): what was recorded, what judged it,
// which recorded SLOs are no longer applied, and the flags that keep them;
// "" when none was dropped.
func SLONoteIn(l lang.Lang, s *metrics.Summary) string { return sloNote(l, s, "") }

// Warnings are s's warnings (metrics.Summary.Warnings) with those the
// card's notes derive from s that every format must carry: the recorded
// SLOs that --slo-* flags left out (SLONoteIn, in English without its
// "Note: "). The JSON card writes them; the text and Markdown cards print
// the same caveats among their notes.
func Warnings(s *metrics.Summary) []metrics.Warning {
	out := slices.Clone(s.Warnings)
	add := func(code, text string) {
		if text == "" || slices.ContainsFunc(out, func(w metrics.Warning) bool { return w.Kind == code }) {
			return
		}
		text = strings.TrimPrefix(text, "Note: ")
		out = append(out, metrics.Warning{Kind: code, Text: strings.ToUpper(text[:1]) + text[1:]})
	}
	add(metrics.WarnSLODropped, SLONoteIn(lang.EN, s))
	add(metrics.WarnCapacityBasis, CapacityNoteIn(lang.EN, s))
	return out
}

// CapacityNoteIn is the note of a capacity step the search stopped early on
// overload (metrics.Summary.CapacityStop): the count the search judged it
// by, which leaves out the attempts in flight at the stop; "" otherwise.
func CapacityNoteIn(l lang.Lang, s *metrics.Summary) string {
	c := s.CapacityStop
	if c == nil {
		return ""
	}
	q := capacityUnknown.In(l)
	if c.Qualified != nil {
		q = capacityQualified.F(l, *c.Qualified)
	}
	return noteCapacityBasis.F(l, lang.N(l, c.InFlight, "attempt still in flight", "attempts still in flight"), q,
		lang.N(l, c.Attempts, "attempt", "attempts"), condName(metrics.Condition{SLOTTFTMS: c.SLOTTFTMS, LatencySLO: c.LatencySLO}), lang.N(l, s.Attempts, "in-window attempt", "in-window attempts"))
}

// SLONoteFromRunIn is SLONoteIn for a run of a comparison judged, without
// --slo-* flags, under the SLOs another run (from) records: it names that
// run instead of blaming flags nobody gave.
func SLONoteFromRunIn(l lang.Lang, s *metrics.Summary, from string) string {
	return sloNote(l, s, from)
}

func sloNote(l lang.Lang, s *metrics.Summary, from string) string {
	recorded, dropped, ok := cardopts.Dropped(s)
	if !ok {
		return ""
	}
	used := cardopts.Judged(s)
	quality := ""
	if !used.Set() {
		quality = noteSLOQuality.In(l)
	}
	var flags []string
	for _, f := range []struct {
		name string
		ms   float64
	}{{"--slo-e2e", dropped.E2EMS}, {"--slo-itl-p95", dropped.ITLP95MS}, {"--slo-tpot", dropped.TPOTMS}} {
		if f.ms > 0 {
			flags = append(flags, f.name+" "+flagDur(f.ms))
		}
	}
	if from != "" {
		return noteSLOFromRun.F(l, setName(recorded), from, setName(used), LatencyName(dropped), quality, strings.Join(flags, " "))
	}
	return noteSLODropped.F(l, setName(recorded), setName(used), LatencyName(dropped), quality, strings.Join(flags, " "))
}

// setName names an SLO set: "TTFT ≤ 2 s ∧ E2E ≤ 4 s", TTFT SLOs joined
// by commas.
func setName(set metrics.SLOSet) string {
	var ttft []string
	for _, v := range set.TTFTMS {
		ttft = append(ttft, sloName(v))
	}
	out := strings.Join(ttft, ", ")
	if l := LatencyName(set.LatencySLO); l != "" {
		out += " ∧ " + l
	}
	return out
}

// flagDur is a duration as a flag takes it: 3s, 250ms.
func flagDur(ms float64) string {
	if ms >= 1000 && math.Mod(ms, 1000) == 0 {
		return num(ms/1000) + "s"
	}
	return num(ms) + "ms"
}

// Unrated reports whether the summary's goodput is unknown because nothing
// was rated: a condition says so (metrics.GoodputUnrated), or, without
// conditions, complete successes, none rated, under a rule that requires a
// quality pass.
func Unrated(s *metrics.Summary) bool {
	for _, c := range s.Conditions {
		if c.Unknown != "" {
			return true
		}
	}
	return len(s.Conditions) == 0 && s.CompleteSuccess > 0 && s.QualityPasses+s.QualityFails == 0 && !latencyOnly(s)
}

// UnratedNoteIn is the card's note on n complete successes none of which
// is rated (Unrated).
func UnratedNoteIn(l lang.Lang, n int64) string {
	return noteUnrated.F(l, lang.N(l, n, "complete success", "complete successes"))
}

// notes are the warnings a reader must see before any number: a run cut
// short (its window and in-flight attempts), and a card whose goodput is 0
// only because nothing was rated.
func notes(l lang.Lang, s *metrics.Summary) []string {
	var out []string
	if r := s.RunEnd; r != nil {
		planned := notePlanned.F(l, num(r.PlannedDurationMS/1000), num(r.PlannedWindow.StartMS), num(r.PlannedWindow.EndMS))
		switch {
		case r.Reason == trace.RunNotFinished:
			out = append(out, noteNotFinished.F(l, planned))
		case r.Reason == trace.RunInterrupted && r.AtMS != nil && *r.AtMS < r.PlannedWindow.StartMS:
			out = append(out, noteWarmup.F(l, num(*r.AtMS/1000), planned))
		case r.Reason == trace.RunOverload && r.AtMS != nil:
			out = append(out, noteOverload.F(l, num(*r.AtMS/1000), planned, num(s.WindowS), lang.N(l, s.InFlight, "attempt still running then is in flight, not a failure", "attempts still running then are in flight, not failures")))
		case r.CutShort():
			out = append(out, noteCutShort.F(l, num(*r.AtMS/1000), planned, num(s.WindowS), lang.N(l, s.InFlight, "attempt still running then is in flight, not a failure", "attempts still running then are in flight, not failures")))
		case r.Reason == trace.RunInterrupted:
			out = append(out, noteAfterWindow.F(l, num(*r.AtMS/1000), lang.N(l, s.InFlight, "attempt still running then is in flight, not a failure", "attempts still running then are in flight, not failures")))
		case r.Reason == trace.RunNumRequests:
			out = append(out, noteNumReqDone.F(l, lang.N(l, r.NumRequests, "request", "requests"), num(*r.AtMS/1000), num(s.WindowS), planned))
		case r.NumRequests > 0:
			out = append(out, noteNumReqShort.F(l, lang.N(l, r.NumRequests, "request was", "requests were")))
		}
	}
	if n := CapacityNoteIn(l, s); n != "" {
		out = append(out, n)
	}
	out = append(out, SendsNotesIn(l, s)...)
	if n := int64(s.Outcomes[trace.ConnectError.String()]); (n >= connectFloodMin || neverAnswered(s)) && 2*n > s.Attempts && s.WindowS > 0 {
		out = append(out, connectNote(l, s, n))
	}
	if n := ClientLagNoteIn(l, s); n != "" {
		out = append(out, n)
	}
	if n := SLONoteIn(l, s); n != "" {
		out = append(out, n)
	}
	if Unrated(s) {
		out = append(out, noteUnrated.F(l, lang.N(l, s.CompleteSuccess, "complete success", "complete successes")))
	}
	return out
}

// connectNote is the note on a run that was mostly connect errors (n of
// them): from when nothing answered, from the trace (Summary.Unanswered,
// the time bench printed), when the errors are the run's tail.
func connectNote(l lang.Lang, s *metrics.Summary, n int64) string {
	rate := num(float64(n) / s.WindowS)
	u := s.Unanswered
	switch {
	case u == nil:
		return noteConnect.F(l, lang.N(l, s.Attempts, "attempt", "attempts"), n, rate)
	case u.FromMS == 0:
		return noteConnectTail.F(l, lang.N(l, s.Attempts, "attempt", "attempts"), n, rate, tailStart.F(l, lang.N(l, u.ConnectErrors, "attempt was a connect error", "attempts were all connect errors")))
	}
	return noteConnectTail.F(l, lang.N(l, s.Attempts, "attempt", "attempts"), n, rate, tailFrom.F(l, num(u.FromMS/1000), lang.N(l, u.ConnectErrors, "attempt since was a connect error", "attempts since were all connect errors")))
}

// connectFloodMin is the fewest connect errors, over half of the
// attempts, that the card notes as a server that was not there. The floor
// keeps a blip off the card: in a short run a server restarting or a port
// briefly refusing can make 2 of 3 attempts connect errors while the server
// answered before and after, and the note would call it a server that was
// not there. A run in which nothing ever answered needs no floor
// (neverAnswered): 9 connect errors in a 3 s run against a dead URL are
// the whole story, not a blip (walk 35f 5).
const connectFloodMin = 10

// neverAnswered reports whether nothing answered in the whole trace, from
// its start, and connect errors were what it got (Summary.Unanswered).
func neverAnswered(s *metrics.Summary) bool {
	return s.Unanswered != nil && s.Unanswered.FromMS == 0 && s.Unanswered.ConnectErrors > 0
}

// SendsNotesIn are the notes on a run whose schedule was not sent as
// planned (trace.Sends): arrivals never sent, sends later than
// metrics.SendLagBoundMS at P99; none for a closed loop or an older trace.
func SendsNotesIn(l lang.Lang, s *metrics.Summary) []string {
	if s.RunEnd == nil || s.RunEnd.Sends == nil {
		return nil
	}
	sn := s.RunEnd.Sends
	var out []string
	if sn.Unsent > 0 {
		out = append(out, noteUnsent.F(l, sn.Planned, sn.Unsent, sn.Sent))
	}
	if sn.LagP99MS > metrics.SendLagBoundMS {
		out = append(out, noteSendLag.F(l, num(sn.LagP99MS), num(sn.LagMaxMS), num(metrics.SendLagBoundMS)))
	}
	return out
}

// ClientLagNoteIn is the card's note on a client late to wake
// (s.ClientLag over its bound during some attempt); "" when it was not.
func ClientLagNoteIn(l lang.Lang, s *metrics.Summary) string {
	c := s.ClientLag
	if c == nil || c.OverBound == 0 {
		return ""
	}
	return noteClientLag.F(l, clientLagWhat.F(l, num(metrics.ClientLagTickMS)), lang.N(l, c.OverBound, "attempt", "attempts"), num(c.BoundMS), num(c.MaxMS), lang.N(l, c.Attempts, "attempt records", "attempts record"), clientLagWhy.In(l))
}

// ClientLagRunsNoteIn is ClientLagNoteIn over several runs, named names,
// whose clients were late (lags, each over its bound): one note with the
// range of their counts and maxima.
func ClientLagRunsNoteIn(l lang.Lang, lags []*metrics.ClientLag, names string) string {
	over, maxMS, bound := make([]float64, len(lags)), make([]float64, len(lags)), make([]float64, len(lags))
	for i, c := range lags {
		over[i], maxMS[i], bound[i] = float64(c.OverBound), c.MaxMS, c.BoundMS
	}
	return noteClientLagRuns.F(l, lang.N(l, len(lags), "run", "runs"), names, clientLagWhat.F(l, num(metrics.ClientLagTickMS)), spanCount(l, over, "attempt", "attempts"), span(bound), span(maxMS), clientLagWhy.In(l))
}

// SendLagRunsNoteIn is the send-lag note over several runs (names, as
// the comparison lists them), with their ranges: one note for a
// comparison, as ClientLagRunsNoteIn, not one per run. p99 and maxMS are
// each run's send lag at P99 and at most.
func SendLagRunsNoteIn(l lang.Lang, p99, maxMS []float64, names string) string {
	if span(p99) == span(maxMS) {
		return noteSendLagRunsSame.F(l, lang.N(l, len(p99), "run", "runs"), names, span(p99), num(metrics.SendLagBoundMS))
	}
	return noteSendLagRuns.F(l, lang.N(l, len(p99), "run", "runs"), names, span(p99), span(maxMS), num(metrics.SendLagBoundMS))
}

// SendLagLate reports whether s's sends were late beyond
// metrics.SendLagBoundMS at P99 (SendsNotesIn's send-lag note), with its
// P99 and maximum lag.
func SendLagLate(s *metrics.Summary) (p99, maxMS float64, late bool) {
	if s.RunEnd == nil || s.RunEnd.Sends == nil || !(s.RunEnd.Sends.LagP99MS > metrics.SendLagBoundMS) {
		return 0, 0, false
	}
	return s.RunEnd.Sends.LagP99MS, s.RunEnd.Sends.LagMaxMS, true
}

// span is the range of vs, "lo–hi", or their one value.
func span(vs []float64) string {
	lo, hi := slices.Min(vs), slices.Max(vs)
	if lo == hi {
		return num(lo)
	}
	return num(lo) + "–" + num(hi)
}

// spanCount is span(vs) as a count in l: in English with the words
// after it, one when every value is 1 ("1 attempt", "1–3 attempts"), as
// lang.N; in Chinese the numbers alone.
func spanCount(l lang.Lang, vs []float64, one, many string) string {
	s := span(vs)
	if l != lang.EN {
		return s
	}
	if s == "1" {
		return s + " " + one
	}
	return s + " " + many
}

// latencyOnly reports whether some condition qualifies on latency alone
// (SLOs beyond TTFT, no judge asked for): its goodput is not 0 for lack of
// ratings, and the condition itself says quality was not judged.
func latencyOnly(s *metrics.Summary) bool {
	for _, c := range s.Conditions {
		if c.QualityRule == metrics.QualityNotJudged {
			return true
		}
	}
	return false
}
