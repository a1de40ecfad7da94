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
	trace.NoResponse:   {"无响应", "no response"},
	trace.HTTPError:    {"HTTP 错误", "HTTP error"},
	trace.StreamError:  {"流中途断开", "stream broken"},
	trace.EmptyOutput:  {"空输出", "empty output"},
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

// EventGap is the card's name for the gap between two streamed events, as
// a chart labels one: ITL only when each event carries one token (the
// card's gap names say which), so never "ITL" on its own.
var EventGap = lang.Msg{"事件间隔", "event gap"}

var (
	gapMultiToken = lang.Msg{"事件间隔（有事件带多个 token，不是 ITL）", "Event gaps (some events carry several tokens: not ITL)"}
	gapOneToken   = lang.Msg{"事件间隔（每个事件 1 个 token，即 ITL）", "Event gaps (1 token per event: ITL)"}
	gapUsageDiff  = lang.Msg{"事件间隔（整次运行与服务端报告的 token 数对不上，合起来不等于 ITL）", "Event gaps (across the run they do not match the server's token count: not ITL as a whole)"}
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

var (
	costUnitShort           = lang.Msg{"%s/千次合格", "%s/1000 qualified"}
	costUnitShortNoCurrency = lang.Msg{"/千次合格", "/1000 qualified"}
	// NoCurrency is what a view that prints costs with CostUnitShortIn
	// says once when the trace records no currency.
	NoCurrency = lang.Msg{"trace 未记录币种", "no currency recorded"}
)

// CostUnitShortIn is the unit of a cost per 1,000 qualified attempts as a
// chart's labels print it after the number: 元/千次合格, CNY/1000
// qualified, or /千次合格 and /1000 qualified when the trace records no
// currency (the chart says NoCurrency once, not on every label).
func CostUnitShortIn(l lang.Lang, code string) string {
	if strings.TrimSpace(code) == "" {
		return costUnitShortNoCurrency.In(l)
	}
	return costUnitShort.F(l, CurrencyNameIn(l, code))
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

// EventGapLabelIn is how the card of s names its event gaps in l: ITL only
// when every event carries one token and the servers' usage agrees.
func EventGapLabelIn(l lang.Lang, s *metrics.Summary) string { return eventGapLabel(l, s) }

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

// errorKinds explain the error texts the course's traces carry, from its
// client (coursekit/loadgen), its practice traces (coursekit/tracegen) and
// Go's net and HTTP packages, matched by a fragment of the lower-cased text
// in this order. An HTTP status is explained by errorStatus first.
var errorKinds = []struct {
	fragment string
	name     lang.Msg
}{
	{"connection closed before any response", lang.Msg{"无响应：请求已完整发出，服务端在回答前关闭了连接（崩溃或丢弃了这个请求）", "no response: the request went out whole and the server closed the connection before answering (it crashed or dropped the request)"}},
	{"connection refused", lang.Msg{"连接被拒绝：那个地址和端口上没有服务在监听（没有启动、已经停止或端口写错）", "connection refused: nothing listens on that address and port (not started, stopped, or a wrong port)"}},
	{"no first token", lang.Msg{"首字前超时：超时时限内没有等到第一个输出，客户端放弃了这次尝试", "timeout before the first output: nothing arrived within the time limit, the client gave up"}},
	{"stream not finished", lang.Msg{"首字后超时：已经开始输出，但在时限内没有结束，客户端放弃了", "timeout after the first output: the stream did not finish within the time limit"}},
	{"reset by peer", lang.Msg{"连接被重置：服务端或中间的代理中途断开了连接，输出没有完整到达", "connection reset: the server or a proxy cut the connection, the output did not arrive whole"}},
	{"client cancelled", lang.Msg{"客户端取消：客户端自己放弃了这次尝试", "cancelled by the client"}},
	{"before [done]", lang.Msg{"流在结束标记 [DONE] 之前断开：输出不完整", "the stream broke before its [DONE] marker: the output is incomplete"}},
	{"without any output text", lang.Msg{"空输出：服务端正常结束了流，但没有任何输出文本（例如模型第一个 token 就是结束符）", "empty output: the server ended the stream correctly, but without any output text (e.g. the model's first token was its end-of-sequence token)"}},
	{"malformed sse", lang.Msg{"SSE 消息格式错误：客户端无法解析服务端发来的一条消息", "malformed SSE message: the client could not parse a message"}},
	{"error in stream", lang.Msg{"服务端在流中报告了错误：输出中途停止", "the server reported an error inside the stream"}},
	{"not an sse stream", lang.Msg{"响应不是 SSE 流：服务端没有按流式返回", "the response is not an SSE stream: the server did not stream"}},
	{"interrupted", lang.Msg{"运行被中断时这次尝试还没有结束", "still running when the run was interrupted"}},
	{"no such host", lang.Msg{"找不到主机：地址写错，或名字解析不可用", "no such host: a wrong address, or name resolution is unavailable"}},
	{"i/o timeout", lang.Msg{"网络读写超时：网络上迟迟没有数据", "network i/o timeout"}},
	{"deadline exceeded", lang.Msg{"超时：超过了时限", "deadline exceeded"}},
	{"eof", lang.Msg{"连接意外关闭：数据还没收完，连接就断了", "the connection closed unexpectedly before all data arrived"}},
}

var (
	errorOther   = lang.Msg{"其他错误：见原文", "another error: see the raw text"}
	error429     = lang.Msg{"请求过多（HTTP 429）：服务端限流，拒绝了这次请求", "too many requests (HTTP 429): the server rate-limited this request"}
	error500     = lang.Msg{"服务端内部错误（HTTP 500）：服务端处理时出错，没有给出回答", "internal server error (HTTP 500): the server failed and gave no answer"}
	error503     = lang.Msg{"服务暂时不可用（HTTP 503）：常见于过载或正在重启", "service unavailable (HTTP 503): often overload or a restart"}
	error5xx     = lang.Msg{"服务端错误（HTTP 5xx）：服务端或网关出错，没有给出回答", "server error (HTTP 5xx): the server or a gateway failed"}
	error4xx     = lang.Msg{"请求被拒绝（HTTP 4xx）：服务端认为请求本身有问题（地址、参数或鉴权）", "request rejected (HTTP 4xx): the server found the request itself wrong (path, parameters or auth)"}
	errorHTTPMsg = lang.Msg{"HTTP %d 错误", "HTTP error %d"}
)

// ErrorKind explains in Chinese what kind of error an attempt's error text
// is (connection refused, a timeout before the first output, a reset, an
// HTTP 5xx, ...), for a column beside the raw text, which a table keeps as
// the trace has it. No error gives "".
func ErrorKind(a *trace.Attempt) string { return ErrorKindIn(lang.ZH, a) }

// ErrorKindIn is ErrorKind in l.
func ErrorKindIn(l lang.Lang, a *trace.Attempt) string {
	if a.Error == "" {
		return ""
	}
	if a.Outcome == trace.HTTPError || a.HTTPStatus >= 400 {
		switch s := a.HTTPStatus; {
		case s == 429:
			return error429.In(l)
		case s == 500:
			return error500.In(l)
		case s == 503:
			return error503.In(l)
		case s >= 500 && s < 600:
			return error5xx.In(l)
		case s >= 400 && s < 500:
			return error4xx.In(l)
		case s > 0:
			return errorHTTPMsg.F(l, s)
		}
	}
	low := strings.ToLower(a.Error)
	for _, k := range errorKinds {
		if strings.Contains(low, k.fragment) {
			return k.name.In(l)
		}
	}
	return errorOther.In(l)
}
