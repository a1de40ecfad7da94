package card

import (
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// ---- path map ----

func validLayer(l Layer) bool {
	switch l {
	case "", Device, Training, Inference, Platform:
		return true
	}
	return false
}

func checkMapSteps(k *checker) (Status, string) {
	p := k.c.Path
	if p.Task != TrainingTask && p.Task != InferenceTask {
		return Fail, "先写明这张图沿哪种任务走：Task 填 card.TrainingTask（训练）或 card.InferenceTask（推理）。回看" + nbSystem + "里的两条路径。"
	}
	if len(p.Steps) < 4 {
		return Fail, "路径至少要有四个步骤，按任务经过的先后排列，从提交工作一直画到产出结果。回看" + nbSystem + "。"
	}
	seen := map[string]bool{}
	for i, s := range p.Steps {
		name := norm(s.Name)
		if name == "" {
			return Fail, fmt.Sprintf("第 %d 个步骤还没有名字。每一步都要有名字，采集点才能指向它。", i+1)
		}
		if seen[name] {
			return Fail, fmt.Sprintf("步骤名“%s”出现了不止一次；每一步用不同的名字，采集点才不含糊。", s.Name)
		}
		seen[name] = true
		if !validLayer(s.Layer) {
			return Fail, fmt.Sprintf("步骤“%s”的层不是设备、训练、推理、平台四层之一；请用 card.Device、card.Training、card.Inference 或 card.Platform。回看"+nbSystem+"里的四层。", s.Name)
		}
	}
	return Pass, ""
}

func checkMapMarks(k *checker) (Status, string) {
	var data, device, output, failure bool
	for _, s := range k.c.Path.Steps {
		data = data || strings.TrimSpace(s.Data) != ""
		device = device || strings.TrimSpace(s.Device) != ""
		output = output || strings.TrimSpace(s.Output) != ""
		failure = failure || strings.TrimSpace(s.Failure) != ""
	}
	var missing []string
	for _, m := range []struct {
		ok   bool
		name string
	}{{data, "数据（Data）"}, {device, "设备（Device）"}, {output, "输出（Output）"}, {failure, "失败点（Failure）"}} {
		if !m.ok {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return Fail, "路径上还没有标出：" + strings.Join(missing, "、") + "。在相应步骤里填写这些字段，说明输入从哪里来、在什么设备上执行、产出什么、会在哪里失败。回看" + nbSystem + "。"
	}
	return Pass, ""
}

// platformMonitoring are answers that name an observer, not a point on the path.
var platformMonitoring = []string{"平台监控", "监控平台", "platform monitoring", "monitoring platform", "监控大盘", "dashboard"}

func checkMapSampling(k *checker) (Status, string) {
	p := k.c.Path
	sp := norm(p.SamplingPoint)
	if sp == "" {
		return Fail, "还没有写采集点：你的数字是在路径的哪一步测到的？SamplingPoint 填那一步的名字。回看" + nbTimeline + "。"
	}
	if containsAny(sp, platformMonitoring...) {
		return Fail, "“平台监控”说的是谁在看，不是在路径的哪一点测。请选路径上的一个具体步骤，并想清楚那里的时钟属于谁。回看" + nbTimeline + "。"
	}
	for _, s := range p.Steps {
		if norm(s.Name) == sp {
			return Pass, ""
		}
	}
	return Fail, fmt.Sprintf("采集点“%s”不是路径上任何一个步骤的名字。SamplingPoint 要与某个步骤的 Name 一字不差。", p.SamplingPoint)
}

// ---- stated definitions ----

// canonClock maps the spellings of a clock to the trace's vocabulary.
func canonClock(s string) string {
	c := norm(s)
	switch {
	case containsAny(c, "client", "客户端"):
		return "client"
	case containsAny(c, "server", "服务端", "服务器"):
		return "server"
	}
	return c
}

func checkClock(k *checker) (Status, string) {
	if canonClock(k.c.Clock) == "" {
		return Fail, "还没有写时钟：这些时间点是由谁的时钟记下的？看 trace 的表头。回看" + nbTimeline + "。"
	}
	if canonClock(k.c.Clock) != canonClock(k.s.Clock) {
		return Fail, "写的时钟与 trace 表头记录的不一致。TTFT 是从哪一方看到的时间？不同机器的时钟未经校正不能直接相减。回看" + nbTimeline + "。"
	}
	return Pass, ""
}

func canonWindowKind(s string) string {
	c := norm(s)
	if containsAny(c, "fixed", "固定") && !containsAny(c, "sliding", "rolling", "滑动") {
		return "fixed"
	}
	return c
}

func checkWindow(k *checker) (Status, string) {
	w := k.c.Window
	if canonWindowKind(w.Kind) != "fixed" {
		return Fail, "窗口类型要写明是固定窗口（Kind 填 card.FixedWindow，即 \"fixed\"，或写“固定”）：所有比率和 goodput 都在同一个固定窗口里数。回看" + nbFour + "。"
	}
	if !near(w.Seconds, k.s.WindowS, secondsTol) {
		return Fail, "窗口长度（秒）与 trace 表头的窗口不一致。窗口由表头的起止时刻决定，不是第一个到最后一个请求之间的时间。回看" + nbFour + "。"
	}
	return Pass, ""
}

// parseMethod reads a stated percentile method in the spellings people use.
func parseMethod(s string) (metrics.Method, bool) {
	c := strings.NewReplacer(" ", "-", "_", "-").Replace(norm(s))
	switch c {
	case "nearest-rank", "nearestrank", "nearest-rank-method", "最近秩", "最近秩次", "最近排名", "近秩法":
		return metrics.NearestRank, true
	case "linear", "linear-interpolation", "numpy-linear", "线性", "线性插值":
		return metrics.Linear, true
	}
	if m, err := metrics.ParseMethod(c); err == nil {
		return m, true
	}
	nr := containsAny(c, "nearest", "最近秩", "最近排名")
	lin := containsAny(c, "linear", "线性", "插值")
	switch {
	case nr && !lin:
		return metrics.NearestRank, true
	case lin && !nr:
		return metrics.Linear, true
	}
	return "", false
}

func checkMethod(k *checker) (Status, string) {
	m, ok := parseMethod(k.c.PercentileMethod)
	if !ok {
		return Fail, "写明分位算法的名字：不同算法对同一组样本会给出不同的 P95。回看" + nbFour + "讲分位数的一节。"
	}
	if m != k.s.PercentileMethod {
		return Fail, "本课的指标口径卡统一用课上讲的那种分位算法，写明的算法与之不同。回看" + nbFour + "里几种算法的对比。"
	}
	return Pass, ""
}

func checkSamples(k *checker) (Status, string) {
	if k.c.SuccessSamples != k.s.TTFT.N {
		return Fail, "成功样本数与复算不一致。P95 只用完整成功请求的 TTFT：失败请求没有 TTFT，是缺失而不是 0，不能补进排序。回看" + nbFour + "。"
	}
	return Pass, ""
}

func checkAttempts(k *checker) (Status, string) {
	if int64(k.c.Attempts) != k.s.Attempts {
		return Fail, "全部尝试数与复算不一致。窗口内客户端发起的每一次请求都是一次尝试，失败的也算。回看" + nbFour + "。"
	}
	return Pass, ""
}
