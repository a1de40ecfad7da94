package cardfmt

import (
	"bytes"
	"strings"
	"testing"

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
	for _, want := range []string{"观察点：客户端时钟", "失败：2（超时 1、连接失败 1）", "0.02 元 / 5 × 1000 = 4 元 / 千次合格"} {
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
