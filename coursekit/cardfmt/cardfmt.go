// Package cardfmt prints a metrics.Summary for people: text and Markdown in
// Simplified Chinese (the course language) or English (lang.EN), from the
// same lang.Msg texts, and JSON with English keys in either.
//
// Every ratio is printed as numerator / denominator with its unit, and every
// percentile with its method and sample size, so a reader can recompute it.
package cardfmt

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Format is an output format of `coursekit card`.
type Format string

const (
	Text     Format = "text"
	Markdown Format = "markdown"
	JSON     Format = "json"
)

// ParseFormat accepts the CLI spelling.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case Text, Markdown, JSON:
		return Format(s), nil
	case "md":
		return Markdown, nil
	}
	return "", fmt.Errorf("unknown format %q (want text, markdown or json)", s)
}

// Write prints s in format f in Chinese; source names the trace in the title.
func Write(w io.Writer, s *metrics.Summary, source string, f Format) error {
	return WriteLang(w, s, source, f, lang.ZH)
}

// WriteLang is Write in l. JSON is the same in every language.
func WriteLang(w io.Writer, s *metrics.Summary, source string, f Format, l lang.Lang) error {
	switch f {
	case JSON:
		return writeJSON(w, s)
	case Markdown:
		_, err := io.WriteString(w, markdown(l, s, source, true))
		return err
	default:
		_, err := io.WriteString(w, text(l, s, source))
		return err
	}
}

// WriteMarkdownForHTML writes the Markdown card for a converter that escapes every character
// of it as HTML itself (the report page's MarkdownHTML): the header's strings (clock, currency)
// are left as written, where the Markdown card escapes them for viewers that render HTML in
// Markdown, so that they are escaped once, not twice ("&lt;/script&gt;" shown literally).
func WriteMarkdownForHTML(w io.Writer, s *metrics.Summary, source string, l lang.Lang) error {
	_, err := io.WriteString(w, markdown(l, s, source, false))
	return err
}

// Num prints a number the short way people write it: 0.5, 4, 87.5
// (numfmt.Exact).
func Num(v float64) string { return numfmt.Exact(v) }

// num rounds to at most 3 decimals for display; JSON keeps full precision.
// A number that overflowed prints as ∞ or ?, and the card's footer
// (notFiniteText) names it (numfmt.Num).
func num(v float64) string { return numfmt.Num(v) }

var (
	noSample    = lang.Msg{"无（样本为空）", "none (empty sample)"}
	noDenom     = lang.Msg{"无（分母为 0）", "none (denominator is 0)"}
	noWindow    = lang.Msg{"无（窗口为 0）", "none (window is 0)"}
	perSecUnit  = lang.Msg{"次/s", "/s"}
	rateText    = lang.Msg{"%s 次 / %s s = %s（%s）", "%s / %s s = %s (%s)"}
	shareText   = lang.Msg{"%s / %s = %s（%s）", "%s / %s = %s (%s)"}
	noneWord    = lang.Msg{"无", "none"}
	listSep     = lang.Msg{"、", ", "}
	clauseSep   = lang.Msg{"；", "; "}
	ciIntervalP = lang.Msg{"；95% 区间 ", "; 95% interval "}
)

func optMS(l lang.Lang, v *float64) string {
	if v == nil {
		return noSample.In(l)
	}
	return num(*v) + " " + numfmt.UnitMS
}

func pct(l lang.Lang, r metrics.Ratio) string {
	if r.Value == nil {
		return noDenom.In(l)
	}
	return Measure(*r.Value*100, numfmt.UnitPercent)
}

// Measure prints a measured value with its unit, rounded for a reader the
// same way in cards, tables and chart labels (numfmt.Measure): milliseconds
// whole from 1000 ms up and at one decimal below (a millisecond clock has
// no more), a percentage at one decimal (the card's confidence intervals
// do the same), anything else at three significant digits ("61.2
// token/s", "0.526 次/s", whole from 1000 up). unit "" prints the number
// alone; a value that is not a number is 缺失.
func Measure(v float64, unit string) string {
	if s, ok := numfmt.Measure(v, unit); ok {
		return s
	}
	return "缺失"
}

// MissingTTFTIn is the short count of attempts without a TTFT: "missing
// TTFT 2 (not 0)", or "missing TTFT: none" when there are none (a "(not 0)"
// beside a 0 reads as a contradiction).
func MissingTTFTIn(l lang.Lang, n int64) string {
	if n == 0 {
		return missTTFT0.In(l)
	}
	return missTTFT.F(l, n)
}

