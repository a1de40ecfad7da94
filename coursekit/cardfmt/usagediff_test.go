package cardfmt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// llama.cpp without per-chunk usage: every text event counts as one token,
// but the final usage counts a token that produced no text (the end of
// sequence). The card must not call the gaps ITL in one line and deny it
// in the next.
func TestEventsAgainstUsageDoNotContradict(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}}}
	for i, n := range []int{3, 4} {
		a := trace.Attempt{ID: string(rune('a' + i)), Request: string(rune('a' + i)), StartMS: float64(i * 1000), Outcome: trace.OK}
		for k := 0; k < n; k++ {
			a.Events = append(a.Events, trace.Event{TMS: a.StartMS + 100 + float64(k)*20, Tokens: 1})
		}
		a.EndMS, a.HasEnd = a.Events[n-1].TMS+5, true
		a.OutputTokens = n + 1 // one token without text
		tr.Attempts = append(tr.Attempts, a)
	}
	s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}})
	for _, f := range []Format{Text, Markdown} {
		var b bytes.Buffer
		if err := Write(&b, s, "t.jsonl", f); err != nil {
			t.Fatal(err)
		}
		card := b.String()
		for _, bad := range []string{"即 ITL", "每个事件恰好 1 个 token"} {
			if strings.Contains(card, bad) {
				t.Errorf("%s card says %q although the server counts 9 tokens for 7 events:\n%s", f, bad, card)
			}
		}
		// The caveat is the run's (the report's timeline of one request
		// whose events carry all its tokens calls its gaps token gaps).
		for _, want := range []string{"不等于 ITL", "服务端报告输出 9 个 token，事件只对应 7 个", "整次运行的事件间隔合起来不等于 token 间隔（ITL）", "单个请求里，二者相等"} {
			if !strings.Contains(card, want) {
				t.Errorf("%s card lacks %q:\n%s", f, want, card)
			}
		}
	}
}
