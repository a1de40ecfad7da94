package card

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Status is the outcome of one criterion.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	// NeedsHuman marks free text: a keyword pre-check can only turn an empty
	// or off-topic answer into Fail; whether it is right needs a reader.
	NeedsHuman Status = "needs_human"
)

// Result is one criterion's row.
type Result struct {
	// ID is stable and English, e.g. "figures.p95"; graders key on it.
	ID string `json:"id"`
	// Title is the criterion in Chinese.
	Title  string `json:"title"`
	Status Status `json:"status"`
	// Hint says, in Chinese, what to look at again and where. It never
	// contains the expected value.
	Hint string `json:"hint,omitempty"`
}

// Report is the self-check: one row per public criterion, and the number
// of hidden criteria the grader adds.
type Report struct {
	Results    []Result `json:"results"`
	Passed     int      `json:"passed"`
	Failed     int      `json:"failed"`
	NeedsHuman int      `json:"needs_human"`
	// Hidden is how many more criteria run at grading time (never run here).
	Hidden int `json:"hidden"`
	// Error is set when the trace could not be read; every row then fails.
	Error string `json:"error,omitempty"`
}

// Checked is the number of rows the machine decided (passed + failed).
func (r Report) Checked() int { return r.Passed + r.Failed }

// AllPublicPassed reports whether no public row failed. Rows that need a
// human reader are not failures, and hidden criteria are not included:
// this is never "all passed".
func (r Report) AllPublicPassed() bool { return r.Failed == 0 && r.Error == "" && len(r.Results) > 0 }

// Result returns the row with the given ID.
func (r Report) Result(id string) (Result, bool) {
	for _, x := range r.Results {
		if x.ID == id {
			return x, true
		}
	}
	return Result{}, false
}

func (r *Report) add(x Result) {
	switch x.Status {
	case Pass:
		r.Passed++
	case Fail:
		r.Failed++
	case NeedsHuman:
		r.NeedsHuman++
	}
	r.Results = append(r.Results, x)
}

// unitSLOsMS are the two TTFT SLO conditions the unit asks for, in ms.
var unitSLOsMS = [...]float64{1000, 500}

// Where to look again. The notebooks of unit 01, by number and topic.
const (
	nbSystem    = "笔记本 01《先画系统，再谈快慢》"
	nbTimeline  = "笔记本 02《从客户端时间轴定义“慢”》"
	nbFour      = "笔记本 03《一份 trace，四个结论》"
	nbCondition = "笔记本 04《只改一个条件》"
	nbTools     = "笔记本 05《带着指标口径卡读工具文档》"
)

// criterion is one public row: run returns its status and hint.
type criterion struct {
	id, title string
	run       func(k *checker) (Status, string)
}

// runCriteria runs criteria in order; without a trace every one fails with
// noTrace as its hint. A passing row carries no hint.
func runCriteria(criteria []criterion, c *Card, t *trace.Trace, noTrace string) []Result {
	out := make([]Result, 0, len(criteria))
	if t == nil {
		for _, cr := range criteria {
			out = append(out, Result{ID: cr.id, Title: cr.title, Status: Fail, Hint: noTrace})
		}
		return out
	}
	k := newChecker(c, t)
	for _, cr := range criteria {
		st, hint := cr.run(k)
		if st == Pass {
			hint = ""
		}
		out = append(out, Result{ID: cr.id, Title: cr.title, Status: st, Hint: hint})
	}
	return out
}

// checker holds what the criteria share: the card, the trace's summary
// under the course definitions, and the card's conditions matched to the
// unit's SLOs.
type checker struct {
	c     *Card
	t     *trace.Trace
	s     *metrics.Summary            // nearest-rank, both SLOs
	conds [len(unitSLOsMS)]*Condition // nil where the card lacks the SLO
	p95   *float64                    // success P95 (ms) under the card's stated method
}

