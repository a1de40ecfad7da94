package cardfmt

import (
	"strings"

	"github.com/llmperf-course/course/coursekit/trace"
)

// Chinese names for the trace's codes, for every text a learner reads (the
// text card, notebooks' tables): the trace and the JSON keep the English
// codes, which are the format, not the lesson.

// OutcomeName is how an attempt ended, in Chinese.
func OutcomeName(o trace.Outcome) string {
	switch o {
	case trace.OK:
		return "完整成功"
	case trace.Timeout:
		return "超时"
	case trace.ConnectError:
		return "连接失败"
	case trace.HTTPError:
		return "HTTP 错误"
	case trace.StreamError:
		return "流中途断开"
	case trace.Cancelled:
		return "已取消"
	case trace.InFlight:
		return "在途"
	}
	return "未知结果"
}

// OutcomeNameAt is OutcomeName with the one distinction the unit cares
// about for a timeout: whether the first output had arrived (before it,
// TTFT is missing).
func OutcomeNameAt(o trace.Outcome, hadFirstOutput bool) string {
	if o == trace.Timeout {
		if hadFirstOutput {
			return "首字后超时"
		}
		return "首字前超时"
	}
	return OutcomeName(o)
}

// QualityName is a quality rating in Chinese; unrated says so (it is never
// a pass).
func QualityName(q trace.Quality) string {
	switch q {
	case trace.Pass:
		return "通过"
	case trace.Fail:
		return "不通过"
	}
	return "未评"
}

// CurrencyName is how a trace's currency code reads in Chinese text:
// CNY is 元.
func CurrencyName(code string) string {
	switch strings.ToUpper(strings.TrimSpace(code)) {
	case "CNY", "RMB":
		return "元"
	case "USD":
		return "美元"
	case "EUR":
		return "欧元"
	}
	return code
}

// ClockName is whose clock stamped a trace, in Chinese.
func ClockName(clock string) string {
	switch clock {
	case "client":
		return "客户端"
	case "server":
		return "服务端"
	}
	return clock
}

// EventGapName labels the distribution of gaps between streamed events with
// what was measured. The source defines ITL over adjacent output tokens, so
// event gaps are ITL only when every event carries exactly one token; when
// some carry several the label says that these are not ITL.
func EventGapName(multiTokenEvents int64) string {
	if multiTokenEvents > 0 {
		return "事件间隔（有事件带多个 token，不是 ITL）"
	}
	return "事件间隔（每个事件 1 个 token，即 ITL）"
}