// RatioText is "num / den 单位 = value", the way the card prints every rate.
func RatioText(r metrics.Ratio) string { return RatioTextIn(lang.ZH, r) }

// RatioTextIn is RatioText in l.
func RatioTextIn(l lang.Lang, r metrics.Ratio) string {
	if r.Unit == perSecond {
		v := noWindow.In(l)
		if r.Value != nil {
			v = num(*r.Value) + " " + perSecUnit.In(l)
		}
		return rateText.F(l, num(r.Num), num(r.Den), v, unitName(l, r.Unit))
	}
	return shareText.F(l, num(r.Num), num(r.Den), pct(l, r), unitName(l, r.Unit))
}

// perSecond is the one ratio unit that is a rate, not a share.
const perSecond = metrics.UnitGoodput

var unitNames = map[string]lang.Msg{
	metrics.UnitFailureRate:      {"失败尝试 / 全部尝试", "failed attempts / attempts"},
	metrics.UnitQualityPassRate:  {"质量通过 / 已评分的完整成功", "quality passes / rated complete successes"},
	metrics.UnitQualifiedRate:    {"联合合格尝试 / 全部尝试", "qualified attempts / attempts"},
	metrics.UnitGoodput:          {"联合合格尝试 / 窗口秒", "qualified attempts / window second"},
	metrics.UnitRequestQualified: {"合格业务请求 / 全部业务请求", "qualified requests / requests"},
}

func unitName(l lang.Lang, u string) string {
	if z, ok := unitNames[u]; ok {
		return z.In(l)
	}
	return u
}

var (
	distEventNote = lang.Msg{"，单位：流式事件间隔", ", unit: gap between streamed events"}
	distEmpty     = lang.Msg{"%s（n=0，%s%s）：没有样本，分位数为空（不是 0）", "%s (n=0, %s%s): no samples, percentiles are empty (not 0)"}
	distChosen    = lang.Msg{"%s（n=%d，%s%s）：%s · 最大 %s", "%s (n=%d, %s%s): %s · max %s"}
	distLevels    = lang.Msg{"%s（n=%d，%s%s）：P50 %s · P90 %s · P95 %s · P99 %s · 最大 %s", "%s (n=%d, %s%s): P50 %s · P90 %s · P95 %s · P99 %s · max %s"}
)

// shownLevels are the levels a card gives of d under --percentiles: the
// chosen ones, with P95 among them (in level order) when it was not chosen.
// The summary always has P95 (JSON p95), and the views drawn from it read
// it: the Markdown card's table, the report's TTFT chart and its caption,
// capacity's P95 TTFT. So the card always gives it, and says so
// (P95Kept).
func shownLevels(d metrics.Dist) []metrics.LevelValue {
	if len(d.Chosen) == 0 || hasLevel95(d) || d.P95 == nil {
		return d.Chosen
	}
	p95 := metrics.LevelValue{P: 0.95, Value: d.P95}
	if d.CI95 != nil {
		p95.CI95 = d.CI95.P95
	}
	out := make([]metrics.LevelValue, 0, len(d.Chosen)+1)
	added := false
	for _, c := range d.Chosen {
		if !added && c.P > 0.95 {
			out, added = append(out, p95), true
		}
		out = append(out, c)
	}
	if !added {
		out = append(out, p95)
	}
	return out
}

func hasLevel95(d metrics.Dist) bool {
	for _, c := range d.Chosen {
		if math.Abs(c.P-0.95) < 1e-12 {
			return true
		}
	}
	return false
}

// P95Kept is the note a card gives when --percentiles left P95 out and the
// card gives it anyway (shownLevels).
var P95Kept = lang.Msg{"P95 总是列出，--percentiles 没有选它也一样：Markdown 卡的表格、report 的图和 JSON 的 p95 用的都是它", "P95 is always listed, even when --percentiles leaves it out: the Markdown card's table, report's charts and the JSON's p95 all use it"}

// p95Added reports whether a distribution of s gives P95 only because the
// card always does.
func p95Added(s *metrics.Summary) bool {
	for _, d := range []metrics.Dist{s.TTFT, s.E2E, s.ITL, s.TPOT} {
		if len(d.Chosen) > 0 && d.N > 0 && !hasLevel95(d) {
			return true
		}
	}
	return false
}

