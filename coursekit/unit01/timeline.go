package unit01

import (
	"fmt"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Notebook 02: one request's client timeline (Fig. 01.2) and R1 of the
// unit's trace.

// TimelinePrediction is notebook 02's prediction, field for field.
type TimelinePrediction = struct {
	TTFTMS           float64  // 首字时延（TTFT），毫秒
	E2EMS            float64  // 端到端时延（E2E），毫秒
	TPOTMS           float64  // TPOT，毫秒/token
	PauseChangesTTFT nb.Guess // 首字到达后流卡住 2 秒，TTFT 会变吗？
	MergedTPOTMS     float64  // 第二个事件改成带 3 个 token（共 5 个 token），TPOT 是多少毫秒/token？
}

// CheckTimeline draws Fig. 01.2 and checks the predicted TTFT, E2E and
// TPOT of the timeline's one request, once the whole prediction is
// written: E2E stopped at the last event, TPOT taken to the stream's end
// or divided by N are the mistakes it names.
func CheckTimeline[P ~TimelinePrediction](guess P, timeline *trace.Trace) {
	prediction := TimelinePrediction(guess)
	if !nb.Guessed(guess) { // 预测写好之前不显示答案
		return
	}
	a := timeline.Attempts[0]
	ttft, _ := a.TTFT()
	e2e, _ := a.E2E()
	tpot, _ := a.TPOT()
	nb.Figure("图 01.2", tracefig.Timeline(&a))
	nb.Compare("TTFT（毫秒）", prediction.TTFTMS, ttft, nb.If(ttft/1000, "单位是毫秒：填的是秒数，要乘以 1000"))
	nb.Compare("E2E（毫秒）", prediction.E2EMS, e2e, nb.If(950, "950 ms 是最后一个事件到达的时刻；E2E 要等到流结束 t_end"),
		nb.If(e2e/1000, "单位是毫秒：填的是秒数，要乘以 1000"))
	nb.Compare("TPOT（毫秒/token）", prediction.TPOTMS, tpot,
		nb.If(150, "150 = (1000 − 700) ÷ 2：你算到了流结束；TPOT 止于最后一个 token（950 ms），等流关闭的 50 ms 不是 token 间隔"),
		nb.If(250.0/3, "83.3 = (950 − 700) ÷ 3：分母是 N − 1 个间隔，不是 N 个 token"))
}

// CheckPause replays the request with the stream stalled 2 s after its
// first event (WithPause(1, 2000)), prints its TTFT, gaps and E2E, and
// checks the yes/no prediction that the pause changes TTFT, once it is
// written.
func CheckPause(pauseChangesTTFT nb.Guess, timeline *trace.Trace) {
	if !nb.Guessed(pauseChangesTTFT) { // 预测写好之前不显示答案
		return
	}
	slow := timeline.Attempts[0].WithPause(1, 2000)
	ttft, _ := slow.TTFT()
	e2e, _ := slow.E2E()
	fmt.Printf("TTFT = %v ms\n", ttft)
	fmt.Printf("ITL（本例每个事件 1 个 token，等于事件间隔）= %s\n", nb.List(nb.Gaps(slow), "ms"))
	fmt.Printf("E2E  = %v ms\n", e2e)
	before, _ := timeline.Attempts[0].TTFT()
	nb.Compare("暂停之后 TTFT 变了吗", pauseChangesTTFT, ttft != before, nb.If(nb.Yes, "暂停发生在第一个输出之后：TTFT 的终点 t₁ 已经过去了"))
}

// CheckMergedTPOT replays the request with its second event carrying 3
// tokens (WithEventTokens(1, 3)), prints its events and gaps, and checks
// the predicted TPOT, once the whole prediction is written: averaging over
// event gaps, dividing by N and counting to the stream's end are the
// mistakes it names.
func CheckMergedTPOT[P ~TimelinePrediction](guess P, timeline *trace.Trace) {
	prediction := TimelinePrediction(guess)
	if !nb.Guessed(guess) { // 预测写好之前不显示答案
		return
	}
	multi := timeline.Attempts[0].WithEventTokens(1, 3)
	tpot, _ := multi.TPOT()
	fmt.Printf("事件 %d 个，token %d 个\n", len(multi.Events), multi.StreamedTokens())
	fmt.Printf("事件间隔 = %s：共 %d 个间隔，而 token 之间本应有 %d 个\n", nb.List(nb.Gaps(multi), "ms"), nb.GapCount(multi), multi.StreamedTokens()-1)
	nb.Compare("合并后的 TPOT（毫秒/token）", prediction.MergedTPOTMS, tpot,
		nb.If(125, "125 是按事件间隔平均：两个事件间隔里装着 4 个 token 间隔，TPOT 按 token 数平均"),
		nb.If(50, "50 = 250 ÷ 5：分母是 N − 1 = 4 个间隔，不是 N = 5 个 token"),
		nb.If(75, "75 = (1000 − 700) ÷ 4：你算到了流结束；TPOT 止于最后一个 token（950 ms）"))
}

// R1Answer is exercise 1 of notebook 02: R1's TTFT, E2E and TPOT.
type R1Answer = struct {
	TTFTMS, E2EMS, TPOTMS float64
}

// CheckR1 checks exercise 1 of notebook 02 against R1 of the unit's
// trace: TPOT to one decimal, taken to the last token over N − 1 gaps.
func CheckR1(r1Answer R1Answer) {
	unit := nb.Must(trace.ReadFile(coursekit.Data("unit01/trace.jsonl")))
	r1 := &unit.Attempts[0]
	ttft, _ := r1.TTFT()
	e2e, _ := r1.E2E()
	tpot, _ := r1.TPOT()
	nb.Compare("练习 1：R1 的 TTFT（毫秒）", r1Answer.TTFTMS, ttft)
	nb.Compare("练习 1：R1 的 E2E（毫秒）", r1Answer.E2EMS, e2e, nb.If(390, "390 ms 是最后一个事件；E2E 要等到流结束 420 ms"))
	nb.CompareDecimals("练习 1：R1 的 TPOT（毫秒/token，一位小数）", r1Answer.TPOTMS, tpot, 1,
		nb.If(220.0/3, "73.3 = (420 − 200) ÷ 3：你算到了流结束；TPOT 止于最后一个 token（390 ms）"),
		nb.If(47.5, "47.5 = (390 − 200) ÷ 4：分母是 N − 1 = 3 个间隔，不是 N = 4 个 token"),
		nb.If(55, "55 = (420 − 200) ÷ 4：既算到了流结束，又除以了 N；TPOT 是 (t_N − t_1) ÷ (N − 1)"))
}
