package unit01

import (
	"fmt"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The checks of notebook 10 (capacity and intervals). prediction is the
// notebook's whole prediction: a check that shows more than its own line
// shows nothing until every field is written.

// p95Interval is the order-statistic interval of the P95 TTFT of t's
// complete successes, 95 %, two-sided, each tail at most 2.5 %.
func p95Interval(t *trace.Trace) (hasUpper bool, needN int) {
	_, ci, _ := lab.TTFTInterval(t, 0.95)
	return ci.High != nil, ci.NeedNHigh
}

// CheckP95HasUpper checks 10's prediction that the unit trace's 8
// successes give the P95 a 95 % interval with an upper bound.
func CheckP95HasUpper(guess nb.Guess, unit *trace.Trace) bool {
	has, _ := p95Interval(unit)
	return p95HasUpper(guess, has)
}

func p95HasUpper(guess nb.Guess, has bool) bool {
	return nb.Compare("8 个成功样本时，P95 的 95% 区间有上界", guess, has,
		nb.If(nb.Yes, "8 个样本全部落在真正的 P95 之下并不少见：那时连最大的样本也当不了上界"))
}

// CheckNeedN checks 10's prediction of the fewest samples that give the
// P95's two-sided 95 % interval an upper bound (72: 0.95ⁿ ≤ 0.025).
func CheckNeedN(guess int, unit *trace.Trace) bool {
	_, n := p95Interval(unit)
	return needN(guess, n)
}

func needN(guess, n int) bool {
	return nb.Compare("P95 的区间有上界至少要的样本数", guess, n,
		nb.If(71, "ln 0.025 ÷ ln 0.95 ≈ 71.9，样本数要向上取整：71 个样本时 0.95⁷¹ ≈ 0.026，还大于 0.025"),
		nb.If(59, "59 是单侧 95% 上界要的数（没有上界的概率不超过 5%）；双侧区间每侧只许 2.5%"),
		nb.IfBelow(float64(n), "样本这么少时，全部样本都落在真正的 P95 之下的概率还太大：要它不超过 2.5%"),
		nb.IfAbove(float64(n), "样本再多当然也有上界；问的是至少要多少个"))
}

// CheckShortMeets prints the short step's line (attempts, attainment,
// Wilson interval, verdict by search's target) and how many attempts,
// all qualified, the target needs, and checks 10's prediction that the
// step meets the target.
func CheckShortMeets(prediction any, guess nb.Guess, short *lab.Run, search capacity.Config) bool {
	if !nb.Guessed(prediction) {
		return false
	}
	step := short.Step(search)
	fmt.Print(lab.StepLine(short.Label, step, search.Target))
	fmt.Printf("全部合格时，至少要 %d 次尝试，Wilson 下界才够得着 %s%%\n", capacity.AttemptsToMeet(search.Target), nb.Num(search.Target*100))
	return shortMeets(guess, step.Verdict == capacity.Meets)
}

func shortMeets(guess nb.Guess, meets bool) bool {
	return nb.Compare("这一步判为达标", guess, meets,
		nb.If(nb.Yes, "十几次全部合格，Wilson 区间的下界也还够不着 90%：尝试太少，判定只能是尚无定论"))
}

// saturation is the simulator's configured saturation throughput for
// search's answer length.
func saturation(experiment lab.Lab, search capacity.Config) float64 {
	return lab.SimSaturation(experiment.Server, search.Bench.MaxTokens)
}

// CheckAboveSatMeets prints what the saved search "sim" measured above
// the configured saturation and checks 10's prediction that a step there
// meets the target; a search that tested no rate above it checks nothing.
func CheckAboveSatMeets(prediction any, guess nb.Guess, experiment lab.Lab, search capacity.Config) bool {
	if !nb.Guessed(prediction) {
		return false
	}
	line, meets, ok := lab.AboveSaturation(nb.Must(experiment.LoadCapacity("sim")), saturation(experiment, search))
	fmt.Println(line)
	if !ok { // 搜索没有测到饱和吞吐之上的速率
		return false
	}
	return aboveSatMeets(guess, meets)
}

func aboveSatMeets(guess nb.Guess, meets bool) bool {
	return nb.Compare("高于饱和吞吐的速率有一步达标", guess, meets,
		nb.If(nb.Yes, "饱和吞吐是批满时每秒最多能完成的请求数；速率高于它，请求来得比完成得快，队列越排越长，TTFT 迟早越过 1 s 的门槛：看表里那一步的“提供 − 完成”和成功 TTFT P95"))
}

// CheckBusyGapAtAnswer prints the busy share of the saved search's first
// step, its answer and the failing step above it (lab.BusyGap, each at
// most 100 %), and checks 10's prediction that the last two differ by 5
// points or more; a search without both checks nothing.
func CheckBusyGapAtAnswer(prediction any, guess nb.Guess, experiment lab.Lab, search capacity.Config) bool {
	if !nb.Guessed(prediction) {
		return false
	}
	lines, gap, ok := lab.BusyGap(nb.Must(experiment.LoadCapacity("sim")), saturation(experiment, search), search.StartRate)
	fmt.Print(lines)
	if !ok {
		return false
	}
	return busyGapAtAnswer(guess, gap > 0.05)
}

func busyGapAtAnswer(guess nb.Guess, apart bool) bool {
	return nb.Compare("两步的设备忙碌率相差 5 个百分点以上", guess, apart,
		nb.If(nb.Yes, "设备只要有一批在执行就算忙：在答案附近，两步的批都几乎一直在跑"))
}

// CheckEngineBusyHigh prints the real engine's slot busy share at its
// search's answer (lab.AnswerBusy) and checks 10's prediction that it is
// above 90 %. Without a saved engine search, or with no rate that met, it
// says why and checks nothing.
func CheckEngineBusyHigh(prediction any, guess nb.Guess, experiment lab.Lab) bool {
	if !nb.Guessed(prediction) {
		return false
	}
	if nb.Skip(experiment.CapacitySaved("engine"), "真实引擎这次没有搜索结果：这一项不对照。") {
		return false
	}
	busy, line, ok := lab.AnswerBusy(nb.Must(experiment.LoadCapacity("engine")))
	fmt.Println(line)
	if !ok {
		return false
	}
	return engineBusyHigh(guess, busy > 0.9)
}

func engineBusyHigh(guess nb.Guess, high bool) bool {
	return nb.Compare("达标的最高速率那一步，槽位忙碌率超过 90%", guess, high,
		nb.If(nb.Yes, "请求按泊松过程随机到达，有时扎堆：扎堆来的只能排队，槽位还没忙满，TTFT 就越过了门槛"))
}

// CheckNeed95 checks 10's exercise 1: the fewest attempts, all qualified,
// whose Wilson lower bound reaches a target of 95 %.
func CheckNeed95(answer int) bool {
	return need95(answer, capacity.AttemptsToMeet(0.95))
}

func need95(answer, need int) bool {
	return nb.Compare("练习 1：目标 95% 时至少要的尝试数", answer, need,
		nb.If(72, "19 z² ≈ 72.99：尝试数是整数，要向上取整"),
		nb.If(35, "35 是目标 90% 时的数（A ≥ 9 z²）；目标 95% 时解 A ÷ (A + z²) ≥ 0.95"),
		nb.If(76, "76 = 19 × 2²：z 取 1.96，z² ≈ 3.84，不是 4"),
		nb.If(19, "19 是 z² 前面的系数：A ≥ 19 z²，还要乘以 z² ≈ 3.84"))
}