func distLine(l lang.Lang, name string, d metrics.Dist) string {
	unit := numfmt.UnitMS
	note := ""
	switch d.Unit {
	case metrics.UnitEvent:
		note = distEventNote.In(l)
	case metrics.UnitMSPerToken:
		unit = numfmt.UnitMSPerToken
	}
	if d.N == 0 {
		return distEmpty.F(l, name, MethodNameIn(l, d.Method), note)
	}
	f := func(v *float64) string { return num(*v) + " " + unit }
	if len(d.Chosen) > 0 {
		var parts []string
		for _, c := range shownLevels(d) {
			parts = append(parts, "P"+num(c.P*100)+" "+f(c.Value))
		}
		return distChosen.F(l, name, d.N, MethodNameIn(l, d.Method), note, strings.Join(parts, " · "), f(d.Max))
	}
	return distLevels.F(l, name, d.N, MethodNameIn(l, d.Method), note, f(d.P50), f(d.P90), f(d.P95), f(d.P99), f(d.Max))
}

func money(l lang.Lang, v *float64, cur string) string {
	if v == nil {
		return ""
	}
	if cur == "" {
		return num(*v)
	}
	return num(*v) + " " + CurrencyNameIn(l, cur)
}

var (
	costNoWindow    = lang.Msg{"无（trace 未记录窗口成本，可用 --window-cost 给出）", "none (the trace records no window cost; give it with --window-cost)"}
	costNoQualified = lang.Msg{"无（没有合格尝试，成本无法摊到合格结果上）", "none (no qualified attempt to spread the cost over)"}
	costLine        = lang.Msg{"%s / %d × 1000 = %s / 千次合格", "%s / %d × 1000 = %s / 1000 qualified"}
)

// UnknownUnrated is every figure of a condition whose qualification is
// unknown because nothing was rated (metrics.GoodputUnrated): the unit's
// word for it, never 0.
var UnknownUnrated = lang.Msg{"无法计算（未评分）", "unknown (unrated)"}

// QualifiedTextIn is c's qualified share, or unknown.
func QualifiedTextIn(l lang.Lang, c metrics.Condition) string { return ratioOf(l, c, c.QualifiedRate) }

// GoodputTextIn is c's goodput, or unknown.
func GoodputTextIn(l lang.Lang, c metrics.Condition) string { return ratioOf(l, c, c.Goodput) }

// ratioOf is r, a figure of c, or unknown when c is.
func ratioOf(l lang.Lang, c metrics.Condition, r metrics.Ratio) string {
	if c.Unknown != "" {
		return UnknownUnrated.In(l)
	}
	return RatioTextIn(l, r)
}

// wilsonOf is r's interval, or nothing when c is unknown.
func wilsonOf(l lang.Lang, c metrics.Condition, r metrics.Ratio) string {
	if c.Unknown != "" {
		return ""
	}
	return WilsonTextIn(l, r)
}

func costText(l lang.Lang, s *metrics.Summary, c metrics.Condition) string {
	switch {
	case s.WindowCost == nil:
		return costNoWindow.In(l)
	case c.Unknown != "":
		return UnknownUnrated.In(l)
	case c.CostPer1000 == nil:
		return costNoQualified.In(l)
	}
	return costLine.F(l, money(l, s.WindowCost, s.Currency), c.Qualified, money(l, c.CostPer1000, s.Currency))
}

// sendsLines are what an open loop's schedule planned and sent, and its
// send lag (trace.Sends); none for a closed loop or an older trace.
func sendsLines(l lang.Lang, s *metrics.Summary) []string {
	if s.RunEnd == nil || s.RunEnd.Sends == nil {
		return nil
	}
	sn := s.RunEnd.Sends
	out := []string{txSends.F(l, sn.Planned, sn.Sent, sn.Unsent)}
	if sn.LagN > 0 {
		out = append(out, txSendLag.F(l, sn.LagN, num(sn.LagP50MS), num(sn.LagP99MS), num(sn.LagMaxMS)))
	}
	return out
}

func outcomeList(l lang.Lang, s *metrics.Summary) string {
	var parts []string
	for _, o := range trace.Failures {
		if n := s.Outcomes[o.String()]; n > 0 {
			parts = append(parts, OutcomeCountIn(l, s, o))
		}
	}
	if len(parts) == 0 {
		return noneWord.In(l)
	}
	return strings.Join(parts, listSep.In(l))
}

func sloName(ms float64) string {
	if ms >= 1000 && int64(ms)%1000 == 0 {
		return fmt.Sprintf("TTFT ≤ %s s", num(ms/1000))
	}
	return fmt.Sprintf("TTFT ≤ %s ms", num(ms))
}