func newChecker(c *Card, t *trace.Trace) *checker {
	k := &checker{c: c, t: t}
	k.s = metrics.Summarize(t, metrics.Options{SLOsMS: unitSLOsMS[:]})
	k.p95 = k.s.TTFT.P95
	if m, ok := parseMethod(c.PercentileMethod); ok && m != k.s.PercentileMethod {
		// Judge the number under the method the card states: a wrong method
		// fails stated.method, and a number that does not follow the stated
		// method fails figures.p95, each on its own.
		k.p95 = metrics.Summarize(t, metrics.Options{SLOsMS: unitSLOsMS[:], Method: m}).TTFT.P95
	}
	for i, slo := range unitSLOsMS {
		for j := range c.Conditions {
			if timeMatches(c.Conditions[j].SLO, slo) {
				k.conds[i] = &c.Conditions[j]
				break
			}
		}
	}
	return k
}

// Check recomputes the card's figures from t through coursekit/metrics and
// returns one row per public criterion. It never runs the hidden criteria;
// it only counts them.
func Check(c *Card, t *trace.Trace) Report {
	if c == nil {
		c = &Card{}
	}
	r := Report{Hidden: len(hiddenCriteria)}
	if t == nil {
		r.Error = "没有读到 trace，无法复算。"
	}
	for _, x := range runCriteria(publicCriteria, c, t, "先让 trace 能被读取（检查文件路径），再运行自检。") {
		r.add(x)
	}
	return r
}

// CriterionIDs lists the public criteria in report order.
func CriterionIDs() []string {
	ids := make([]string, len(publicCriteria))
	for i, cr := range publicCriteria {
		ids[i] = cr.id
	}
	return ids
}

var publicCriteria = []criterion{
	{"map.steps", "路径图：选定任务，至少四个有名字的步骤", checkMapSteps},
	{"map.marks", "路径图：标出数据、设备、输出与失败点", checkMapMarks},
	{"map.sampling", "路径图：采样点是路径上的一个步骤", checkMapSampling},
	{"stated.clock", "口径：写明观察用的时钟", checkClock},
	{"stated.window", "口径：写明固定窗口和窗口长度", checkWindow},
	{"stated.method", "口径：写明分位算法", checkMethod},
	{"stated.samples", "口径：写明成功样本数", checkSamples},
	{"stated.attempts", "口径：写明全部尝试数", checkAttempts},
	{"conditions.slos", "两个门槛条件都已填写，门槛带时间单位", checkSLOs},
	{"figures.p95", "数值：成功 TTFT 的 P95", checkP95},
	{"figures.failure_rate", "数值：失败率的分子与分母", checkFailureRate},
	{"figures.qualified", "数值：联合合格数", checkQualified},
	{"figures.qualified_rate", "数值：联合合格率的分子与分母", checkQualifiedRate},
	{"figures.goodput", "数值：合格 goodput", checkGoodput},
	{"figures.cost", "数值：每千次合格成本", checkCost},
	{"units.p95", "单位：P95 带时间单位", checkP95Unit},
	{"units.failure_rate", "单位：失败率写明分子是什么、分母是什么", checkFailureRateUnit},
	{"units.qualified_rate", "单位：联合合格率写明分子是什么、分母是什么", checkQualifiedRateUnit},
	{"units.goodput", "单位：goodput 是“合格次数/时间”", checkGoodputUnit},
	{"units.cost", "单位：成本写明币种与“每千次合格”", checkCostUnit},
	{"stream.recorded", "流式记录：写明记录的是 token 还是事件", checkRecorded},
	{"stream.aggregation", "流式记录：写明间隔怎样汇总", checkAggregation},
	{"text.counter_evidence", "反证：“GPU 很忙所以用户一定很快”", checkCounterEvidence},
	{"text.outputs", "区分训练与推理的产出", checkOutputs},
	{"text.denominator", "解释一个分母错误造成的假结论", checkDenominator},
	{"text.uncertain", "写下仍不确定的事", checkUncertain},
}

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
			return Fail, fmt.Sprintf("第 %d 个步骤还没有名字。每一步都要有名字，采样点才能指向它。", i+1)
		}
		if seen[name] {
			return Fail, fmt.Sprintf("步骤名“%s”出现了不止一次；每一步用不同的名字，采样点才不含糊。", s.Name)
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
		return Fail, "还没有写采样点：你的数字是在路径的哪一步测到的？SamplingPoint 填那一步的名字。回看" + nbTimeline + "。"
	}
	if containsAny(sp, platformMonitoring...) {
		return Fail, "“平台监控”说的是谁在看，不是在路径的哪一点测。请选路径上的一个具体步骤，并想清楚那里的时钟属于谁。回看" + nbTimeline + "。"
	}
	for _, s := range p.Steps {
		if norm(s.Name) == sp {
			return Pass, ""
		}
	}
	return Fail, fmt.Sprintf("采样点“%s”不是路径上任何一个步骤的名字。SamplingPoint 要与某个步骤的 Name 一字不差。", p.SamplingPoint)
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

