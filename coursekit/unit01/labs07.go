package unit01

import (
	"fmt"

	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/nb"
)

// The checks of notebook 07 (open and closed loop). Each reads the runs
// the notebook saved in its experiment (closed, open, calib) and shows
// nothing until the prediction it is passed is written.

// CheckClosedLoopRate checks 07's prediction of how many requests the
// closed loop of 4 users sends per second once it is steady (within
// 10 %): it prints Little's law for the closed run (U ÷ W, the measured
// cycle rate, the window's send rate) and compares the guess with the
// cycle rate. prediction is the whole prediction, shown nothing of until
// every field is written; guess is its ClosedPerS.
func CheckClosedLoopRate(prediction any, guess float64, experiment lab.Lab) bool {
	if !nb.Guessed(prediction) {
		return false
	}
	closed := nb.Must(experiment.Load("closed"))
	fmt.Print(closed.LittleLines())
	return closedLoopRate(guess, closed.CycleRate(), closed.SendRate(), closed.ConfigCycleRate(experiment.Server))
}

// closedLoopRate is CheckClosedLoopRate's verdict on the run's cycle and
// send rates and the rate §1's config predicts (lab.Run.ConfigCycleRate):
// the config estimate, which leaves out the client's and HTTP's overhead,
// and the send rate, which LittleLines prints beside the cycle rate, are
// the anticipated misreadings (the config one checked first, tighter, as
// the two lie a few per cent apart), and anything above the cycle rate is
// the idle conversion U ÷ W(idle).
func closedLoopRate(guess, cycle, send, config float64) bool {
	var hints []nb.Hint
	if config > 0 {
		hints = append(hints, nb.IfNear(config, 0.01, fmt.Sprintf("这是按第 1 节的配置估算的 %.1f 次/s（用户数 ÷ (每个回答的 token 数 × 满批一步的时长)）：它没算预填充、客户端和 HTTP 收发的开销，真实的一轮更长；问的是实测的循环速率，看“完成的循环数 ÷ 这些循环占用的时间”那一行", config)))
	}
	return nb.CompareWithin("闭环稳定后每秒发出的请求数（差 10% 以内算对）", guess, cycle, 0.1, append(hints,
		nb.IfNear(send, 0.05, "这是窗口里发出的次数 ÷ 窗口长度：开窗时每个用户都同时发出一次，窗口边上多算了不到一个循环；问的是稳定之后的循环速率，看“完成的循环数 ÷ 这些循环占用的时间”那一行"),
		nb.IfAbove(cycle, "比实际发得多：用户数 ÷ 空载的停留时间，悄悄假设了时延不随负载变化；几个用户一起解码，每一步更慢，W 变长，闭环就少发"))...)
}

// CheckOpenQueueGrows checks 07's prediction that the open loop's queue
// keeps growing in the window: it prints the deepest queue of the open
// run's first and last second and of the whole closed run, and the queue
// grows when the last second's is deeper than both.
func CheckOpenQueueGrows(prediction any, guess nb.Guess, experiment lab.Lab) bool {
	if !nb.Guessed(prediction) {
		return false
	}
	closed, open := nb.Must(experiment.Load("closed")), nb.Must(experiment.Load("open"))
	qFirst, qLast, qClosed := open.QueueFirstSecond(), open.QueueLastSecond(), closed.QueueWholeWindow()
	fmt.Printf("开环排队：第一秒最多 %d 个，最后一秒最多 %d 个；闭环全程最多 %d 个\n", qFirst, qLast, qClosed)
	return openQueueGrows(guess, qLast > qFirst && qLast > qClosed)
}

func openQueueGrows(guess nb.Guess, grows bool) bool {
	return nb.Compare("开环的队列在窗口里持续变长吗", guess, grows,
		nb.If(nb.No, "开环不管服务多慢都照发：计划的 12 次/s 比服务完成得快，多出来的请求只能排队，队列越排越长"))
}

// CheckOpenTimeouts checks 07's prediction that the open loop times out:
// it prints both runs' timeouts and compares the guess with whether the
// open run had any.
func CheckOpenTimeouts(prediction any, guess nb.Guess, experiment lab.Lab) bool {
	if !nb.Guessed(prediction) {
		return false
	}
	open, closed := nb.Must(experiment.Load("open")), nb.Must(experiment.Load("closed"))
	fmt.Printf("超时：开环 %d 次，闭环 %d 次\n", open.Timeouts(), closed.Timeouts())
	return openTimeouts(guess, open.Timeouts() > 0)
}

func openTimeouts(guess nb.Guess, timedOut bool) bool {
	return nb.Compare("开环出现超时吗", guess, timedOut,
		nb.If(nb.No, "队列越排越长，后发出的请求光排队就要等很久：从发出到流结束超过 1.5 s 的尝试被放弃，记为超时"))
}

// CheckBusyShowsWhoWaits shows 07's three runs side by side (lab.BusyTable:
// busy range, deepest queue, success TTFT P95, failure rate) and checks
// the prediction that the busy ratio alone tells which run kept its users
// waiting longest: it cannot, all three read near 100 %.
func CheckBusyShowsWhoWaits(prediction any, guess nb.Guess, experiment lab.Lab) bool {
	if !nb.Guessed(prediction) {
		return false
	}
	nb.Table(lab.BusyTable(nb.Must(experiment.LoadAll("calib", "closed", "open"))...))
	return busyShowsWhoWaits(guess)
}

func busyShowsWhoWaits(guess nb.Guess) bool {
	return nb.Compare("只看忙碌率能分辨出哪次运行里用户等得最久吗", guess, false,
		nb.If(nb.Yes, "三次运行的忙碌率都接近 100%，只有 1 个用户的那次也是：忙碌率只说明设备在干活，说不出谁等了多久"))
}

// CheckThinkTimeRate checks 07's exercise 1, the closed loop's arrival
// rate with a think time of 0.5 s, λ = U ÷ (W + Z), within 5 %: it prints
// the closed run's users and mean stay W first, the inputs the exercise
// works from. users is the notebook's user count.
func CheckThinkTimeRate(answer float64, users int, experiment lab.Lab) bool {
	closed := nb.Must(experiment.Load("closed"))
	fmt.Printf("闭环运行：%d 个用户，%s\n", users, closed.StayText())
	return thinkTimeRate(answer, closed.RateWithThink(0.5), closed.CycleRate())
}

func thinkTimeRate(answer, withThink, cycle float64) bool {
	return nb.CompareWithin("练习 1：有思考时间时的闭环到达率（次/s）", answer, withThink, 0.05,
		nb.IfAbove(cycle*0.95, "这接近第 6 节没有思考时间的 U / W：每个用户一轮要 W + Z，λ = U / (W + Z)"),
		nb.Otherwise("λ = U / (W + Z)：U 是用户数，W 用上面打印的、这次闭环运行的平均停留时间，Z = 0.5 s"))
}
