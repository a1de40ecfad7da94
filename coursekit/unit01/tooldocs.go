package unit01

import (
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Notebook 05: the tools' definitions applied to the unit's data.

// ToolPrediction is notebook 05's prediction, field for field.
type ToolPrediction = struct {
	GapsWhenMerged  int     // 图 01.2 的第二个事件改成带 3 个 token（共 5 个 token），vLLM 的 ITL 为这次请求记下几个间隔？
	VLLMTPOTMS      float64 // 图 01.2 这次请求，vLLM 报的 TPOT 是多少毫秒/token？
	VLLMTTFTSamples int     // 本课的 10 次尝试（2 次失败），vLLM 的 TTFT 分位数用了几个样本？
}

// CheckToolReadings checks what vLLM reports for the timeline's request
// and the unit's trace: its ITL count on the merged request, its TPOT
// (E2EL ending at the last chunk) and its TTFT sample count (failures
// left out), once the whole prediction is written.
func CheckToolReadings[P ~ToolPrediction](guess P, unit, timeline *trace.Trace) {
	prediction := ToolPrediction(guess)
	if !nb.Guessed(guess) { // 预测写好之前不显示答案
		return
	}
	merged := timeline.Attempts[0].WithEventTokens(1, 3)
	nb.Compare("合并后的请求，vLLM 记下的 ITL 个数", prediction.GapsWhenMerged, nb.GapCount(merged), nb.If(4, "vLLM 按数据块记间隔：一个块带 3 个 token 也只算一个"), nb.If(3, "3 是数据块的个数：间隔夹在相邻两块之间，比块少一个"))

	a := &timeline.Attempts[0]
	tpot, _ := metrics.VLLMTPOT(a)
	nb.Compare("图 01.2 的 vLLM TPOT（毫秒/token）", prediction.VLLMTPOTMS, tpot, nb.If(150, "150 = (1000 − 700) ÷ 2：你用了本课算到流结束的 E2E；vLLM 的 E2EL 止于最后一个带 choices 的数据块（950 ms）"),
		nb.If(250.0/3, "83.3 = (950 − 700) ÷ 3：分母是 N − 1 = 2 个间隔，不是 N = 3 个 token"))

	v := metrics.VLLMSummarize(unit)
	nb.Compare("vLLM 的 TTFT 样本数", prediction.VLLMTTFTSamples, v.TTFT.N, nb.If(10, "vLLM 的分位数只取成功的请求，失败只记一个 failed 计数"))
}

// R3Answer is exercise 1 of notebook 05: R3's TPOT as vLLM and AIPerf
// report it.
type R3Answer = struct{ VLLMTPOTMS, AIPerfITLMS float64 }

// CheckR3 checks exercise 1 of notebook 05: vLLM's TPOT and AIPerf's "ITL"
// of R3, both (E2EL − TTFT)/(N − 1) with E2EL ending at the last chunk.
func CheckR3(r3Answer R3Answer, unit *trace.Trace) {
	r3 := &unit.Attempts[2]
	tpot, _ := metrics.VLLMTPOT(r3)
	nb.Compare("练习 1：R3 的 vLLM TPOT", r3Answer.VLLMTPOTMS, tpot, nb.If(87.5, "87.5 = (2550 − 2200) ÷ (5 − 1)：你算到了流结束；vLLM 的 E2EL 止于最后一个带 choices 的数据块（2510 ms）"),
		nb.If(62, "62 = (2510 − 2200) ÷ 5：分母是 N − 1 个间隔"))
	nb.Compare("练习 1：R3 的 AIPerf “ITL”", r3Answer.AIPerfITLMS, tpot, nb.If(87.5, "87.5 = (2550 − 2200) ÷ (5 − 1)：你算到了流结束；AIPerf 的 request_latency 止于最后一个响应（2510 ms）"),
		nb.If(62, "62 = (2510 − 2200) ÷ 5：分母是 OSL − 1 = 4"))
}