// ---- conditions and figures ----

func sloLabel(ms float64) string {
	return strconv.FormatFloat(ms/1000, 'f', -1, 64) + " s"
}

func checkSLOs(k *checker) (Status, string) {
	var missing []string
	for i, slo := range unitSLOsMS {
		if k.conds[i] == nil {
			missing = append(missing, sloLabel(slo))
		}
	}
	if len(missing) > 0 {
		return Fail, "没有找到门槛为 " + strings.Join(missing, "、") + " 的条件。Conditions 里每个门槛一项，SLO 写成带单位的数。回看" + nbCondition + "。"
	}
	for _, c := range k.conds {
		if _, ok := toMS(c.SLO); !ok {
			return Fail, "门槛 SLO 要带时间单位（如 \"s\" 或 \"ms\"），否则别人不知道 1 是 1 秒还是 1 毫秒。"
		}
		if !conditionStated(c) { // the release pre-fills the SLOs: they alone are not filling in
			return Fail, "门槛条件里还只有门槛本身：在每个条件下写出你复算的数字，这一项才算填好。回看" + nbCondition + "。"
		}
	}
	return Pass, ""
}

// perCondition runs ok on each of the card's conditions against the
// summary's condition for the same SLO and names the SLOs where it fails.
// A missing condition fails too.
func (k *checker) perCondition(ok func(c *Condition, want *metrics.Condition) bool) (bad []string, missing bool) {
	for i, c := range k.conds {
		label := sloLabel(unitSLOsMS[i])
		if c == nil {
			missing = true
			bad = append(bad, label)
			continue
		}
		if !ok(c, &k.s.Conditions[i]) {
			bad = append(bad, label)
		}
	}
	return bad, missing
}

func failAt(bad []string, missing bool, hint string) (Status, string) {
	if len(bad) == 0 {
		return Pass, ""
	}
	if missing {
		return Fail, "先把两个门槛条件都填上（见“两个门槛条件”那一行）。"
	}
	return Fail, "门槛 " + strings.Join(bad, "、") + " 下：" + hint
}

func checkP95(k *checker) (Status, string) {
	bad, missing := k.perCondition(func(c *Condition, _ *metrics.Condition) bool {
		return k.p95 != nil && timeMatches(c.P95, *k.p95)
	})
	return failAt(bad, missing, "P95 与按你写明的分位算法复算的结果不一致。只把完整成功请求的 TTFT 排序，再按算法取位置；也核对数值用的单位。回看"+nbFour+"。")
}

func checkFailureRate(k *checker) (Status, string) {
	wantNum, wantDen := float64(k.s.Failures), float64(k.s.Attempts)
	var valueOnly, lostFailures bool
	bad, missing := k.perCondition(func(c *Condition, _ *metrics.Condition) bool {
		r := c.FailureRate
		if sameCount(r.Num, wantNum) && sameCount(r.Den, wantDen) {
			return true
		}
		if r.Den != 0 && wantDen != 0 && near(r.Value(), wantNum/wantDen, 1e-9) {
			valueOnly = true
		}
		if r.Num == 0 || sameCount(r.Den, float64(k.s.CompleteSuccess)) {
			lostFailures = true
		}
		return false
	})
	hint := "失败率的分子是失败的尝试，分母是窗口内的全部尝试。回看" + nbFour + "。"
	switch {
	case valueOnly:
		hint = "比值的大小对了，但分子和分母要写实际的计数（不是约分后的数或百分数），别人才能复算。"
	case lostFailures:
		hint = "失败的尝试是不是被删掉了？只在成功请求里数失败，永远数不到失败。分母要包括每一次尝试，失败的也算。回看" + nbFour + "。"
	}
	return failAt(bad, missing, hint)
}