// The text card's lines, in order.
var (
	txTitle      = lang.Msg{"指标口径卡 · %s", "Metrics card · %s"}
	txObserved   = lang.Msg{"采集点：%s时钟 · 固定窗口 [%s, %s) ms = %s s · 分位算法：%s", "Observed at: %s clock · fixed window [%s, %s) ms = %s s · percentile method: %s"}
	txDenoms     = lang.Msg{"分母", "Denominators"}
	txAttempts   = lang.Msg{"  全部尝试：%d 次（窗口内发起；窗口外 %d 次另计，不进入任何比值）", "  All attempts: %d (started in the window; %d outside it, counted apart and in no ratio)"}
	txOutcomes   = lang.Msg{"  完整成功：%d · 失败：%d（%s）· 在途：%d", "  Complete successes: %d · failures: %d (%s) · in flight: %d"}
	txRetries    = lang.Msg{"  业务请求：%d · 重试放大：%s 次尝试 / %s 个请求 = %s", "  Requests: %d · retry amplification: %s / %s = %s"}
	txSends      = lang.Msg{"发送（开环的计划）：计划到达 %d 次（预热和窗口内）· 已发送 %d · 未发送 %d（窗口结束时仍在等并发空位，不在任何尝试里）", "Sends (the open loop's schedule): planned arrivals %d (warm-up and window) · sent %d · unsent %d (still waiting for a concurrency slot when the window ended; in no attempt)"}
	txSendLag    = lang.Msg{"发送延迟（实际发送 − 计划发送时刻，每次尝试，含重试，n=%d，最近秩）：P50 %s ms · P99 %s ms · 最大 %s ms", "Send lag (actual send − scheduled send, per attempt, retries included, n=%d, nearest-rank): P50 %s ms · P99 %s ms · max %s ms"}
	txRatios     = lang.Msg{"比值（分子 / 分母 = 值，单位）", "Ratios (numerator / denominator = value, unit)"}
	txFailRate   = lang.Msg{"  失败率：%s%s", "  Failure rate: %s%s"}
	txInFlight   = lang.Msg{"    分母里有 %s 次在途尝试：还没有结束，既不算失败，也不算联合合格", "    The denominator holds %s in flight: unfinished, neither failures nor qualified"}
	txPassRate   = lang.Msg{"  质量通过率：%s%s；未评分的完整成功 %d 次（不算通过）", "  Quality pass rate: %s%s; %d unrated complete successes (not passes)"}
	txLatency    = lang.Msg{"时延分布（只含完整成功；失败留在上面的分母里）", "Latency distributions (complete successes only; failures stay in the denominators above)"}
	nameTTFT     = lang.Msg{"首字时延 TTFT", "TTFT (time to first token)"}
	nameE2E      = lang.Msg{"端到端时延 E2E", "E2E (end-to-end latency)"}
	txTTFTMiss   = lang.Msg{"  缺失 TTFT：%s 次尝试没有收到首个输出，记为缺失，不是 0", "  Missing TTFT: %s received no first output; recorded as missing, not 0"}
	txTTFTNone   = lang.Msg{"  缺失 TTFT：无", "  Missing TTFT: none"}
	txMultiTok   = lang.Msg{"  注意：%s 个事件携带多个 token（最多 %d 个），事件间隔不等于 ITL（相邻输出 token 的间隔）；另报 TPOT：首个 token 之后相邻 token 的平均间隔（与 vLLM 的 TPOT 几乎相同）：", "  Note: %s several tokens (at most %d), so event gaps are not ITL (the gap between adjacent output tokens); TPOT, the mean gap between tokens after the first, is reported too (almost the same number as vLLM's TPOT):"}
	nameTPOTLong = lang.Msg{"TPOT = (t_N − t_1) / (N − 1)", "TPOT = (t_N − t_1) / (N − 1)"}
	txOneTok     = lang.Msg{"  每个事件恰好 1 个 token（%s 个事件），事件间隔就是 ITL（相邻输出 token 的间隔）", "  Every event carries exactly 1 token (%s), so event gaps are ITL (the gap between adjacent output tokens)"}
	txOneEach    = lang.Msg{"  注意：每个事件按 1 个 token 计（%s 个事件），但服务端报告输出 %s 个 token，事件只对应 %d 个：有的 token 没有产生文本（例如结束符），所以整次运行的事件间隔合起来不等于 token 间隔（ITL）；事件带齐全部 token、每个 1 个的单个请求里，二者相等", "  Note: each event counts as 1 token (%s), but the server reports %s where the events account for %d: some tokens produced no text (the end-of-sequence token, for one), so the run's event gaps, taken together, are not token gaps (ITL); within one request whose events carry all its tokens, one each, they are"}
	txUsageDiff  = lang.Msg{"  注意：服务端报告输出 %s 个 token，事件共携带 %d 个，两者不一致，事件间隔不等于 token 间隔", "  Note: the server reports %s but the events carry %d; they disagree, so event gaps are not token gaps"}
	txCondition  = lang.Msg{"条件 %s（联合合格 = %s）", "Condition %s (qualified = %s)"}
	txQualified  = lang.Msg{"  联合合格：%s%s", "  Qualified: %s%s"}
	txGoodput    = lang.Msg{"  goodput：%s", "  Goodput: %s"}
	txCost       = lang.Msg{"  每千次合格成本：%s", "  Cost per 1000 qualified: %s"}
	txRequests   = lang.Msg{"  业务请求视角：%s%s", "  Per request: %s%s"}
	txUnknownWhy = lang.Msg{"  无法计算的原因：这个条件要求质量通过，而 trace 里没有一次尝试有质量评分；未评分是“不知道”，不是 0（用 bench --dataset 给回答评分）", "  Why unknown: this condition requires a quality pass and no attempt in the trace was rated; unrated is unknown, not 0 (rate the answers with bench --dataset)"}
	txDrops      = lang.Msg{"  未合格原因：%s", "  Why not qualified: %s"}
)

