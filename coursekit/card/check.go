package card

import (
	"github.com/llmperf-course/course/coursekit/cardopts"
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
	m, ok := parseMethod(c.PercentileMethod)
	if !ok {
		m = metrics.NearestRank
	}
	// The summary under the unit's definitions, with the TTFT also under
	// the method the card states: a wrong method fails stated.method, and
	// a number that does not follow the stated method fails figures.p95,
	// each on its own.
	// Under nearest-rank the other distribution is the linear one, so that
	// checkP95 can name a tool's linear number written under nearest-rank.
	other := m
	if m == metrics.NearestRank {
		other = metrics.Linear
	}
	k.s = cardopts.MustSummarize(t, cardopts.Unit(metrics.NearestRank), cardopts.OtherMethod(other))
	k.p95 = k.s.TTFT.P95
	if m != k.s.PercentileMethod && k.s.TTFTOther != nil {
		k.p95 = k.s.TTFTOther.P95
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
	{"map.sampling", "路径图：采集点是路径上的一个步骤", checkMapSampling},
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
