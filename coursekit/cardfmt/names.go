package cardfmt

import (
	"strings"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Names for the trace's codes, for every text a person reads (the text
// card, notebooks' tables), in Chinese and English side by side: the trace
// and the JSON keep the codes, which are the format, not the lesson.

var outcomeNames = map[trace.Outcome]lang.Msg{
	trace.OK:           {"完整成功", "complete success"},
	trace.Timeout:      {"超时", "timeout"},
	trace.ConnectError: {"连接失败", "connect error"},
	trace.HTTPError:    {"HTTP 错误", "HTTP error"},
	trace.StreamError:  {"流中途断开", "stream broken"},
	trace.Cancelled:    {"已取消", "cancelled"},
	trace.InFlight:     {"在途", "in flight"},
}

var (
	unknownOutcome     = lang.Msg{"未知结果", "unknown outcome"}
	timeoutAfterFirst  = lang.Msg{"首字后超时", "timeout after first output"}
	timeoutBeforeFirst = lang.Msg{"首字前超时", "timeout before first output"}
)

var qualityNames = map[trace.Quality]lang.Msg{
	trace.Pass:    {"通过", "pass"},
	trace.Fail:    {"不通过", "fail"},
	trace.Unrated: {"未评", "unrated"},
}

var currencyNames = map[string]lang.Msg{
	"CNY": {"元", "CNY"},
	"RMB": {"元", "CNY"},
	"USD": {"美元", "USD"},
	"EUR": {"欧元", "EUR"},
}

var methodNames = map[metrics.Method]lang.Msg{
	metrics.NearestRank: {"最近秩", "nearest-rank"},
	metrics.Linear:      {"线性插值", "linear"},
}

var clockNames = map[string]lang.Msg{
	"client": {"客户端", "client"},
	"server": {"服务端", "server"},
}

var (
	gapMultiToken = lang.Msg{"事件间隔（有事件带多个 token，不是 ITL）", "Event gaps (some events carry several tokens: not ITL)"}
	gapOneToken   = lang.Msg{"事件间隔（每个事件 1 个 token，即 ITL）", "Event gaps (1 token per event: ITL)"}
	gapUsageDiff  = lang.Msg{"事件间隔（与服务端报告的 token 数对不上，不等于 ITL）", "Event gaps (they do not match the server's token count: not ITL)"}
)

// OutcomeName is how an attempt ended, in Chinese.
func OutcomeName(o trace.Outcome) string { return OutcomeNameIn(lang.ZH, o) }

// OutcomeNameIn is OutcomeName in l.
func OutcomeNameIn(l lang.Lang, o trace.Outcome) string {
	if m, ok := outcomeNames[o]; ok {
		return m.In(l)
	}
	return unknownOutcome.In(l)
}

// OutcomeNameAt is OutcomeName with the one distinction the unit cares
// about for a timeout: whether the first output had arrived (before it,
// TTFT is missing).
func OutcomeNameAt(o trace.Outcome, hadFirstOutput bool) string {
	return OutcomeNameAtIn(lang.ZH, o, hadFirstOutput)
}

// OutcomeNameAtIn is OutcomeNameAt in l.
func OutcomeNameAtIn(l lang.Lang, o trace.Outcome, hadFirstOutput bool) string {
	if o == trace.Timeout {
		if hadFirstOutput {
			return timeoutAfterFirst.In(l)
		}
		return timeoutBeforeFirst.In(l)
	}
	return OutcomeNameIn(l, o)
}

// QualityName is a quality rating in Chinese; unrated says so (it is never
// a pass).
func QualityName(q trace.Quality) string { return QualityNameIn(lang.ZH, q) }

// QualityNameIn is QualityName in l.
func QualityNameIn(l lang.Lang, q trace.Quality) string {
	if m, ok := qualityNames[q]; ok {
		return m.In(l)
	}
	return qualityNames[trace.Unrated].In(l)
}

// CurrencyName is how a trace's currency code reads in Chinese text:
// CNY is 元.
func CurrencyName(code string) string { return CurrencyNameIn(lang.ZH, code) }

// CurrencyNameIn is CurrencyName in l; English keeps the ISO code.
func CurrencyNameIn(l lang.Lang, code string) string {
	if m, ok := currencyNames[strings.ToUpper(strings.TrimSpace(code))]; ok {
		return m.In(l)
	}
	return code
}

// MethodName is a percentile method in Chinese: 最近秩 (nearest-rank) or
// 线性插值 (linear). The card's JSON and the CLI keep the identifiers.
func MethodName(m metrics.Method) string { return MethodNameIn(lang.ZH, m) }

// MethodNameIn is MethodName in l; English keeps the identifier.
func MethodNameIn(l lang.Lang, m metrics.Method) string {
	if n, ok := methodNames[m]; ok {
		return n.In(l)
	}
	return string(m)
}

var (
	costUnit           = lang.Msg{"%s/千次合格", "%s per 1000 qualified"}
	costUnitNoCurrency = lang.Msg{"（未记录币种）/千次合格", "(no currency recorded) per 1000 qualified"}
)

// CostUnit is the unit of a cost per 1,000 qualified attempts in Chinese,
// 元/千次合格 for CNY: a cost printed with the bare currency reads as a
// total.
func CostUnit(code string) string { return CostUnitIn(lang.ZH, code) }

// CostUnitIn is CostUnit in l.
func CostUnitIn(l lang.Lang, code string) string {
	if strings.TrimSpace(code) == "" {
		return costUnitNoCurrency.In(l)
	}
	return costUnit.F(l, CurrencyNameIn(l, code))
}

// ClockName is whose clock stamped a trace, in Chinese.
func ClockName(clock string) string { return ClockNameIn(lang.ZH, clock) }

// ClockNameIn is ClockName in l.
func ClockNameIn(l lang.Lang, clock string) string {
	if m, ok := clockNames[clock]; ok {
		return m.In(l)
	}
	return clock
}

// EventGapName labels the distribution of gaps between streamed events with
// what was measured. The source defines ITL over adjacent output tokens, so
// event gaps are ITL only when every event carries exactly one token; when
// some carry several the label says that these are not ITL.
func EventGapName(multiTokenEvents int64) string { return EventGapNameIn(lang.ZH, multiTokenEvents) }

// eventGapLabel is EventGapNameIn for a summary: events counted at one
// token each whose total the server's usage contradicts (a token with no
// text, such as the end-of-sequence one) are not token gaps either.
func eventGapLabel(l lang.Lang, s *metrics.Summary) string {
	if e := s.Event; e.MultiTokenEvents == 0 && usageDisagrees(s) {
		return gapUsageDiff.In(l)
	}
	return EventGapNameIn(l, s.Event.MultiTokenEvents)
}

// usageDisagrees says the server reported output tokens that the events
// do not carry.
func usageDisagrees(s *metrics.Summary) bool { return UsageDisagrees(s) }

// UsageDisagrees says the servers' usage counts output tokens that the
// events do not carry: then event gaps are not token gaps (ITL), even when
// each event was counted as one token.
func UsageDisagrees(s *metrics.Summary) bool {
	e := s.Event
	return e.UsageTokens > 0 && e.UsageTokens != e.UsageEventTokens
}

// EventGapNameIn is EventGapName in l.
func EventGapNameIn(l lang.Lang, multiTokenEvents int64) string {
	if multiTokenEvents > 0 {
		return gapMultiToken.In(l)
	}
	return gapOneToken.In(l)
}