func text(l lang.Lang, s *metrics.Summary, source string) string {
	var b strings.Builder
	p := func(m lang.Msg, a ...any) { b.WriteString(m.F(l, a...) + "\n") }
	line := func(v string) { b.WriteString(v + "\n") }
	ci := func(indent string, d metrics.Dist) {
		if c := CILineIn(l, d); c != "" {
			line(indent + c)
		}
	}
	p(txTitle, source)
	p(txObserved, ClockNameIn(l, s.Clock), num(s.Window.StartMS), num(s.Window.EndMS), num(s.WindowS), MethodNameIn(l, s.PercentileMethod))
	for _, n := range notes(l, s) {
		line(n)
	}
	line("")
	p(txDenoms)
	p(txAttempts, s.Attempts, s.OutsideWindow)
	p(txOutcomes, s.CompleteSuccess, s.Failures, outcomeList(l, s), s.InFlight)
	if s.RetryAmplification != nil {
		p(txRetries, s.Requests, lang.N(l, s.Attempts, "attempt", "attempts"), lang.N(l, s.Requests, "request", "requests"), num(*s.RetryAmplification))
	}
	for _, t := range sendsLines(l, s) {
		line("  " + t)
	}
	line("")
	p(txRatios)
	p(txFailRate, RatioTextIn(l, s.FailureRate), WilsonTextIn(l, s.FailureRate))
	if s.InFlight > 0 {
		p(txInFlight, lang.N(l, s.InFlight, "attempt", "attempts"))
	}
	p(txPassRate, RatioTextIn(l, s.QualityPassRate), WilsonTextIn(l, s.QualityPassRate), s.UnratedSuccesses)
	line("")
	p(throughputTitle)
	for _, t := range throughputLines(l, s) {
		line("  " + t)
	}
	line("")
	p(txLatency)
	if p95Added(s) {
		line("  " + P95Kept.In(l))
	}
	line("  " + distLine(l, nameTTFT.In(l), s.TTFT))
	ci("    ", s.TTFT)
	if s.TTFTMissing > 0 {
		p(txTTFTMiss, lang.N(l, s.TTFTMissing, "attempt", "attempts"))
	} else {
		p(txTTFTNone)
	}
	line("  " + distLine(l, nameE2E.In(l), s.E2E))
	ci("    ", s.E2E)
	line("  " + distLine(l, eventGapLabel(l, s), s.ITL))
	ci("    ", s.ITL)
	if s.Event.MultiTokenEvents > 0 {
		p(txMultiTok, lang.N(l, s.Event.MultiTokenEvents, "event carries", "events carry"), s.Event.MaxTokensPerEvt)
		line("  " + distLine(l, nameTPOTLong.In(l), s.TPOT))
		ci("    ", s.TPOT)
		if s.Event.TPOTAtFinish > 0 {
			line("    " + tpotEnd(l, s))
		}
	} else {
		if s.Event.Events > 0 && !usageDisagrees(s) {
			p(txOneTok, lang.N(l, s.Event.Events, "event", "events"))
		}
		if s.TPOT.N > 0 && !tpotInServer(s) { // TPOT with its intervals whenever the summary has it
			line("  " + distLine(l, nameTPOTLong.In(l), s.TPOT))
			ci("    ", s.TPOT)
			if s.Event.TPOTAtFinish > 0 {
				line("    " + tpotEnd(l, s))
			}
		}
	}
	for _, t := range ServerLinesIn(l, s) {
		line("  " + t)
	}
	if e := s.Event; usageDisagrees(s) {
		if e.MultiTokenEvents == 0 {
			p(txOneEach, lang.N(l, e.Events, "event", "events"), lang.N(l, e.UsageTokens, "output token", "output tokens"), e.UsageEventTokens)
		} else {
			p(txUsageDiff, lang.N(l, e.UsageTokens, "output token", "output tokens"), e.UsageEventTokens)
		}
	}
	if hasLatency(s) {
		line("")
		p(latencyMethod)
	}
	for _, c := range s.Conditions {
		line("")
		p(txCondition, condName(c), jointRule(l, c))
		p(txQualified, QualifiedTextIn(l, c), wilsonOf(l, c, c.QualifiedRate))
		p(txGoodput, GoodputTextIn(l, c)+GoodputLateTextIn(l, c))
		p(txCost, costText(l, s, c))
		p(txRequests, ratioOf(l, c, c.RequestQualifiedRat), wilsonOf(l, c, c.RequestQualifiedRat))
		if c.Unknown != "" {
			p(txUnknownWhy)
		}
		p(txDrops, dropsText(l, c))
	}
	if s.Spill != nil {
		line("")
		line(spillText(l, s.Spill))
	}
	if bad := notFinite(s); len(bad) > 0 {
		line("")
		line(notFiniteText.F(l, strings.Join(bad, ", ")))
	}
	return b.String()
}

