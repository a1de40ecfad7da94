package cardfmt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

func TestNamesAreChineseAndDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range trace.Outcomes {
		n := OutcomeName(o)
		if n == o.String() || seen[n] {
			t.Errorf("%v reads %q", o, n)
		}
		seen[n] = true
	}
	for code, want := range map[string]string{"CNY": "元", "rmb": "元", "USD": "美元", "EUR": "欧元", "JPY": "JPY", "": ""} {
		if got := CurrencyName(code); got != want {
			t.Errorf("CurrencyName(%q) = %q, want %q", code, got, want)
		}
	}
	if ClockName("client") != "客户端" || ClockName("server") != "服务端" || ClockName("gpu") != "gpu" {
		t.Error("clock names")
	}
}

// The text card names outcomes, clock and currency in Chinese: the unit's
// trace has a timeout, a refused connection and a cost in CNY.
func TestTextCardSpeaksChinese(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}}), "trace.jsonl", Text); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"采集点：客户端时钟", "失败：2（超时 1、连接失败 1）", "0.02 元 / 5 × 1000 = 4 元 / 千次合格"} {
		if !strings.Contains(out, want) {
			t.Errorf("text card lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"CNY", "timeout", "connect_error", "client 时钟"} {
		if strings.Contains(out, bad) {
			t.Errorf("text card shows %q", bad)
		}
	}
}

// Known error texts, from the course's traces, its client and Go's net
// package, are explained in Chinese; the raw text stays the trace's.
func TestErrorKindExplainsKnownErrors(t *testing.T) {
	for _, c := range []struct {
		a    trace.Attempt
		want string
	}{
		{trace.Attempt{Outcome: trace.ConnectError, Error: "connect: connection refused"}, "连接被拒绝"},
		{trace.Attempt{Outcome: trace.ConnectError, Error: `Post "http://127.0.0.1:9/v1/completions": dial tcp 127.0.0.1:9: connect: connection refused`}, "连接被拒绝"},
		{trace.Attempt{Outcome: trace.Timeout, Error: "no first token within 2500 ms; client gave up"}, "首字前超时"},
		{trace.Attempt{Outcome: trace.Timeout, Error: "no first token within the 2s timeout"}, "首字前超时"},
		{trace.Attempt{Outcome: trace.Timeout, Error: "stream not finished within the 2s timeout"}, "首字后超时"},
		{trace.Attempt{Outcome: trace.StreamError, HTTPStatus: 200, Error: "stream reset by peer after HTTP 200"}, "连接被重置"},
		{trace.Attempt{Outcome: trace.StreamError, Error: "read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer"}, "连接被重置"},
		{trace.Attempt{Outcome: trace.HTTPError, HTTPStatus: 500, Error: "HTTP 500"}, "服务端内部错误"},
		{trace.Attempt{Outcome: trace.HTTPError, HTTPStatus: 503, Error: "503 Service Unavailable: overloaded"}, "服务暂时不可用"},
		{trace.Attempt{Outcome: trace.HTTPError, HTTPStatus: 502, Error: "HTTP 502"}, "服务端错误（HTTP 5xx）"},
		{trace.Attempt{Outcome: trace.HTTPError, HTTPStatus: 429, Error: "HTTP 429"}, "限流"},
		{trace.Attempt{Outcome: trace.HTTPError, HTTPStatus: 400, Error: "400 Bad Request: bad json"}, "请求被拒绝"},
		{trace.Attempt{Outcome: trace.Cancelled, Error: "client cancelled"}, "客户端取消"},
		{trace.Attempt{Outcome: trace.StreamError, Error: "stream ended before [DONE]"}, "结束标记"},
		{trace.Attempt{Outcome: trace.StreamError, Error: "stream ended before [DONE]: the connection closed mid-stream (unexpected EOF)"}, "结束标记"},
		{trace.Attempt{Outcome: trace.EmptyOutput, Error: "[DONE] without any output text"}, "空输出"},
		{trace.Attempt{Outcome: trace.EmptyOutput, Error: "stream ended after a finish_reason without any output text"}, "空输出"},
		{trace.Attempt{Outcome: trace.StreamError, Error: "malformed SSE message: invalid character: {x"}, "格式错误"},
		{trace.Attempt{Outcome: trace.StreamError, Error: "error in stream: boom"}, "流中报告了错误"},
		{trace.Attempt{Outcome: trace.StreamError, Error: `the response is text/html, not an SSE stream: the server ignored "stream": true`}, "不是 SSE 流"},
		{trace.Attempt{Outcome: trace.InFlight, Error: "still running when the run was interrupted"}, "中断"},
		{trace.Attempt{Outcome: trace.StreamError, Error: "unexpected EOF"}, "连接意外关闭"},
		{trace.Attempt{Outcome: trace.StreamError, Error: "something nobody has seen"}, "其他错误"},
	} {
		got := ErrorKind(&c.a)
		if !strings.Contains(got, c.want) {
			t.Errorf("%q: got %q, want it to say %q", c.a.Error, got, c.want)
		}
		if got == c.a.Error || !strings.ContainsFunc(got, func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff }) {
			t.Errorf("%q: %q is not a Chinese explanation", c.a.Error, got)
		}
	}
	if got := ErrorKind(&trace.Attempt{Outcome: trace.OK}); got != "" {
		t.Errorf("no error: got %q, want empty", got)
	}
	if got := ErrorKindIn(lang.EN, &trace.Attempt{Outcome: trace.ConnectError, Error: "connect: connection refused"}); !strings.Contains(got, "refused") {
		t.Errorf("English: %q", got)
	}
}
