package cardfmt

import (
	"fmt"

	"github.com/llmperf-course/course/coursekit/metrics"
)

const throughputTitle = "吞吐（分子 / 分母 = 值；分母是固定窗口，与 goodput 相同，尝试按发送时刻计入）"

// throughputLines are the request and token throughput rows.
func throughputLines(s *metrics.Summary) []string {
	t := s.Throughput
	rate := func(r metrics.Ratio, what, unit string) string {
		v := "无（窗口为 0）"
		if r.Value != nil {
			v = num(*r.Value) + " " + unit
		}
		return fmt.Sprintf("%s：%s / %s s = %s", what, num(r.Num), num(r.Den), v)
	}
	return []string{
		rate(t.CompleteSuccesses, "完整成功吞吐", "次/s"),
		rate(t.Attempts, "尝试吞吐（含失败）", "次/s"),
		rate(t.OutputTokens, "输出 token 吞吐（只算完整成功）", "token/s"),
	}
}