var spillNote = lang.Msg{
	"内存：样本和记录超出了内存预算 %s，已分 %d 段排好序写入临时目录（共 %s），分位数从这些段里按秩选出，数值与全在内存里算的相同；临时目录已删除。",
	"Memory: the samples and records outgrew the memory budget of %s, were written to a temporary directory as %d sorted runs (%s in all), and the percentiles were selected from them by rank, the same numbers as in memory; the directory has been removed.",
}

// spillText is the card's footer when it spilled to disk.
func spillText(l lang.Lang, sp *metrics.Spill) string {
	return spillNote.F(l, mib(sp.BudgetBytes), sp.Runs, mib(sp.Bytes))
}

func mib(n int64) string { return numfmt.MiB(n) }

// The Markdown card's lines and table rows, in order.
var (
	mdTitle     = lang.Msg{"### 指标口径卡 · `%s`", "### Metrics card · `%s`"}
	mdObserved  = lang.Msg{"- 采集点：%s时钟；固定窗口 [%s, %s) ms = %s s；分位算法：%s", "- Observed at: %s clock; fixed window [%s, %s) ms = %s s; percentile method: %s"}
	mdAttempts  = lang.Msg{"- 全部尝试 %d（窗口外另计 %d）；完整成功 %d；失败 %d（%s）；在途 %d", "- All attempts %d (%d outside the window, counted apart); complete successes %d; failures %d (%s); in flight %d"}
	mdFailRate  = lang.Msg{"- 失败率：%s%s", "- Failure rate: %s%s"}
	mdPassRate  = lang.Msg{"- 质量通过率：%s%s；未评分成功 %d", "- Quality pass rate: %s%s; unrated successes %d"}
	mdThrough   = lang.Msg{"- %s：%s", "- %s: %s"}
	mdTTFT      = lang.Msg{"- %s；%s", "- %s; %s"}
	missTTFT    = lang.Msg{"缺失 TTFT %d 次（不是 0）", "missing TTFT %d (not 0)"}
	missTTFT0   = lang.Msg{"缺失 TTFT：无", "missing TTFT: none"}
	mdMultiTok  = lang.Msg{"- 多 token 事件 %d 个；%s", "- Multi-token events: %d; %s"}
	mdMetric    = lang.Msg{"| 指标 |", "| Metric |"}
	rowJoint    = lang.Msg{"联合合格的定义", "Definition of qualified"}
	rowTTFTP95  = lang.Msg{"成功 TTFT P95", "TTFT P95 of successes"}
	rowTPOTP95  = lang.Msg{"成功 TPOT P95", "TPOT P95 of successes"}
	rowE2EP95   = lang.Msg{"成功 E2E P95", "E2E P95 of successes"}
	rowN        = lang.Msg{"（n=%d）", " (n=%d)"}
	rowFailRate = lang.Msg{"失败率", "Failure rate"}
	rowQual     = lang.Msg{"联合合格", "Qualified"}
	rowQualCI   = lang.Msg{"联合合格 95% 区间", "Qualified, 95% interval"}
	noQualCI    = lang.Msg{"无（未评分：合格数未知，没有区间）", "none (unrated: the qualified count is unknown, so no interval)"}
	rowGoodput  = lang.Msg{"goodput", "Goodput"}
	rowCost     = lang.Msg{"每千次合格成本", "Cost per 1000 qualified"}
	rowRequests = lang.Msg{"合格业务请求", "Qualified requests"}
	rowDrops    = lang.Msg{"未合格原因", "Why not qualified"}
	noteBold    = lang.Msg{"- **%s**", "- **%s**"}
)

