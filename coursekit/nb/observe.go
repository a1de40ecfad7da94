package nb

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Layers are the four layers of notebook 01, in dependency order.
var Layers = []string{"设备层", "训练层", "推理层", "平台层"}

// perRequest lands evidence on single requests or attempts: 每个请求,
// 每条请求, 各个请求, 逐次尝试, and with a few words between (每个用户请求).
var perRequest = perUnit("请求", "尝试")

// perStep lands a training observation's evidence on single units of the
// training path: 每一步, 逐步, 每个检查点, 每个批次, 每个 step, 每次迭代
// and the like. A training job has no requests or attempts.
var perStep = perUnit("步", "批", "样本", "检查点", "更新", "轮", "迭代", "step", "iteration", "batch", "epoch")

// perUnit matches a distributive word (每, 各, 逐, 单个) followed, within a
// few characters and no punctuation, by one of units. An aggregate word in
// between (每分钟请求数) is caught by foldingWords, which every path checks.
func perUnit(units ...string) *regexp.Regexp {
	q := make([]string, len(units))
	for i, u := range units {
		q[i] = regexp.QuoteMeta(u)
	}
	return regexp.MustCompile(`(?i)(每|各|逐|单个|单次|单条)[^\p{P}]{0,6}?(` + strings.Join(q, "|") + `)`)
}

// aggregates are words that fold many requests into one number: a
// dashboard's mean per minute is evidence about the dashboard, not about
// what one user waited for. They only choose the hint: evidence without a
// per-request word fails either way.
var aggregates = []string{"平均", "均值", "汇总", "合计", "总数", "总量", "每分钟", "每秒", "每小时", "每天", "比例", "占比", "率", "吞吐", "分位", "中位数", "P50", "P90", "P95", "P99"}

// deviceReadings are a device's or a service's readings: one number for
// all the requests it served, whatever per-request word precedes it.
var deviceReadings = []string{"利用率", "忙碌率", "使用率", "占用率"}

// foldingWords fold many requests into one number even after 每个请求
// (每个请求的平均 TTFT). Narrower than aggregates: a rate a request has
// of its own (每个请求的输出速率) is not among them.
var foldingWords = []string{"平均", "均值", "汇总", "合计", "总和", "总数", "总量", "每分钟", "每秒", "每小时", "每天", "比例", "占比", "分位", "中位数", "P50", "P90", "P95", "P99", "吞吐"}

// containsAny is the first of words that s contains, or "".
func containsAny(s string, words []string) string {
	for _, w := range words {
		if strings.Contains(s, w) {
			return w
		}
	}
	return ""
}

// placeholder reports whether a value is still the cell's example: blank,
// a bracketed prompt such as （写下你的观察）, or a line that starts 例如.
// An answer that gives an example of its own (每个请求的 TTFT，例如……) is
// the learner's.
func placeholder(v string) bool {
	return v == "" || strings.HasPrefix(v, "（") || strings.HasPrefix(v, "(") || strings.HasPrefix(v, "例如") || strings.Contains(v, "写下你")
}

// pathOf reads 路径: 训练 or 推理, also as 01's table writes it (推理路径,
// 推理（共享资源））; "" when it names neither or both.
func pathOf(v string) string {
	training, inference := strings.Contains(v, "训练"), strings.Contains(v, "推理")
	switch {
	case training && !inference:
		return "训练"
	case inference && !training:
		return "推理"
	}
	return ""
}

