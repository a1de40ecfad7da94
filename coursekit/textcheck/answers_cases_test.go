package textcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/unit01"
)

// answerRows are the cases of every check of the unit, one row a check,
// keyed by notebook and label. The values are computed with the helper
// the cell calls. The labs' checks (07–10) are coursekit/unit01's
// functions, typed their answers in that package's test.
func answerRows(t *testing.T) []answerRow {
	read := func(name string) *trace.Trace {
		tr, err := trace.ReadFile(filepath.Join(repo, "data", "unit01", name))
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	unit, timeline, practice := read("trace.jsonl"), read("timeline.jsonl"), read("practice.jsonl")
	ms := func(v float64, _ bool) float64 { return v }

	// 02: the timeline of Fig. 01.2 and R1 of the unit's trace.
	a := &timeline.Attempts[0]
	sum := ms(a.TTFT())
	for _, g := range a.EventIntervals(nil) {
		sum += g
	}
	paused := timeline.Attempts[0].WithPause(1, 2000)
	r1 := &unit.Attempts[0]

	// 03 and 04: the card at the unit's thresholds.
	s := metrics.Summarize(unit, metrics.Options{SLOsMS: []float64{1000}})
	at2s := metrics.Summarize(unit, metrics.Options{SLOsMS: []float64{2000}}).Conditions[0]
	s45 := metrics.Summarize(unit, metrics.Options{SLOsMS: []float64{1000, 500}})
	old, now := s45.Conditions[0], s45.Conditions[1]
	h := unit01.TighterSLOHints(unit, 500)
	h04 := vals{"h.Below.Qualified": h.Below.Qualified, "h.Below.CostPer1000": h.Below.CostPer1000, "h.Strict": h.Strict, "h.Stay": h.Stay,
		"h.PerQualified": h.PerQualified, "h.PerQualifiedText": h.PerQualifiedText}
	deleted := metrics.Summarize(unit.WithoutFailures(), metrics.Options{})
	var zeros []float64
	for i := range unit.Attempts {
		v, _ := unit.Attempts[i].TTFT()
		zeros = append(zeros, v) // 0 where missing: the mistake C demonstrates
	}
	rates := nb.PerSecond(unit, 1000)
	at300 := nb.AtSLO(unit, 300)
	goodputAt := func(slo any) any {
		return metrics.Summarize(unit, metrics.Options{SLOsMS: []float64{slo.(float64)}}).Conditions[0].GoodputPerS
	}

	// 05: the tools' readings.
	merged := timeline.Attempts[0].WithEventTokens(1, 3)
	vllmTPOT, _ := metrics.VLLMTPOT(a)
	r3TPOT, _ := metrics.VLLMTPOT(&unit.Attempts[2])

	return []answerRow{
		// 01: an observation placed back on the system.
		{file: "01-draw-the-system.ipynb", label: "CheckObservation", judge: judgeObservation, cases: cases(
			right(observation("推理", "推理层", "每个请求的首字时间"),
				observation("推理", "推理层", "逐请求的 TTFT 与 E2E"),
				observation("推理", "推理层", "每次尝试的结果：成功、失败还是超时"),
				// Forms the notebook's own table writes (§3).
				observation("推理路径", "推理", "每个请求的 TTFT，例如从客户端记下的首字时刻"),
				observation("推理（共享资源）", "设备层 / 平台层", "每次尝试的成败（失败率由它算出），以及每个请求在哪一步排队、排了多久"),
				observation("训练", "训练层", "每一步的损失：更新是否正确；用户体验要到推理路径上看逐请求的 TTFT 与 E2E"),
				// A training observation passes on per-step evidence only.
				observation("训练", "训练层", "每一步的损失和梯度范数"),
				observation("训练", "训练层", "每个检查点的验证损失")),
			wrong(observation("训练", "训练层", "训练日志"), "训练路径上没有请求"),
			wrong(observation("训练", "训练层", "每个请求的 TTFT"), "训练路径上没有请求"),
			wrong(placeholderObservation(), "还是示例或空白"),
			wrong(observation("推理", "推理层", "（例如：每个请求的首字时间）"), "还是示例或空白"),
			wrong(observation("推理", "推理层", "监控上每分钟请求数的平均值"), "把许多请求合成了一个数"),
			wrong(observation("推理", "推理层", "GPU 利用率的平均值"), "是设备的读数"),
			wrong(observation("推理", "推理层", "每个请求的 GPU 利用率平均值"), "是设备的读数"),
			wrong(observation("推理", "推理层", "每个请求的平均 TTFT"), "“平均”把许多请求合成了一个数"),
			wrong(observation("推理", "推理层", "失败率"), "把许多请求合成了一个数"),
			wrong(observation("推理", "推理层", "用户的首字时延"), "缺的证据要落到每个请求或每次尝试上"),
			wrong(observation("线上服务", "推理层", "每个请求的首字时间"), "“路径”只能填“训练”或“推理”"),
			wrong(observation("推理", "应用层", "每个请求的首字时间"), "“层”请从"),
		)},

		// 02: the timeline and R1.
		{file: "02-client-timeline.ipynb", label: "TTFT（毫秒）", actual: "ttft", values: vals{"ttft": ms(a.TTFT())},
			cases: cases(right(700, 700.0), wrong(0.7, "单位是毫秒"))},
		{file: "02-client-timeline.ipynb", label: "E2E（毫秒）", actual: "e2e", values: vals{"e2e": ms(a.E2E())},
			cases: cases(right(1000), wrong(950, "要等到流结束"), wrong(1, "单位是毫秒"))},
		{file: "02-client-timeline.ipynb", label: "TPOT（毫秒/token）", actual: "tpot", values: vals{"tpot": ms(a.TPOT())},
			cases: cases(right(125, 125.0), wrong(150, "你算到了流结束"), wrong(83.3, "分母是 N − 1 个间隔"), wrong(83.33, "分母是 N − 1 个间隔"))},
		{file: "02-client-timeline.ipynb", label: "暂停之后 TTFT 变了吗", actual: "ttft != before", values: vals{"ttft != before": ms(paused.TTFT()) != ms(a.TTFT())},
			cases: cases(right(nb.No), wrong(nb.Yes, "TTFT 的终点 t₁ 已经过去了"))},
		{file: "02-client-timeline.ipynb", label: "合并后的 TPOT（毫秒/token）", actual: "tpot", values: vals{"tpot": ms(merged.TPOT())},
			cases: cases(right(62.5), wrong(125, "按事件间隔平均"), wrong(50, "不是 N = 5 个 token"), wrong(75, "你算到了流结束"))},
		{file: "02-client-timeline.ipynb", label: "练习 1：R1 的 TTFT（毫秒）", actual: "ttft", values: vals{"ttft": ms(r1.TTFT())},
			cases: right(200)},
		{file: "02-client-timeline.ipynb", label: "练习 1：R1 的 E2E（毫秒）", actual: "e2e", values: vals{"e2e": ms(r1.E2E())},
			cases: cases(right(420), wrong(390, "要等到流结束 420 ms"))},
		// (390 − 200) ÷ 3 = 63.33…: the text asks for one decimal.
		{file: "02-client-timeline.ipynb", label: "练习 1：R1 的 TPOT（毫秒/token，一位小数）", actual: "tpot", values: vals{"tpot": ms(r1.TPOT())},
			cases: cases(right(63.3, 63.33, 63.333),
				wrong(73.3, "你算到了流结束"), wrong(47.5, "不是 N = 4 个 token"), wrong(55, "既算到了流结束，又除以了 N"),
				wrong(63, "要保留 1 位小数"))},

		// 03: the quiz, the four conclusions, the five mistakes, the rates and exercise 1.
		{file: "03-one-trace-four-conclusions.ipynb", label: "测验：失败率的分母", actual: `"B"`,
			cases: cases(right("B", "b", " B ", "Ｂ"), wrong("A", "完整成功里没有失败"), wrong("C", "质量通过只是成功的一部分"))},
		{file: "03-one-trace-four-conclusions.ipynb", label: "成功 TTFT 的 P95（毫秒）", actual: "cardopts.MustSummarize(unit, cardopts.Flags{}).TTFT.P95", values: vals{"cardopts.MustSummarize(unit, cardopts.Flags{}).TTFT.P95": s.TTFT.P95},
			cases: cases(right(2000, 2000.0), wrong(1720, "线性插值"), wrong(1200, "向上取整是 8"), wrong(2, "单位是毫秒"))},
		{file: "03-one-trace-four-conclusions.ipynb", label: "联合合格的尝试", actual: "at1s.Qualified", values: vals{"at1s.Qualified": nb.AtSLO(unit, 1000).Qualified},
			cases: cases(right(5), wrong(6, "R5 首字很快，但质量不通过"), wrong(8, "8 是完整成功数"), wrong(7, "还要过 TTFT ≤ 1 s"))},
		{file: "03-one-trace-four-conclusions.ipynb", label: "goodput（次/s）", actual: "at1s.GoodputPerS", values: vals{"at1s.GoodputPerS": nb.AtSLO(unit, 1000).GoodputPerS},
			cases: cases(right(0.5), wrong(0.625, "不是成功次数"), wrong(5, "还要除以窗口的 10 s"),
				wrong(0, "两个整数相除"), wrong(0.8, "数的是完整成功"))}, // GoodputPerS: 5/10
		{file: "03-one-trace-four-conclusions.ipynb", label: "练习 2：错误 A 的失败率", actual: "nb.Value(wrong.FailureRate)", values: vals{"nb.Value(wrong.FailureRate)": nb.Value(deleted.FailureRate)},
			cases: cases(right(0, 0.0), wrong(0.25, "测验的选项 A"), wrong(0.2, "0.2 是正确的失败率"))},
		{file: "03-one-trace-four-conclusions.ipynb", label: "练习 2：错误 B 的乘积", actual: "product", values: vals{"product": 0.8 * 0.875 * (6.0 / 8)},
			// The ninth review's 0.53: two places where three are asked.
			cases: cases(right(0.525), wrong(0.53, "要保留 3 位小数"), wrong(0.5, "要保留 3 位小数"))},
		{file: "03-one-trace-four-conclusions.ipynb", label: "练习 2：错误 C 的 P50（毫秒）", actual: "wrong.P50", values: vals{"wrong.P50": metrics.NewDist(zeros, metrics.NearestRank, "ms").P50},
			cases: cases(right(400), wrong(450, "取中间两个数的平均"), wrong(500, "只含 8 个完整成功"))},
		// Exercise 2: error D at 0.5 s (R4's 500 ms drops out), error E at
		// 1 s (R5, 600 ms and a quality fail, comes in): each changes the count.
		{file: "03-one-trace-four-conclusions.ipynb", label: "练习 2：错误 D 的计数", actual: "strict",
			values: vals{"strict": countQualified(unit, func(ttft float64) bool { return ttft < 500 }, true)},
			cases:  cases(right(3), wrong(4, "TTFT 恰好 500 ms 的 R4 不算进来"), wrong(2, "门槛 0.5 s 时看 TTFT 恰好 500 ms 的 R4"))},
		{file: "03-one-trace-four-conclusions.ipynb", label: "练习 2：错误 E 的计数", actual: "withR5",
			values: vals{"withR5": countQualified(unit, func(ttft float64) bool { return ttft <= 1000 }, false)},
			cases:  cases(right(6), wrong(5, "质量不通过的 R5（TTFT 600 ms）也混了进来"), wrong(7, "门槛 1 s 时看 R5"))},
		{file: "03-one-trace-four-conclusions.ipynb", label: "练习 3：线性插值的 P95（毫秒，取整）", actual: "nb.LinearP95(unit)", values: vals{"nb.LinearP95(unit)": nb.LinearP95(unit)},
			cases: cases(right(1720), wrong(2000, "最近秩"), wrong(1200, "小数部分"), wrong(1600, "先算 h"))},
		{file: "03-one-trace-four-conclusions.ipynb", label: "练习 4：输出 token/秒", actual: "r.TokensPerS", values: vals{"r.TokensPerS": rates.TokensPerS, "r.Tokens": rates.Tokens, "r.QualifiedTokensPerS": rates.QualifiedTokensPerS},
			cases: cases(right(rates.TokensPerS), wrong(rates.Tokens, "还要除以窗口的 10 s"), wrong(1.8, "和门槛无关"),
				wrong(3.625, "每次成功的 token 数"))}, // 29 ÷ 8: per success, not per second
		{file: "03-one-trace-four-conclusions.ipynb", label: "练习 4：回答变长，合格尝试/秒会变高吗", actual: "false",
			cases: cases(right(nb.No), wrong(nb.Yes, "多几个 token 不会让哪一次尝试变得合格"))},
		{file: "03-one-trace-four-conclusions.ipynb", label: "练习 1：门槛 2 s 的联合合格数", actual: "c.Qualified", values: vals{"c.Qualified": at2s.Qualified},
			cases: cases(right(7), wrong(6, "R8 的 TTFT 恰好 2000 ms"), wrong(8, "R5 质量不通过"))},
		{file: "03-one-trace-four-conclusions.ipynb", label: "练习 1：门槛 2 s 的 goodput（次/s，两位小数）", actual: "c.GoodputPerS", values: vals{"c.GoodputPerS": at2s.GoodputPerS},
			cases: cases(right(0.7, 0.70), wrong(0.875, "不是成功次数"))},
		// 0.02 元 ÷ 7 × 1000 = 2.857…: the learner walk's 2.857 was marked wrong.
		{file: "03-one-trace-four-conclusions.ipynb", label: "练习 1：门槛 2 s 的每千次合格成本（元/千次合格，两位小数）", actual: "c.CostPer1000", values: vals{"c.CostPer1000": at2s.CostPer1000},
			cases: cases(right(2.86, 2.857, 2.8571, 20.0/7), wrong(2.85, "四舍五入，不是直接舍去"), wrong(2.9, "你少保留了几位"), wrong(3, "你少保留了几位"),
				wrong(2, "两个整数相除"), wrong(2.5, "除以的是 8 次完整成功"), wrong(2.50, "除以的是 8 次完整成功"))}, // 20/7; 2.5 = 0.02 ÷ 8 × 1000

		// 04: one condition changed (the threshold to 0.5 s).
		{file: "04-change-one-condition.ipynb", label: "新门槛下的联合合格数", actual: "now.Qualified", values: with(h04, vals{"now.Qualified": now.Qualified, "old.Qualified": old.Qualified}),
			cases: cases(right(4), wrong(5, "这是门槛 1 s 时的数"), wrong(3, "你用了 <：门槛是“TTFT ≤ 0.5 s”，恰好 500 ms 的 R4 也合格"))},
		{file: "04-change-one-condition.ipynb", label: "新门槛下的每千次合格成本（元/千次合格）", actual: "now.CostPer1000", values: with(h04, vals{"now.CostPer1000": now.CostPer1000, "old.CostPer1000": old.CostPer1000}),
			cases: cases(right(5, 5.0), wrong(4, "这是门槛 1 s 时的数"), wrong(6.67, "你用了 <"), wrong(6.667, "你用了 <"), wrong(0.005, "还要乘以 1000"))},
		{file: "04-change-one-condition.ipynb", label: "失败率会变吗", actual: "false",
			cases: cases(right(nb.No), wrong(nb.Yes, "门槛不参与"))},
		// Every threshold on the 0.6/s step is right: 1200 ms up to 2000 ms.
		{file: "04-change-one-condition.ipynb", label: "练习 2：门槛（ms）", actual: "g", values: vals{"g": goodputAt},
			cases: cases(right(1200, 1500, 1999.5), wrong(1000, "门槛还要再放宽"), wrong(2000, "退回一个台阶"),
				wrong(1.5, "门槛的单位是毫秒"),
				// 0.4/s on [500, 800) ms and less below: more than one step short.
				wrong(500, "差不止一个台阶"), wrong(799, "差不止一个台阶"), wrong(300, "差不止一个台阶"))},
		// Exercise 1 at 300 ms: R1 (200 ms) and R2 (exactly 300 ms).
		{file: "04-change-one-condition.ipynb", label: "练习 1：门槛 300 ms 的联合合格数", actual: "now.Qualified", values: vals{"now.Qualified": at300.Qualified, "at500.Qualified": now.Qualified},
			cases: cases(right(2), wrong(4, "这是门槛 0.5 s 时的数"), wrong(1, "恰好 300 ms 的 R2 也合格"))},
		{file: "04-change-one-condition.ipynb", label: "Recomputable", judge: judgeRecomputable(practice, 500), cases: cases(
			// The practice trace is large: a few cases (nb's own tests name
			// every missing field).
			right([]string{"attempt", "request", "start_ms", "outcome", "events", "end_ms", "quality", "input_tokens", "output_tokens"},
				[]string{"attempt", "request", "start_ms", "outcome", "http_status", "events", "end_ms", "quality", "input_tokens", "output_tokens"}),
			wrong([]string{"attempt", "request", "start_ms", "outcome", "events", "end_ms"}, "少了 quality"),
			wrong([]string{"attempt", "request", "start_ms", "outcome", "events", "end_ms", "quality"}, "要求每次尝试都留下输入、输出长度"),
			wrong([]string{}, "还没有挑字段"),
			wrong([]string{"attempt", "start_time"}, `没有叫 "start_time" 的字段`),
		)},

		// 05: the tools' definitions.
		{file: "05-read-the-tool-docs.ipynb", label: "合并后的请求，vLLM 记下的 ITL 个数", actual: "nb.GapCount(merged)", values: vals{"nb.GapCount(merged)": nb.GapCount(merged)},
			cases: cases(right(2), wrong(4, "按数据块记间隔"), wrong(3, "比块少一个"))},
		{file: "05-read-the-tool-docs.ipynb", label: "图 01.2 的 vLLM TPOT（毫秒/token）", actual: "tpot", values: vals{"tpot": vllmTPOT},
			cases: cases(right(125), wrong(150, "止于最后一个带 choices 的数据块"), wrong(83.3, "分母是"))},
		{file: "05-read-the-tool-docs.ipynb", label: "vLLM 的 TTFT 样本数", actual: "v.TTFT.N", values: vals{"v.TTFT.N": metrics.VLLMSummarize(unit).TTFT.N},
			cases: cases(right(8), wrong(10, "只取成功的请求"))},
		{file: "05-read-the-tool-docs.ipynb", label: "练习 1：R3 的 vLLM TPOT", actual: "tpot", values: vals{"tpot": r3TPOT},
			cases: cases(right(77.5), wrong(87.5, "你算到了流结束"), wrong(62, "分母是"), wrong(77, "两个整数相除"))}, // 310/4
		{file: "05-read-the-tool-docs.ipynb", label: "练习 1：R3 的 AIPerf “ITL”", actual: "tpot", values: vals{"tpot": r3TPOT},
			cases: cases(right(77.5), wrong(87.5, "你算到了流结束"), wrong(62, "分母是"))},

		// 06: the deliverable's self-check, on the reference card changed
		// the way 03 and 06's exercises anticipate.
		{file: "06-deliverable.ipynb", label: "SelfCheck", judge: judgeSelfCheck(t), cases: cases(
			right(edit(func(c *card.Card) {}),
				edit(func(c *card.Card) { c.P95 = card.Figure{Value: 2000, Unit: card.Milliseconds} }),
				edit(func(c *card.Card) { c.P95 = card.Figure{Value: 2000, Unit: "毫秒"} }),
				edit(func(c *card.Card) { c.PercentileMethod = "最近秩" }),
				edit(func(c *card.Card) { c.Streaming.Recorded = card.PerToken }),
				edit(func(c *card.Card) { c.Conditions[0].Goodput = card.Figure{Value: 30, Unit: "合格次/分钟"} }),
				edit(func(c *card.Card) { c.Conditions[0].SLO = card.Figure{Value: 1000, Unit: card.Milliseconds} }),
				edit(func(c *card.Card) { c.Clock, c.Window.Kind = "客户端", "固定窗口" }),
				edit(func(c *card.Card) { c.Conditions[1].Goodput = card.Figure{Value: 0.4, Unit: "合格尝试/秒"} }),
				edit(func(c *card.Card) { c.Conditions[1].CostPer1000.Unit = "CNY/千次合格" }),
				edit(func(c *card.Card) { c.FailureRate.Unit = "失败的尝试/窗口内全部尝试" })),
			// Exercise 1: the failures deleted.
			wrong(edit(func(c *card.Card) {
				c.FailureRate = card.Ratio{Num: 0, Den: 8, Unit: "失败尝试/全部尝试"}
			}), "失败的尝试是不是被删掉了"),
			// Exercise 2: linear stated, the nearest-rank P95 kept.
			wrong(edit(func(c *card.Card) { c.PercentileMethod = card.Linear }), "按最近秩算出的数"),
			// The learner walk's linear P95 under nearest-rank.
			wrong(edit(func(c *card.Card) { c.P95 = card.Figure{Value: 1720, Unit: card.Milliseconds} }), "按线性插值算出的数"),
			wrong(edit(func(c *card.Card) {
				c.FailureRate = card.Ratio{Num: 1, Den: 5, Unit: "失败尝试/全部尝试"}
			}), "比值的大小对了"),
			wrong(edit(func(c *card.Card) {
				c.Conditions[0].QualifiedRate = card.Ratio{Num: 0.525, Den: 1, Unit: "合格尝试/全部尝试"}
			}), "不能把成功率、质量通过率和时延达标率相乘"),
			wrong(edit(func(c *card.Card) { c.Conditions[0].Qualified = 6 }), "质量不通过的请求是否被算了进来"),
			wrong(edit(func(c *card.Card) { c.Conditions[1].Qualified = 3 }), "恰好等于门槛的算不算"),
			wrong(edit(func(c *card.Card) { c.SuccessSamples = 10 }), "是缺失而不是 0"),
			wrong(edit(func(c *card.Card) { c.Conditions[0].Goodput.Unit = "token/s" }), "不是 token"),
			wrong(edit(func(c *card.Card) { c.Conditions[0].CostPer1000.Unit = "元/千次" }), "每千次合格"),
			wrong(edit(func(c *card.Card) { c.FailureRate.Unit = "失败/成功请求" }), "分母只写“成功请求”会把失败藏起来"),
			wrong(edit(func(c *card.Card) { c.Path.SamplingPoint = "平台监控" }), "说的是谁在看"),
		)},

		// 07–10: the labs' checks are coursekit/unit01's functions; their
		// answers are typed there (checks_test.go, labchecks_test.go).
	}
}

// vals are a row's values by expression.
type vals = map[string]any

// countQualified counts the complete successes of t whose TTFT passes
// under, with or without the quality condition, as 03's mistakes D and E
// count by hand.
func countQualified(t *trace.Trace, under func(ttft float64) bool, quality bool) int {
	n := 0
	for i := range t.Attempts {
		a := &t.Attempts[i]
		ttft, ok := a.TTFT()
		if a.Outcome != trace.OK || !ok || quality && a.Quality != trace.Pass {
			continue
		}
		if under(ttft) {
			n++
		}
	}
	return n
}

// observation is 01's myObservation with the three answers that decide
// the check, the other two written as a learner would.
func observation(path, layer, evidence string) map[string]string {
	return map[string]string{"观察": "用户说回答变慢了", "路径": path, "层": layer, "测量的是什么": "客户端看到的首字时延", "还缺什么证据": evidence}
}

// placeholderObservation is 01's cell as released.
func placeholderObservation() map[string]string {
	return map[string]string{"观察": "（写下你的观察）", "路径": "（训练 或 推理）", "层": "（设备层 / 训练层 / 推理层 / 平台层）",
		"测量的是什么": "（例如：客户端看到的首字时延）", "还缺什么证据": "（例如：每个请求的首字时间）"}
}

func judgeObservation(t *testing.T, answer any) (bool, string) {
	var ok bool
	out := printedBy(t, func() { ok = nb.CheckObservation(answer.(map[string]string)) })
	return ok, out
}

// judgeRecomputable is 04's exercise 4: nb.Recomputable on the practice
// trace at the notebook's threshold.
func judgeRecomputable(practice *trace.Trace, sloMS float64) func(t *testing.T, answer any) (bool, string) {
	return func(t *testing.T, answer any) (bool, string) {
		var ok bool
		out := printedBy(t, func() { ok = nb.Recomputable(practice, sloMS, answer.([]string)...) })
		return ok, out
	}
}

// edit is a change to the reference card (a right card for the unit's
// trace), as a learner would type it.
type edit func(c *card.Card)

// judgeSelfCheck is 06's self-check on the reference card with an edit:
// it passes when every public row does.
func judgeSelfCheck(t *testing.T) func(t *testing.T, answer any) (bool, string) {
	b, err := os.ReadFile(filepath.Join(repo, "coursekit", "card", "testdata", "reference.card.json"))
	if err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T, answer any) (bool, string) {
		var c card.Card
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		answer.(edit)(&c)
		var r card.Report
		out := printedBy(t, func() { r = nb.SelfCheck(&c, coursekit.Data("unit01/trace.jsonl")) })
		return r.AllPublicPassed() && !strings.Contains(out, "未通过"), out
	}
}

// with is vals a and b in one map (b wins).
func with(a, b vals) vals {
	out := vals{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
