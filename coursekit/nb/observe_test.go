package nb

import (
	"strings"
	"testing"
)

// The learner walk typed an aggregate ("监控上每分钟请求数的平均值") and was
// praised because the check looked for 请求; the untouched placeholder
// passed too. Neither passes now, and per-request evidence does.
func TestCheckObservationWantsPerRequestEvidence(t *testing.T) {
	base := func(evidence string) map[string]string {
		return map[string]string{"观察": "用户说回答变慢了", "路径": "推理", "层": "推理层", "测量的是什么": "客户端看到的时延", "还缺什么证据": evidence}
	}
	template := map[string]string{
		"观察": "（写下你的观察）", "路径": "（训练 或 推理）", "层": "（设备层 / 训练层 / 推理层 / 平台层）",
		"测量的是什么": "（例如：客户端看到的首字时延）", "还缺什么证据": "（例如：每个请求的首字时间）",
	}
	for _, c := range []struct {
		o    map[string]string
		ok   bool
		want string
	}{
		{template, false, "还是示例或空白"},
		{base("（例如：每个请求的首字时间）"), false, "还是示例"},
		{base("监控上每分钟请求数的平均值"), false, "把许多请求合成了一个数"},
		{base("请求的 P95"), false, "合成了一个数"},
		{base("请求的错误码"), false, "落到每个请求或每次尝试上"},
		{base("每个请求的首字时间"), true, "逐个请求记下来"},
		{base("逐请求的 TTFT 与 E2E"), true, "推理路径的推理层"},
		{base("每次尝试的结果和结束时刻"), true, ""},
		// A per-request word does not make a device reading or an
		// aggregate per-request evidence (the fifth review's
		// "每个请求的 GPU 利用率平均值"): on the inference path they fail,
		// each with its own hint.
		{base("每个请求的 GPU 利用率平均值"), false, "是设备的读数"},
		{base("每个请求的忙碌率"), false, "是设备的读数"},
		{base("每个请求的平均 TTFT"), false, "“平均”把许多请求合成了一个数"},
		{base("每个请求的 TTFT 总和"), false, "“总和”把许多请求合成了一个数"},
		{base("每分钟每个请求的首字时间"), false, "“每分钟”把许多请求合成了一个数"},
		{base("每个请求的 TTFT 与 E2E"), true, "逐个请求记下来"},
		{map[string]string{"观察": "x", "路径": "服务", "层": "推理层", "测量的是什么": "y", "还缺什么证据": "每个请求的 TTFT"}, false, "只能填“训练”或“推理”"},
		{map[string]string{"观察": "x", "路径": "训练", "层": "应用层", "测量的是什么": "y", "还缺什么证据": "每个请求的 TTFT"}, false, "设备层、训练层、推理层、平台层"},
		// The forms 01's own table writes, and an example of the learner's own.
		{map[string]string{"观察": "GPU 很忙", "路径": "推理（共享资源）", "层": "设备层 / 平台层", "测量的是什么": "设备繁忙程度",
			"还缺什么证据": "每次尝试的成败，以及每个请求在哪一步排队、排了多久"}, true, "推理路径的设备层、平台层"},
		{map[string]string{"观察": "x", "路径": "推理路径", "层": "推理", "测量的是什么": "y", "还缺什么证据": "每个请求的时间线，例如 TTFT"}, true, "推理路径的推理层"},
		{base("失败率"), false, "“失败率”把许多请求合成了一个数"},
		{map[string]string{"观察": "x", "路径": "训练和推理", "层": "推理层", "测量的是什么": "y", "还缺什么证据": "每个请求的 TTFT"}, false, "只能填“训练”或“推理”"},
		{map[string]string{"观察": "x", "路径": "推理", "层": "推理层 / 应用层", "测量的是什么": "y", "还缺什么证据": "每个请求的 TTFT"}, false, "里选一个"},
		// A training observation has no requests: its evidence lands on
		// steps, batches or checkpoints, and it can pass.
		{map[string]string{"观察": "训练损失不再下降", "路径": "训练", "层": "训练层", "测量的是什么": "训练日志里的损失", "还缺什么证据": "每一步的损失和梯度范数"}, true, "训练路径的训练层"},
		{map[string]string{"观察": "训练变慢", "路径": "训练", "层": "设备层", "测量的是什么": "每秒样本数", "还缺什么证据": "逐步的数据加载时间"}, true, "逐步记下来"},
		{map[string]string{"观察": "训练变慢", "路径": "训练", "层": "训练层", "测量的是什么": "y", "还缺什么证据": "每秒样本数的平均值"}, false, "训练路径上没有请求"},
		{map[string]string{"观察": "训练变慢", "路径": "训练", "层": "训练层", "测量的是什么": "y", "还缺什么证据": "训练日志"}, false, "训练路径上没有请求"},
		// 01 says a training observation's evidence is per step or per
		// checkpoint: per-request words belong to the inference path and
		// do not pass on the training one (the review's "每个请求的 TTFT").
		{map[string]string{"观察": "训练变慢", "路径": "训练", "层": "训练层", "测量的是什么": "y", "还缺什么证据": "每个请求的 TTFT"}, false, "训练路径上没有请求"},
		{map[string]string{"观察": "训练变慢", "路径": "训练", "层": "设备层", "测量的是什么": "y", "还缺什么证据": "逐次尝试的结果"}, false, "训练路径上没有请求"},
		{map[string]string{"观察": "训练变慢", "路径": "训练", "层": "训练层", "测量的是什么": "y", "还缺什么证据": "每个检查点的验证损失"}, true, "逐步记下来"},
		// The ninth review's correct answers, called "一个汇总数" before:
		// 每条/各个 and words between 每个 and 请求 are per request, step
		// and 迭代 per step; the 汇总 hint comes only with an aggregate word.
		{base("每条请求的 TTFT 和 E2E"), true, "逐个请求记下来"},
		{base("每个用户请求的首字时间"), true, "逐个请求记下来"},
		{base("各个请求的时间线"), true, "逐个请求记下来"},
		{map[string]string{"观察": "训练变慢", "路径": "训练", "层": "训练层", "测量的是什么": "y", "还缺什么证据": "每个 step 的损失"}, true, "逐步记下来"},
		{map[string]string{"观察": "训练变慢", "路径": "训练", "层": "训练层", "测量的是什么": "y", "还缺什么证据": "每次迭代的耗时"}, true, "逐步记下来"},
		{map[string]string{"观察": "训练变慢", "路径": "训练", "层": "训练层", "测量的是什么": "y", "还缺什么证据": "每秒样本数"}, false, "合成了一个数"},
		{base("每分钟各个请求的平均值"), false, "合成了一个数"},
	} {
		var ok bool
		out := stdout(t, func() { ok = CheckObservation(c.o) })
		if ok != c.ok || !strings.Contains(out, c.want) {
			t.Errorf("%q: ok = %v, want %v with %q: %q", c.o["还缺什么证据"], ok, c.ok, c.want, out)
		}
	}
	// Without an aggregate word the hint does not say the answer is one.
	for _, o := range []map[string]string{
		base("请求的错误码"),
		{"观察": "训练变慢", "路径": "训练", "层": "训练层", "测量的是什么": "y", "还缺什么证据": "训练日志"},
	} {
		if out := stdout(t, func() { CheckObservation(o) }); strings.Contains(out, "汇总") || strings.Contains(out, "合成了一个数") {
			t.Errorf("%q has no aggregate word: %q", o["还缺什么证据"], out)
		}
	}
	for _, c := range []struct {
		o    map[string]string
		ok   bool
		want string
	}{} {
		var ok bool
		out := stdout(t, func() { ok = CheckObservation(c.o) })
		if ok != c.ok || !strings.Contains(out, c.want) {
			t.Errorf("%q: ok = %v, want %v with %q: %q", c.o["还缺什么证据"], ok, c.ok, c.want, out)
		}
		if !c.ok && strings.Contains(out, "很好") {
			t.Errorf("a failing observation is not praised: %q", out)
		}
	}
}