// layersOf reads 层: one of Layers, or several as 01's table writes them
// (设备层 / 平台层), each with or without its 层 (推理). It is nil when a
// part is not one of the four layers.
func layersOf(v string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune("/／、，,和与 ", r) }) {
		if !strings.HasSuffix(p, "层") {
			p += "层"
		}
		if !slices.Contains(Layers, p) {
			return nil
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// CheckObservation checks notebook 01's exercise: an observation placed
// back on the system (keys 观察, 路径, 层, 测量的是什么, 还缺什么证据). It
// prints one line: the first thing to fix, or what to do next, and
// reports whether the observation passes. Placeholders left as they were
// do not pass. 路径 and 层 are read in the forms 01's own table uses
// (推理（共享资源）, 设备层 / 平台层). The missing evidence must land on
// single requests or attempts: an aggregate such as "每分钟请求数的平均值"
// is the kind of number the notebook warns about, even though it says 请求;
// on the inference path a device reading (利用率, 忙碌率) or a folding word
// (平均, 总和, 每分钟) fails even after 每个请求.
// A training observation has no requests: its evidence lands on single
// steps, batches or checkpoints (每一步的损失) and nowhere else. Evidence
// per request on the training path is told to change the path or the
// evidence, not praised.
func CheckObservation(o map[string]string) bool {
	for _, k := range []string{"观察", "路径", "层", "测量的是什么", "还缺什么证据"} {
		if placeholder(strings.TrimSpace(o[k])) {
			fmt.Printf("提示：“%s”还是示例或空白，先换成你自己的内容。\n", k)
			return false
		}
	}
	path, layers, evidence := pathOf(o["路径"]), layersOf(strings.TrimSpace(o["层"])), strings.TrimSpace(o["还缺什么证据"])
	single := perRequest
	if path == "训练" {
		single = perStep
	}
	per := single.FindString(evidence)
	folding := containsAny(evidence, foldingWords)
	switch {
	case path == "":
		fmt.Println("提示：“路径”只能填“训练”或“推理”，先决定这条观察属于哪条路径。")
	case layers == nil:
		fmt.Println("提示：“层”请从" + strings.Join(Layers, "、") + "里选一个。")
	case path == "训练" && per == "" && perRequest.MatchString(evidence):
		fmt.Println("提示：训练路径上没有请求。想问的是线上服务，就把路径改成推理；留在训练路径上，缺的证据要落到每一步、每个批次或每个检查点上（例如“每一步的损失和梯度范数”）。")
	case path == "训练" && folding != "":
		fmt.Printf("提示：训练路径上没有请求；“%s”把许多步合成了一个数，说不出哪一步出了问题。缺的证据要落到每一步、每个批次或每个检查点上（例如“每一步的损失和梯度范数”）。\n", folding)
	case path == "训练" && per == "":
		fmt.Println("提示：训练路径上没有请求，缺的证据要落到每一步、每个批次或每个检查点上（例如“每一步的损失和梯度范数”）。")
	case path == "推理" && containsAny(evidence, deviceReadings) != "":
		fmt.Printf("提示：“%s”是设备的读数，不是哪个请求的经历：设备很忙只说明它在干活，说不出某个用户等了多久。缺的证据要落到每个请求或每次尝试上，例如逐请求的 TTFT。\n", containsAny(evidence, deviceReadings))
	case per != "" && folding != "":
		fmt.Printf("提示：写了“%s”，可“%s”把许多请求合成了一个数，它说不出某个用户等了多久。去掉汇总，逐个请求记下原始的值，例如每个请求的 TTFT。\n", per, folding)
	case per == "" && containsAny(evidence, aggregates) != "":
		fmt.Printf("提示：“%s”把许多请求合成了一个数，它说不出某个用户等了多久。缺的证据要落到每个请求或每次尝试上，例如逐请求的 TTFT。\n", evidence)
	case per == "":
		fmt.Println("提示：缺的证据要落到每个请求或每次尝试上：写明“每个请求的……”或“逐次尝试的……”。")
	default:
		unit := "逐个请求"
		if path == "训练" {
			unit = "逐步"
		}
		fmt.Printf("这条观察在%s路径的%s。下一步是在这条路径上选一个采集点，把“%s”%s记下来。\n", path, strings.Join(layers, "、"), evidence, unit)
		return true
	}
	return false
}