// mdEscape keeps a string from the trace text, not markup, in a Markdown
// viewer that renders HTML: "<" opens no tag and "&" starts no entity. It
// leaves ">" as written ("cache_n > 0"), which starts no markup mid-line.
var mdEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;")

// markdown is the Markdown card; escapeHTML escapes the trace's strings in
// it (mdEscape) for a viewer, and is false for a caller that escapes the
// whole card once itself (WriteMarkdownForHTML): escaped in one place only.
func markdown(l lang.Lang, s *metrics.Summary, source string, escapeHTML bool) string {
	// The clock and the currency come from the trace's header: as text, not markup, in a viewer
	// that renders HTML in Markdown (escapeHTML; a caller that escapes the whole card passes false).
	esc := func(t string) string { return t }
	if escapeHTML {
		esc = mdEscape.Replace
		e := *s
		e.Clock, e.Currency = esc(s.Clock), esc(s.Currency)
		s = &e
	}
	var b strings.Builder
	p := func(m lang.Msg, a ...any) { b.WriteString(m.F(l, a...) + "\n") }
	line := func(v string) { b.WriteString(v + "\n") }
	p(mdTitle, strings.ReplaceAll(source, "`", "'"))
	line("")
	p(mdObserved, ClockNameIn(l, s.Clock), num(s.Window.StartMS), num(s.Window.EndMS), num(s.WindowS), MethodNameIn(l, s.PercentileMethod))
	for _, n := range notes(l, s) {
		p(noteBold, n)
	}
	p(mdAttempts, s.Attempts, s.OutsideWindow, s.CompleteSuccess, s.Failures, outcomeList(l, s), s.InFlight)
	if sl := sendsLines(l, s); sl != nil {
		line("- " + strings.Join(sl, clauseSep.In(l)))
	}
	p(mdFailRate, RatioTextIn(l, s.FailureRate), WilsonTextIn(l, s.FailureRate))
	if s.InFlight > 0 {
		line("  - " + strings.TrimSpace(txInFlight.F(l, lang.N(l, s.InFlight, "attempt", "attempts"))))
	}
	p(mdPassRate, RatioTextIn(l, s.QualityPassRate), WilsonTextIn(l, s.QualityPassRate), s.UnratedSuccesses)
	p(mdThrough, throughputTitle.In(l), strings.Join(throughputLines(l, s), clauseSep.In(l)))
	ci := func(d metrics.Dist) {
		if c := CILineIn(l, d); c != "" {
			line("  - " + c)
		}
	}
	if p95Added(s) {
		line("- " + P95Kept.In(l))
	}
	p(mdTTFT, distLine(l, nameTTFT.In(l), s.TTFT), MissingTTFTIn(l, s.TTFTMissing))
	ci(s.TTFT)
	line("- " + distLine(l, nameE2E.In(l), s.E2E))
	ci(s.E2E)
	line("- " + distLine(l, eventGapLabel(l, s), s.ITL))
	ci(s.ITL)
	if e := s.Event; usageDisagrees(s) {
		if e.MultiTokenEvents == 0 {
			line("- " + strings.TrimSpace(txOneEach.F(l, lang.N(l, e.Events, "event", "events"), lang.N(l, e.UsageTokens, "output token", "output tokens"), e.UsageEventTokens)))
		} else {
			line("- " + strings.TrimSpace(txUsageDiff.F(l, lang.N(l, e.UsageTokens, "output token", "output tokens"), e.UsageEventTokens)))
		}
	}
	if s.Event.MultiTokenEvents > 0 {
		p(mdMultiTok, s.Event.MultiTokenEvents, distLine(l, "TPOT", s.TPOT))
		ci(s.TPOT)
		if s.Event.TPOTAtFinish > 0 {
			line("  " + tpotEnd(l, s))
		}
	} else if s.TPOT.N > 0 && !tpotInServer(s) { // TPOT with its intervals whenever the summary has it
		line("- " + distLine(l, nameTPOTLong.In(l), s.TPOT))
		ci(s.TPOT)
		if s.Event.TPOTAtFinish > 0 {
			line("  - " + tpotEnd(l, s))
		}
	}
	for _, t := range ServerLinesIn(l, s) {
		if strings.HasPrefix(t, "  ") { // an interval line under the line before it
			line("  - " + esc(strings.TrimSpace(t)))
			continue
		}
		line("- " + esc(t)) // attempt ids and bad values come from the trace
	}
	line("")
	head := mdMetric.In(l)
	sep := "|---|"
	for _, c := range s.Conditions {
		head += " " + condName(c) + " |"
		sep += "---|"
	}
	line(head)
	line(sep)
	row := func(name lang.Msg, f func(c metrics.Condition) string) {
		r := "| " + name.In(l) + " |"
		for _, c := range s.Conditions {
			r += " " + f(c) + " |"
		}
		line(r)
	}
	if hasLatency(s) {
		row(rowJoint, func(c metrics.Condition) string { return jointRule(l, c) })
	}
	row(rowTTFTP95, func(metrics.Condition) string { return optMS(l, s.TTFT.P95) + rowN.F(l, s.TTFT.N) })
	if judgesE2E(s) { // a condition with an E2E SLO: its distribution beside the SLO's
		row(rowE2EP95, func(metrics.Condition) string { return optMS(l, s.E2E.P95) + rowN.F(l, s.E2E.N) })
	}
	if s.TPOT.N > 0 { // beside TTFT's, as the bullets above give both with their intervals
		row(rowTPOTP95, func(metrics.Condition) string {
			if s.TPOT.P95 == nil {
				return noSample.In(l) + rowN.F(l, s.TPOT.N)
			}
			return num(*s.TPOT.P95) + " " + numfmt.UnitMSPerToken + rowN.F(l, s.TPOT.N)
		})
	}
	row(rowFailRate, func(metrics.Condition) string { return RatioTextIn(l, s.FailureRate) })
	row(rowQual, func(c metrics.Condition) string { return QualifiedTextIn(l, c) })
	row(rowQualCI, func(c metrics.Condition) string {
		if c.Unknown != "" { // a cell that says why it is empty
			return noQualCI.In(l)
		}
		return strings.TrimPrefix(wilsonOf(l, c, c.QualifiedRate), ciIntervalP.In(l))
	})
	row(rowGoodput, func(c metrics.Condition) string { return GoodputTextIn(l, c) + GoodputLateTextIn(l, c) })
	row(rowCost, func(c metrics.Condition) string { return costText(l, s, c) })
	row(rowRequests, func(c metrics.Condition) string { return ratioOf(l, c, c.RequestQualifiedRat) })
	if hasLatency(s) {
		row(rowDrops, func(c metrics.Condition) string {
			return dropsText(l, c)
		})
		line("")
		p(latencyMethod)
	}
	if s.Spill != nil {
		line("")
		line(spillText(l, s.Spill))
	}
	if bad := notFinite(s); len(bad) > 0 {
		line("")
		line(notFiniteText.F(l, strings.Join(bad, ", ")))
	}
	return b.String()
}

