package unit01

import (
	"fmt"

	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/nb"
)

// The checks of notebook 09 (the real engine). Each is passed the
// prediction it checks and shows nothing until it is written.

// CheckFirstSlower shows the cold engine's run (its report and how long
// the engine took to load) and checks 09's prediction that the first
// request's TTFT is more than half again the median of the rest. A run of
// a single success has no rest to compare with, and checks nothing.
func CheckFirstSlower(guess nb.Guess, cold *lab.Run) bool {
	if !nb.Guessed(guess) {
		return false
	}
	fmt.Print(cold.Report(1000))
	fmt.Printf("引擎从启动到可以服务：%s ms（加载模型）\n", nb.Num(cold.Engine.StartMS))
	first, rest, ok := cold.ColdWarm()
	if !ok {
		return false
	}
	fmt.Printf("第一个请求的 TTFT %s ms；其余 %d 个的中位数 %s ms\n", nb.Num(first), cold.Summary().TTFT.N-1, nb.Num(rest))
	return firstSlower(guess, first > 1.5*rest)
}

func firstSlower(guess nb.Guess, slower bool) bool {
	return nb.Compare("第一个请求的 TTFT 比其余的中位数高一半以上", guess, slower,
		nb.If(nb.Yes, "llama.cpp 加载模型时先空跑一遍，权重和线程在第一个请求到来前就准备好了，这份代价算在启动时间里"))
}

// CheckCacheShare prints the reports of 09's three cache runs (same,
// distinct, nocache) and checks the prediction of the same prompt's TTFT
// median as a share of distinct prompts' (within a factor of 2).
func CheckCacheShare(guess float64, experiment lab.Lab) bool {
	if !nb.Guessed(guess) {
		return false
	}
	for _, r := range nb.Must(experiment.LoadAll("same", "distinct", "nocache")) {
		fmt.Print(r.Report(1000))
	}
	return cacheShare(guess, nb.Must(experiment.TTFTRatio("same", "distinct")))
}

func cacheShare(guess, ratio float64) bool {
	return nb.CompareFactor("同一个提示词的 TTFT 中位数 ÷ 不同提示词的", guess, ratio, 2,
		nb.IfAbove(0.5, "缓存命中时，同一个提示词除最后一个 token 外都不用再预填充，TTFT 只剩一小段；差别是数量级的"),
		nb.IfBelow(0.005, "缓存免去的是预填充，省不了生成第一个 token 和请求路径上的开销：TTFT 不会趋近于 0"))
}

// CheckLongerTimes checks 09's prediction of 256 words' TTFT median as a
// multiple of 64 words' (within 30 %), from the saved runs len256 and
// len64.
func CheckLongerTimes(guess float64, experiment lab.Lab) bool {
	if !nb.Guessed(guess) {
		return false
	}
	return longerTimes(guess, nb.Must(experiment.TTFTRatio("len256", "len64")))
}

func longerTimes(guess, ratio float64) bool {
	return nb.CompareWithin("256 个词的 TTFT 中位数 ÷ 64 个词的（差 30% 以内算对）", guess, ratio, 0.3,
		nb.If(4, "长度是 4 倍，TTFT 却涨不到 4 倍：除了随长度增长的预填充，每个请求还有一段和长度无关的固定开销"))
}

// CheckGapLonger prints the event gap medians of 1 and 4 slots (the mean
// of each side's runs in res) and checks 09's prediction that 4 slots
// make the gap longer.
func CheckGapLonger(guess nb.Guess, res *compare.Result) bool {
	if !nb.Guessed(guess) {
		return false
	}
	gap1, gap4 := lab.Means(res, lab.MetricGapP50)
	fmt.Printf("事件间隔中位数（3 次的平均）：1 个槽位 %s ms，4 个槽位 %s ms\n", nb.Num(gap1), nb.Num(gap4))
	return gapLonger(guess, gap4 > gap1)
}

func gapLonger(guess nb.Guess, longer bool) bool {
	return nb.Compare("4 个槽位时事件间隔中位数变长", guess, longer,
		nb.If(nb.No, "4 条序列一起解码，每一步都要为 4 条序列算；1 个线程算一步的时间变长，每条流相邻两个事件也就隔得更久"))
}

// CheckFourTimes prints the output tokens/s of 1 and 4 slots (the mean of
// each side's runs in res) and checks 09's prediction that 4 slots reach
// 3 times 1 slot's.
func CheckFourTimes(guess nb.Guess, res *compare.Result) bool {
	if !nb.Guessed(guess) {
		return false
	}
	tok1, tok4 := lab.Means(res, lab.MetricTokensPerS)
	fmt.Printf("输出 token/s（3 次的平均）：1 个槽位 %s，4 个槽位 %s，是 1 个槽位的 %s 倍\n", nb.NumTo(tok1, 0), nb.NumTo(tok4, 0), nb.NumTo(tok4/tok1, 2))
	return fourTimes(guess, tok4 >= 3*tok1)
}

func fourTimes(guess nb.Guess, reaches bool) bool {
	return nb.Compare("4 个槽位时每秒输出的 token 数到 1 个槽位的 3 倍以上", guess, reaches,
		nb.If(nb.Yes, "1 个线程算 4 条序列，每一步都更慢：槽位多了，算力并没有多，总吞吐不会跟着变成 4 倍"))
}

// CheckTokensSeparate checks 09's prediction that compare's interval of
// the tokens/s difference excludes 0 (the data separate 1 slot from 4).
func CheckTokensSeparate(guess nb.Guess, res *compare.Result) bool {
	if !nb.Guessed(guess) {
		return false
	}
	return tokensSeparate(guess, lab.Separates(res, lab.MetricTokensPerS))
}

func tokensSeparate(guess nb.Guess, separates bool) bool {
	return nb.Compare("每秒输出 token 数的差别，这点数据分得出（区间不含 0）", guess, separates,
		nb.If(nb.Yes, "两种设置的总吞吐差不多，差值落在同一种设置几次运行之间的波动里，区间含 0：看表里各次运行的值差多少"))
}

// CheckEasyPass checks 09's prediction of the easy questions' quality
// pass rate (within 50 %: a handful of questions).
func CheckEasyPass(guess float64, easy *lab.Run) bool {
	if !nb.Guessed(guess) {
		return false
	}
	return easyPass(guess, easy.QualityPass())
}

func easyPass(guess, pass float64) bool {
	return nb.CompareWithin("简单题的质量通过率", guess, pass, 0.5,
		nb.IfAbove(2, "通过率是 0 到 1 之间的小数：60% 要写成 0.6"))
}

// CheckGapSmall prints the easy run's client TTFT beside the server's own
// prompt_ms and checks 09's prediction that their difference's median is
// under 10 ms; a server that reported no timings checks nothing.
func CheckGapSmall(guess nb.Guess, easy *lab.Run) bool {
	if !nb.Guessed(guess) {
		return false
	}
	fmt.Print(easy.SplitReport())
	if easy.Split() == nil { // 没有服务器自报的计时，就没有可比的数
		return false
	}
	return gapSmall(guess, easy.ClientOverPromptP50() < 10)
}

func gapSmall(guess nb.Guess, small bool) bool {
	return nb.Compare("TTFT − prompt_ms 的中位数小于 10 ms", guess, small,
		nb.If(nb.No, "本机回环上没有真正的网络，1 个用户也不用排队：客户端比服务器多等的只有 HTTP 路径上的几毫秒"))
}
