package card

import "regexp"

// ---- streaming row ----

var (
	eventWords = []string{"event", "事件", "chunk", "块"}
	tokenWords = []string{"token"}
)

// canonRecorded reads the token-vs-event answer: "event", "token", or the
// normalised text when it names neither or both.
func canonRecorded(s string) string {
	c := norm(s)
	ev, tok := containsAny(c, eventWords...), containsAny(c, tokenWords...)
	switch {
	case ev && !tok:
		return "event"
	case tok && !ev:
		return "token"
	}
	return c
}

// checkRecorded accepts "event": the client stamps each SSE message as
// it arrives, whatever it carries. It also accepts "token" for a trace in
// which every event carries exactly one token: there a token's time and
// its event's time are the same number, so the answer is true of the data
// (the unit's trace and every variant are such traces). With multi-token
// events, "token" is wrong: k tokens share one timestamp.
func checkRecorded(k *checker) (Status, string) {
	switch canonRecorded(k.c.Streaming.Recorded) {
	case "event":
		return Pass, ""
	case "":
		return Fail, "还没有写：trace 里一行时间戳对应的是一个 token，还是一个流式事件？Recorded 填 card.PerEvent 或 card.PerToken。回看" + nbTools + "和" + nbTimeline + "。"
	case "token":
		if k.s.Event.Events > 0 && k.s.Event.MultiTokenEvents == 0 {
			return Pass, ""
		}
		return Fail, "这份 trace 里有的事件一次带来不止一个 token：这些 token 共用一个时间戳，客户端记下的是事件到达的时刻。Recorded 应填 card.PerEvent。回看" + nbTools + "。"
	}
	return Fail, "Recorded 只填一个值：card.PerEvent（\"event\"，事件）或 card.PerToken（\"token\"）。回看" + nbTools + "。"
}

// ---- free text: pre-checked by keywords, then read by a human ----

// textCheck fails empty, very short or off-topic text; anything else needs
// a human reader. Keywords only reject, they never pass an answer.
func textCheck(s string, words []string, empty, offTopic string) (Status, string) {
	if runeCount(s) == 0 {
		return Fail, empty
	}
	if runeCount(s) < minTextRune || !containsAny(norm(s), words...) {
		return Fail, offTopic
	}
	return NeedsHuman, "需要人工阅读：关键词预检只能排除空白或离题的答案，评分时由人判断是否成立。"
}

var (
	aggregationWords = []string{"间隔", "interval", "itl", "事件", "event", "token", "分位", "p50", "p95", "p99", "平均", "mean", "median", "中位", "汇总", "nearest", "linear", "排序", "tpot", "相邻"}
	refuteWords      = []string{"排队", "队列", "queue", "超时", "timeout", "ttft", "首字", "首 token", "首个", "时间线", "timeline", "等待", "wait", "时延", "延迟", "latency", "失败", "fail", "错误", "error", "e2e", "itl", "p95", "goodput", "合格", "第一个字", "第一个", "秒", "ms", "被拒", "拒绝"}
	trainingWords    = []string{"检查点", "checkpoint", "参数", "权重", "weight", "模型", "model", "loss", "损失", "梯度", "gradient", "样本", "sample", "更新", "update"}
	inferenceWords   = []string{"请求", "request", "回答", "答案", "响应", "response", "输出", "output", "token", "结果", "合格", "用户", "user", "生成"}
	denominatorWords = []string{"分母", "denominator", "失败", "fail", "r9", "r10", "删", "全部尝试", "所有尝试", "attempt", "尝试", "成功请求", "成功的请求", "分子"}
)

func checkAggregation(k *checker) (Status, string) {
	return textCheck(k.c.Streaming.Aggregation, aggregationWords,
		"还没有写间隔怎样算、怎样汇总（例如相邻的什么之间取间隔、用哪些请求、取什么统计量）。回看"+nbTools+"。",
		"这段话没有说明间隔是什么之间的间隔、怎样汇总成一个数。回看"+nbTools+"。")
}

// requestName matches a request of the trace named as the notebooks name
// them (R8, r10): naming one is pointing at what a user saw.
var requestName = regexp.MustCompile(`(^|[^a-z0-9])r\d+`)

func checkCounterEvidence(k *checker) (Status, string) {
	words := refuteWords
	if m := requestName.FindString(norm(k.c.CounterEvidence)); m != "" {
		words = append(words[:len(words):len(words)], m)
	}
	return textCheck(k.c.CounterEvidence, words,
		"还没有写反证。GPU 忙只说明设备在干活；写出至少一个能推翻“用户一定很快”的请求结果或时间线。回看"+nbSystem+"和"+nbTimeline+"。",
		"反证要落到用户看到的请求上：写出一个具体的请求结果或时间线（例如在哪里等待、是否失败、首字何时到达），而不是只说设备。回看"+nbTimeline+"。")
}

func checkOutputs(k *checker) (Status, string) {
	o := k.c.Outputs
	if runeCount(o.Training) == 0 || runeCount(o.Inference) == 0 {
		return Fail, "训练和推理的产出都要写：各自交付的是什么、验收看什么。回看" + nbSystem + "。"
	}
	if norm(o.Training) == norm(o.Inference) {
		return Fail, "训练和推理写成了一样的产出；它们交付的对象不同，验收的标准也不同。回看" + nbSystem + "。"
	}
	// No length floor here: "可恢复的检查点" is a whole answer.
	if !containsAny(norm(o.Training), trainingWords...) {
		return Fail, "训练的产出还没说清：训练反复更新参数，最后交付的是什么？回看" + nbSystem + "。"
	}
	if !containsAny(norm(o.Inference), inferenceWords...) {
		return Fail, "推理的产出还没说清：推理用定下的参数处理新输入，每个请求交付的是什么？回看" + nbSystem + "。"
	}
	return NeedsHuman, "需要人工阅读：关键词预检只能排除空白或离题的答案，评分时由人判断是否成立。"
}

func checkDenominator(k *checker) (Status, string) {
	return textCheck(k.c.DenominatorError, denominatorWords,
		"还没有写：举一个用错分母得出的假结论，并说明错在哪里。回看"+nbFour+"里删除失败请求的那个例子。",
		"这段话要说清楚：用了什么分母、得出了什么错误结论、正确的分母是什么。回看"+nbFour+"。")
}

// uncertainWords are the ways people say they are not sure. Like every
// keyword list here, they only turn away an empty or off-topic answer.
var uncertainWords = []string{"不确定", "不知道", "不清楚", "还不能", "无法", "不能确定", "没有", "未", "是否", "可能", "也许", "假设", "怀疑", "需要", "要验证", "待", "？", "?", "不一定", "说不准", "拿不准", "难说", "不好说", "样本太少", "unsure", "unknown", "uncertain", "whether", "maybe"}

func checkUncertain(k *checker) (Status, string) {
	return textCheck(k.c.Uncertain, uncertainWords,
		"还没有写：关于这些数字、采集点或条件，你还有什么不确定、还需要什么证据？如实写下一两件。",
		"写一件具体的、你还不确定的事（例如某个数在别的条件下是否还成立、缺了哪项记录），并说明为什么不确定。")
}