var (
	statusCount      = lang.Msg{"%s ×%d", "%s ×%d"}
	statusUnrecorded = lang.Msg{"未记录状态 %d", "status not recorded %d"}
	statusOpen       = lang.Msg{"（", " ("}
	statusClose      = lang.Msg{"）", ")"}
)

// OutcomeCountIn is outcome o's name and count in s, in l; http_error is
// split by the statuses its attempts recorded (Summary.HTTPStatusCounts,
// in numeric order), and those without one are counted as unrecorded,
// never given a status: "HTTP error 24 (429 ×16, 503 ×8)".
func OutcomeCountIn(l lang.Lang, s *metrics.Summary, o trace.Outcome) string {
	n := s.Outcomes[o.String()]
	out := fmt.Sprintf("%s %d", OutcomeNameIn(l, o), n)
	if o != trace.HTTPError {
		return out
	}
	codes := slices.Collect(maps.Keys(s.HTTPStatusCounts))
	slices.SortFunc(codes, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	var parts []string
	rest := n
	for _, c := range codes {
		parts = append(parts, statusCount.F(l, c, s.HTTPStatusCounts[c]))
		rest -= s.HTTPStatusCounts[c]
	}
	if rest > 0 {
		parts = append(parts, statusUnrecorded.F(l, rest))
	}
	if len(parts) == 0 {
		return out
	}
	return out + statusOpen.In(l) + strings.Join(parts, listSep.In(l)) + statusClose.In(l)
}
