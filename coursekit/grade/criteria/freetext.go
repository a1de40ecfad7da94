package criteria

import (
	"strings"

	"github.com/llmperf-course/course/coursekit/card"
)

// ManualText is the free-text answer of criterion id on card c ("" for
// a criterion that is not free text).
func ManualText(id string, c *card.Card) string {
	switch id {
	case "stream.aggregation":
		return c.Streaming.Aggregation
	case "text.counter_evidence":
		return c.CounterEvidence
	case "text.denominator":
		return c.DenominatorError
	case "text.uncertain":
		return c.Uncertain
	case "text.outputs":
		if strings.TrimSpace(c.Outputs.Training) == "" && strings.TrimSpace(c.Outputs.Inference) == "" {
			return ""
		}
		return "训练：" + c.Outputs.Training + "\n推理：" + c.Outputs.Inference
	}
	return ""
}

// keywordGroups: the ideas a good answer tends to name. The assist score
// is the share of groups named; it orders the reader's queue, nothing more.
var keywordGroups = map[string][][]string{
	"text.counter_evidence": {{"排队", "队列", "queue"}, {"超时", "timeout"}, {"ttft", "首字", "首 token", "首个 token"}, {"失败", "fail", "错误"}, {"时间线", "timeline", "等待", "wait"}},
	"text.denominator":      {{"分母", "denominator"}, {"全部尝试", "所有尝试", "全部请求", "attempt", "10 次"}, {"失败", "fail"}, {"删", "成功请求", "成功的请求", "只在成功"}, {"假结论", "错误结论", "为零", "0/", "误"}},
	"text.outputs":          {{"检查点", "checkpoint", "参数", "权重", "weight", "模型状态"}, {"回答", "响应", "response", "请求", "request"}, {"质量", "quality", "合格"}, {"更新", "update", "梯度"}, {"等待", "失败", "时延", "延迟", "latency"}},
	"stream.aggregation":    {{"事件", "event"}, {"间隔", "interval", "itl"}, {"相邻"}, {"分位", "p95", "p50", "nearest", "中位", "平均"}, {"成功"}},
	"text.uncertain":        {{"不确定", "不清楚", "不知道", "是否", "unsure"}, {"样本", "窗口", "条件", "版本", "p95"}, {"证据", "验证", "记录", "需要"}},
}

// KeywordAssist is the share of keywordGroups an answer to criterion id
// names, and the words found: it orders the reader's queue, never a score.
func KeywordAssist(id, text string) (float64, []string) {
	groups := keywordGroups[id]
	if len(groups) == 0 {
		return 0, nil
	}
	low := strings.ToLower(text)
	var hits []string
	for _, g := range groups {
		for _, w := range g {
			if strings.Contains(low, w) {
				hits = append(hits, w)
				break
			}
		}
	}
	return Round2(float64(len(hits)) / float64(len(groups))), hits
}