func checkQualified(k *checker) (Status, string) {
	bad, missing := k.perCondition(func(c *Condition, want *metrics.Condition) bool {
		return int64(c.Qualified) == want.Qualified
	})
	return failAt(bad, missing, "联合合格数与复算不一致。逐个请求判断：必须完整成功、质量通过、TTFT 不超过门槛三条同时成立。核对三件事：恰好等于门槛的算不算（≤ 还是 <）？质量不通过的请求是否被算了进来？失败请求是否混进了合格？回看"+nbFour+"和"+nbCondition+"。")
}

func checkQualifiedRate(k *checker) (Status, string) {
	var fractional, valueOnly bool
	bad, missing := k.perCondition(func(c *Condition, want *metrics.Condition) bool {
		r := c.QualifiedRate
		wn, wd := want.QualifiedRate.Num, want.QualifiedRate.Den
		if sameCount(r.Num, wn) && sameCount(r.Den, wd) {
			return true
		}
		if r.Num != math.Trunc(r.Num) || r.Den != math.Trunc(r.Den) {
			fractional = true
		} else if r.Den != 0 && wd != 0 && near(r.Value(), wn/wd, 1e-9) {
			valueOnly = true
		}
		return false
	})
	hint := "联合合格率是合格的尝试除以窗口内的全部尝试，分子分母都是计数。回看" + nbFour + "。"
	switch {
	case fractional:
		hint = "分子或分母不是整数计数：联合合格率要先逐个请求判断再数，不能把成功率、质量通过率和时延达标率相乘。回看" + nbFour + "。"
	case valueOnly:
		hint = "比值的大小对了，但分子和分母要写实际的计数（不是约分后的数或百分数），别人才能复算。"
	}
	return failAt(bad, missing, hint)
}

// goodputPerS reads a goodput figure as per second; without a rate unit
// the value is taken as per second (the unit row reports the unit).
func goodputPerS(f Figure) float64 {
	if _, factor, ok := rateFactor(f.Unit); ok {
		return f.Value * factor
	}
	return f.Value
}

func checkGoodput(k *checker) (Status, string) {
	bad, missing := k.perCondition(func(c *Condition, want *metrics.Condition) bool {
		return near(goodputPerS(c.Goodput), want.GoodputPerS, perSecTol)
	})
	return failAt(bad, missing, "合格 goodput 与复算不一致：它数的是窗口内合格的尝试，除以窗口的长度，而不是输出 token 或全部请求。回看"+nbFour+"。")
}

func checkCost(k *checker) (Status, string) {
	bad, missing := k.perCondition(func(c *Condition, want *metrics.Condition) bool {
		if want.CostPer1000 == nil {
			return c.CostPer1000.Value == 0
		}
		return near(c.CostPer1000.Value, *want.CostPer1000, costTol)
	})
	hint := "每千次合格成本与复算不一致：用窗口总成本（见 trace 表头）除以合格次数，再乘以 1000。回看" + nbFour + "。"
	if k.s.WindowCost == nil || slices.ContainsFunc(k.s.Conditions, func(c metrics.Condition) bool { return c.CostPer1000 == nil }) {
		hint = "这份 trace 没有记录窗口成本，或没有合格的尝试，算不出每千次合格成本；请把它留空（0）。"
	}
	return failAt(bad, missing, hint)
}

// ---- units ----

func checkP95Unit(k *checker) (Status, string) {
	bad, missing := k.perCondition(func(c *Condition, _ *metrics.Condition) bool {
		_, ok := toMS(c.P95)
		return ok
	})
	return failAt(bad, missing, "P95 要写时间单位（\"s\" 或 \"ms\"），没有单位的数字别人无法复算。")
}

// ratioUnit checks that a ratio's unit names its numerator and denominator
// and that the denominator counts every attempt.
func ratioUnit(r Ratio, numWords []string) bool {
	num, den, ok := splitPer(r.Unit)
	return ok && num != "" && den != "" && containsAny(num, numWords...) && denominatorIsAttempts(den)
}

const ratioUnitHint = "单位写成“分子是什么/分母是什么”，例如“某类尝试/某类尝试”：分子说明数的是哪些尝试，分母说明是对哪些尝试而言。分母只写“成功请求”会把失败藏起来。回看" + nbFour + "。"

func checkFailureRateUnit(k *checker) (Status, string) {
	bad, missing := k.perCondition(func(c *Condition, _ *metrics.Condition) bool {
		return ratioUnit(c.FailureRate, failWords)
	})
	return failAt(bad, missing, "失败率的"+ratioUnitHint)
}

func checkQualifiedRateUnit(k *checker) (Status, string) {
	bad, missing := k.perCondition(func(c *Condition, _ *metrics.Condition) bool {
		return ratioUnit(c.QualifiedRate, qualWords)
	})
	return failAt(bad, missing, "联合合格率的"+ratioUnitHint)
}

func checkGoodputUnit(k *checker) (Status, string) {
	var wrongThing bool
	bad, missing := k.perCondition(func(c *Condition, _ *metrics.Condition) bool {
		num, _, ok := rateFactor(c.Goodput.Unit)
		if ok && containsAny(num, wrongRateNum...) {
			wrongThing = true
			return false
		}
		return ok && num != ""
	})
	hint := "goodput 的单位要写成“数的是什么/时间单位”，例如“次/s”，并说明数的是合格的尝试。"
	if wrongThing {
		hint = "goodput 数的是合格的请求尝试，不是 token、样本或设备指标；这些单位不同，不能放在一起比高低。回看" + nbFour + "。"
	}
	return failAt(bad, missing, hint)
}

func checkCostUnit(k *checker) (Status, string) {
	cur := currencyWords(k.s.Currency)
	bad, missing := k.perCondition(func(c *Condition, want *metrics.Condition) bool {
		f := c.CostPer1000
		if want.CostPer1000 == nil && f.Value == 0 {
			return true
		}
		u := norm(f.Unit)
		return (cur == nil || containsAny(u, cur...)) && containsAny(u, perThousand...) && containsAny(u, qualWords...)
	})
	return failAt(bad, missing, "成本的单位要同时写明币种（看 trace 表头的 currency）和“每千次合格”，例如“币种/千次合格”：分母是合格的尝试，不是全部请求。")
}

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
	refuteWords      = []string{"排队", "队列", "queue", "超时", "timeout", "ttft", "首字", "首 token", "首个", "时间线", "timeline", "等待", "wait", "时延", "延迟", "latency", "失败", "fail", "错误", "error", "e2e", "itl", "p95", "goodput", "合格"}
	trainingWords    = []string{"检查点", "checkpoint", "参数", "权重", "weight", "模型", "model", "loss", "损失", "梯度", "gradient", "样本", "sample", "更新", "update"}
	inferenceWords   = []string{"请求", "request", "回答", "答案", "响应", "response", "输出", "output", "token", "结果", "合格", "用户", "user", "生成"}
	denominatorWords = []string{"分母", "denominator", "失败", "fail", "r9", "r10", "删", "全部尝试", "所有尝试", "attempt", "尝试", "成功请求", "成功的请求", "分子"}
)

func checkAggregation(k *checker) (Status, string) {
	return textCheck(k.c.Streaming.Aggregation, aggregationWords,
		"还没有写间隔怎样算、怎样汇总（例如相邻的什么之间取间隔、用哪些请求、取什么统计量）。回看"+nbTools+"。",
		"这段话没有说明间隔是什么之间的间隔、怎样汇总成一个数。回看"+nbTools+"。")
}

func checkCounterEvidence(k *checker) (Status, string) {
	return textCheck(k.c.CounterEvidence, refuteWords,
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
	if st, _ := textCheck(o.Training, trainingWords, "", ""); st == Fail {
		return Fail, "训练的产出还没说清：训练反复更新参数，最后交付的是什么？回看" + nbSystem + "。"
	}
	if st, _ := textCheck(o.Inference, inferenceWords, "", ""); st == Fail {
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
var uncertainWords = []string{"不确定", "不知道", "不清楚", "还不能", "无法", "不能确定", "没有", "未", "是否", "可能", "也许", "假设", "怀疑", "需要", "要验证", "待", "？", "?", "unsure", "unknown", "uncertain", "whether", "maybe"}

func checkUncertain(k *checker) (Status, string) {
	return textCheck(k.c.Uncertain, uncertainWords,
		"还没有写：关于这些数字、采样点或条件，你还有什么不确定、还需要什么证据？如实写下一两件。",
		"写一件具体的、你还不确定的事（例如某个数在别的条件下是否还成立、缺了哪项记录），并说明为什么不确定。")
}
