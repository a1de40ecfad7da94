package card

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// failing lists the IDs of the rows that failed.
func failing(r Report) []string {
	var ids []string
	for _, x := range r.Results {
		if x.Status == Fail {
			ids = append(ids, x.ID)
		}
	}
	return ids
}

// bothConditions applies f to every condition of c.
func bothConditions(c *Card, f func(*Condition)) {
	for i := range c.Conditions {
		f(&c.Conditions[i])
	}
}

// The typical mistakes of the unit, each failing its own criterion.
// want is the exact set of failing rows: a mistake must not hide behind
// another criterion, nor drag unrelated ones down.
var mistakes = []struct {
	name   string
	mutate func(c *Card)
	want   []string
}{
	{"R9/R10 deleted: failure rate 0/8", func(c *Card) {
		c.FailureRate = Ratio{0, 8, "失败尝试/全部尝试"}
	}, []string{"figures.failure_rate"}},
	{"R9/R10 deleted everywhere: 8 attempts", func(c *Card) {
		c.Attempts = 8
		c.FailureRate = Ratio{0, 8, "失败尝试/全部尝试"}
		bothConditions(c, func(x *Condition) { x.QualifiedRate.Den = 8 })
	}, []string{"stated.attempts", "figures.failure_rate", "figures.qualified_rate"}},
	{"< for ≤ at 0.5 s: qualified 3", func(c *Card) {
		x := &c.Conditions[1]
		x.Qualified = 3
	}, []string{"figures.qualified"}},
	{"< for ≤ at 0.5 s, carried through", func(c *Card) {
		x := &c.Conditions[1]
		x.Qualified, x.QualifiedRate.Num = 3, 3
		x.Goodput.Value, x.CostPer1000.Value = 0.3, 6.67
	}, []string{"figures.qualified", "figures.qualified_rate", "figures.goodput", "figures.cost"}},
	{"marginals multiplied: 0.525", func(c *Card) {
		c.Conditions[0].QualifiedRate = Ratio{0.525, 1, "合格尝试/全部尝试"}
	}, []string{"figures.qualified_rate"}},
	{"marginals multiplied: 0.6125 of 10", func(c *Card) {
		c.Conditions[0].QualifiedRate = Ratio{6.125, 10, "合格尝试/全部尝试"}
	}, []string{"figures.qualified_rate"}},
	{"counting R5: qualified 6 at 1 s", func(c *Card) {
		c.Conditions[0].Qualified = 6
	}, []string{"figures.qualified"}},
	{"0 for missing TTFT: 10 success samples", func(c *Card) {
		c.SuccessSamples = 10
	}, []string{"stated.samples"}},
	{"P95 by linear while claiming nearest-rank", func(c *Card) {
		c.P95 = Figure{1.72, "s"}
	}, []string{"figures.p95"}},
	{"P95 by linear, method stated as linear", func(c *Card) {
		c.PercentileMethod = "linear"
		c.P95 = Figure{1.72, "s"}
	}, []string{"stated.method"}},
	{"P95 in the wrong time unit", func(c *Card) {
		c.P95 = Figure{2, "ms"}
	}, []string{"figures.p95"}},
	{"P95 without a unit", func(c *Card) {
		c.P95.Unit = ""
	}, []string{"units.p95"}},
	{"goodput in tokens per second", func(c *Card) {
		c.Conditions[0].Goodput.Unit = "token/s"
	}, []string{"units.goodput"}},
	{"goodput without a unit", func(c *Card) {
		c.Conditions[1].Goodput.Unit = ""
	}, []string{"units.goodput"}},
	{"goodput per minute, converted", func(c *Card) {
		c.Conditions[0].Goodput = Figure{30, "合格次/分钟"}
	}, nil},
	{"failure rate without a unit", func(c *Card) {
		c.FailureRate.Unit = ""
	}, []string{"units.failure_rate"}},
	{"failure rate over successes (unit)", func(c *Card) {
		c.FailureRate.Unit = "失败/成功请求"
	}, []string{"units.failure_rate"}},
	{"failure rate as a percentage", func(c *Card) {
		c.FailureRate = Ratio{20, 100, "%"}
	}, []string{"figures.failure_rate", "units.failure_rate"}},
	{"qualified rate without numerator", func(c *Card) {
		c.Conditions[1].QualifiedRate.Unit = "全部尝试"
	}, []string{"units.qualified_rate"}},
	{"cost without per-thousand", func(c *Card) {
		c.Conditions[0].CostPer1000.Unit = "元"
	}, []string{"units.cost"}},
	{"cost per 1000 attempts, not qualified", func(c *Card) {
		c.Conditions[1].CostPer1000.Unit = "元/千次"
	}, []string{"units.cost"}},
	{"cost per attempt", func(c *Card) {
		c.Conditions[0].CostPer1000 = Figure{0.002, "元/次"}
	}, []string{"figures.cost", "units.cost"}},
	{"SLO without a unit", func(c *Card) {
		c.Conditions[1].SLO.Unit = ""
	}, []string{"conditions.slos"}},
	{"only one condition", func(c *Card) {
		c.Conditions = c.Conditions[:1]
	}, []string{"conditions.slos", "figures.qualified", "figures.qualified_rate",
		"figures.goodput", "figures.cost", "units.qualified_rate", "units.goodput", "units.cost"}},
	{"conditions in the other order", func(c *Card) {
		slices.Reverse(c.Conditions)
	}, nil},
	{"SLO in ms", func(c *Card) {
		c.Conditions[0].SLO = Figure{1000, "ms"}
		c.P95 = Figure{2000, "毫秒"}
	}, nil},
	{"spellings people use", func(c *Card) {
		c.Clock, c.Window.Kind, c.PercentileMethod, c.Streaming.Recorded = "客户端时钟", "固定窗口", "Nearest rank(⌈0.95n⌉)", "流式事件"
		c.Conditions[1].Goodput.Unit = "合格次数每秒"
	}, nil},
	{"recorded both", func(c *Card) { c.Streaming.Recorded = "事件和 token" }, []string{"stream.recorded"}},
	{"server clock", func(c *Card) { c.Clock = "server" }, []string{"stated.clock"}},
	{"no clock", func(c *Card) { c.Clock = "" }, []string{"stated.clock"}},
	{"sliding window", func(c *Card) { c.Window.Kind = "sliding" }, []string{"stated.window"}},
	{"window from first to last attempt", func(c *Card) { c.Window.Seconds = 9.7 }, []string{"stated.window"}},
	{"no method", func(c *Card) { c.PercentileMethod = "" }, []string{"stated.method"}},
	{"3 steps", func(c *Card) { c.Path.Steps = c.Path.Steps[1:4]; c.Path.SamplingPoint = "流式响应" }, []string{"map.steps"}},
	{"no task", func(c *Card) { c.Path.Task = "" }, []string{"map.steps"}},
	{"unknown layer", func(c *Card) { c.Path.Steps[0].Layer = "client" }, []string{"map.steps"}},
	{"no failure marked", func(c *Card) {
		for i := range c.Path.Steps {
			c.Path.Steps[i].Failure = ""
		}
	}, []string{"map.marks"}},
	{"sampling at platform monitoring", func(c *Card) { c.Path.SamplingPoint = "平台监控" }, []string{"map.sampling"}},
	{"sampling at monitoring, even as a step", func(c *Card) {
		c.Path.Steps[4].Name, c.Path.SamplingPoint = "Platform Monitoring", "platform monitoring"
	}, []string{"map.sampling"}},
	{"sampling point not on the path", func(c *Card) { c.Path.SamplingPoint = "浏览器" }, []string{"map.sampling"}},
	{"no counter-evidence", func(c *Card) { c.CounterEvidence = " " }, []string{"text.counter_evidence"}},
	{"irrelevant counter-evidence", func(c *Card) { c.CounterEvidence = "GPU 很忙,所以需要买更多的 GPU 才行。" }, []string{"text.counter_evidence"}},
	{"outputs not told apart", func(c *Card) { c.Outputs.Inference = c.Outputs.Training }, []string{"text.outputs"}},
	{"no training output", func(c *Card) { c.Outputs.Training = "" }, []string{"text.outputs"}},
	{"no denominator story", func(c *Card) { c.DenominatorError = "" }, []string{"text.denominator"}},
	{"off-topic denominator story", func(c *Card) { c.DenominatorError = "我觉得这个服务整体还不错,挺快的。" }, []string{"text.denominator"}},
	{"no aggregation", func(c *Card) { c.Streaming.Aggregation = "" }, []string{"stream.aggregation"}},
}

func TestTypicalMistakesFailTheirOwnCriterion(t *testing.T) {
	tr := readUnitTrace(t)
	for _, m := range mistakes {
		t.Run(m.name, func(t *testing.T) {
			c := reference()
			m.mutate(c)
			r := Check(c, tr)
			got := failing(r)
			if !slices.Equal(got, m.want) {
				t.Errorf("failing rows:\n got  %v\n want %v\n%s", got, m.want, r.Text())
			}
			for _, x := range r.Results {
				if x.Status == Fail && x.Hint == "" {
					t.Errorf("%s failed without a hint", x.ID)
				}
			}
		})
	}
}

// Hints point where to look again; they never print the expected figure.
func TestHintsNeverRevealExpectedValues(t *testing.T) {
	tr := readUnitTrace(t)
	revealing := []string{"2/10", "5/10", "4/10", "20%", "87.5", "0.5 次", "0.4 次", "2 s", "2s", "2000", "1.72",
		"4 元", "5 元", "8 个", "10 次", "10 s", "nearest", "最近秩", `"client"`, "client"}
	empty := &Card{}
	cases := []*Card{empty}
	for _, m := range mistakes {
		c := reference()
		m.mutate(c)
		cases = append(cases, c)
	}
	for _, c := range cases {
		r := Check(c, tr)
		hidden := HiddenChecks(c, tr)
		for _, x := range append(r.Results, hidden...) {
			for _, s := range revealing {
				if strings.Contains(x.Hint, s) {
					t.Errorf("%s hint reveals %q: %s", x.ID, s, x.Hint)
				}
			}
		}
	}
}

// The P95 of the other method is the mistake the unit anticipates (the
// learner walk wrote 1720 ms, the linear P95, under nearest-rank): the
// hint names linear interpolation instead of only "not the same".
func TestP95OfTheOtherMethodIsNamed(t *testing.T) {
	c := reference()
	c.P95 = Figure{1720, "ms"}
	for _, x := range Check(c, readUnitTrace(t)).Results {
		if x.ID == "figures.p95" && (x.Status != Fail || !strings.Contains(x.Hint, "线性插值算出的数")) {
			t.Errorf("%s: %s %q", x.ID, x.Status, x.Hint)
		}
	}
	c = reference()
	c.P95 = Figure{1200, "ms"}
	for _, x := range Check(c, readUnitTrace(t)).Results {
		if x.ID == "figures.p95" && (x.Status != Fail || strings.Contains(x.Hint, "算出的数")) {
			t.Errorf("another wrong P95 gets the general hint: %q", x.Hint)
		}
	}
}

func TestEmptyCardFailsEveryRowWithAHint(t *testing.T) {
	r := Check(&Card{}, readUnitTrace(t))
	if r.Passed != 0 || r.NeedsHuman != 0 || r.Failed != len(publicCriteria) {
		t.Errorf("empty card: passed %d, needs human %d, failed %d\n%s", r.Passed, r.NeedsHuman, r.Failed, r.Text())
	}
	for _, x := range r.Results {
		if !strings.Contains(x.Hint, "回看") && !strings.Contains(x.Hint, "条件") && !strings.Contains(x.Hint, "单位") {
			t.Errorf("%s: the hint should point somewhere: %s", x.ID, x.Hint)
		}
	}
	if r2 := Check(nil, readUnitTrace(t)); r2.Failed != r.Failed {
		t.Errorf("nil card should read as an empty card")
	}
}

func TestNoTraceFailsEverythingHonestly(t *testing.T) {
	r := Check(reference(), nil)
	if r.Error == "" || r.Failed != len(publicCriteria) || r.AllPublicPassed() {
		t.Errorf("no trace: %+v", r)
	}
	for _, x := range HiddenChecks(reference(), nil) {
		if x.Status != Fail {
			t.Errorf("%s passed without a trace", x.ID)
		}
	}
}

func TestStatusLineCountsHiddenChecksWithoutRunningThem(t *testing.T) {
	tr := readUnitTrace(t)
	r := Check(reference(), tr)
	if r.Hidden != len(HiddenChecks(reference(), tr)) || r.Hidden == 0 {
		t.Errorf("Hidden = %d, want the number of hidden criteria", r.Hidden)
	}
	for _, x := range r.Results {
		if strings.HasPrefix(x.ID, "hidden.") {
			t.Errorf("the self-check ran hidden criterion %s", x.ID)
		}
	}
	want := "公开检查 21/21 通过；评分时还有 7 项隐藏检查"
	if got := r.StatusLine(); got != want {
		t.Errorf("status line %q, want %q", got, want)
	}
	for _, out := range []string{r.Text(), r.HTML()} {
		if !strings.Contains(out, want) || !strings.Contains(out, "5 项文字答案需要人工阅读") {
			t.Errorf("output lacks the honest status:\n%s", out)
		}
		if strings.Contains(out, "全部通过") || strings.Contains(strings.ToLower(out), "all passed") {
			t.Errorf("output claims all passed:\n%s", out)
		}
	}
}

func TestCriterionIDsAreStableAndUnique(t *testing.T) {
	ids := append(CriterionIDs(), HiddenIDs()...)
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] || id == "" || strings.ToLower(id) != id || strings.ContainsAny(id, " \t") {
			t.Errorf("bad or duplicate id %q", id)
		}
		seen[id] = true
	}
}

var hiddenMistakes = []struct {
	name   string
	mutate func(c *Card)
	want   []string
}{
	{"goodput not from qualified / window", func(c *Card) { c.Conditions[0].Goodput.Value = 0.6 },
		[]string{"hidden.goodput_consistency"}},
	{"cost not from window cost / qualified", func(c *Card) { c.Conditions[1].CostPer1000.Value = 4 },
		[]string{"hidden.cost_consistency"}},
	{"qualified rate numerator is not the qualified count", func(c *Card) { c.Conditions[0].Qualified = 6 },
		[]string{"hidden.goodput_consistency", "hidden.cost_consistency", "hidden.qualified_rate_consistency"}},
	{"samples plus failures are not the attempts", func(c *Card) { c.SuccessSamples = 9 },
		[]string{"hidden.samples_consistency"}},
	{"qualified rate's denominator changes with the SLO", func(c *Card) { c.Conditions[1].QualifiedRate.Den = 8 },
		[]string{"hidden.qualified_rate_consistency", "hidden.slo_invariants", "hidden.request_view"}},
	{"more goodput under a tighter SLO", func(c *Card) { c.Conditions[1].Goodput.Value = 0.6 },
		[]string{"hidden.goodput_consistency", "hidden.slo_invariants"}},
	{"more qualified under a tighter SLO", func(c *Card) {
		x := &c.Conditions[1]
		x.Qualified, x.QualifiedRate.Num, x.Goodput.Value, x.CostPer1000.Value = 6, 6, 0.6, 0.02/6*1000
	}, []string{"hidden.slo_invariants"}},
	{"more qualified than successes", func(c *Card) {
		c.SuccessSamples = 4
		c.FailureRate.Num = 6
	}, []string{"hidden.qualified_bounds"}},
}

func TestHiddenChecksCatchInconsistentCards(t *testing.T) {
	tr := readUnitTrace(t)
	for _, m := range hiddenMistakes {
		t.Run(m.name, func(t *testing.T) {
			c := reference()
			m.mutate(c)
			var got []string
			for _, x := range HiddenChecks(c, tr) {
				if x.Status == Fail {
					got = append(got, x.ID)
				}
			}
			if !slices.Equal(got, m.want) {
				t.Errorf("failing hidden rows: got %v, want %v", got, m.want)
			}
		})
	}
}

func TestHiddenRequestViewWithRetries(t *testing.T) {
	tr := readUnitTrace(t)
	// Make R10 a retry of R9: 10 attempts, 9 business requests.
	for i := range tr.Attempts {
		if tr.Attempts[i].ID == "R10" {
			tr.Attempts[i].Request = "R9"
		}
	}
	if x := HiddenChecks(reference(), tr)[6]; x.ID != "hidden.request_view" || x.Status != Pass {
		t.Errorf("reference card with retries: %+v", x)
	}
	c := reference()
	c.Attempts = 9
	c.FailureRate.Den = 9
	bothConditions(c, func(x *Condition) { x.QualifiedRate.Den = 9 })
	if x := HiddenChecks(c, tr)[6]; x.Status != Fail {
		t.Errorf("counting requests as attempts should fail the request view: %+v", x)
	}
}

// "token" is true of a trace whose events each carry one token (the unit's
// trace): a token's time is its event's time. It is wrong once an event
// carries several tokens under one timestamp.
func TestRecordedTokenIsRightOnlyWhenEveryEventIsOneToken(t *testing.T) {
	c := reference()
	c.Streaming.Recorded = PerToken
	if x, _ := Check(c, readUnitTrace(t)).Result("stream.recorded"); x.Status != Pass {
		t.Errorf("unit trace, one token per event: %s %s", x.Status, x.Hint)
	}
	practice, err := trace.ReadFile(filepath.Join("..", "..", "data", "unit01", "practice.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := Check(c, practice).Result("stream.recorded")
	if x.Status != Fail || !strings.Contains(x.Hint, "card.PerEvent") {
		t.Errorf("practice trace has multi-token events: %s %s", x.Status, x.Hint)
	}
	c.Streaming.Recorded = PerEvent
	if x, _ := Check(c, practice).Result("stream.recorded"); x.Status != Pass {
		t.Errorf("event is always right: %s", x.Status)
	}
}

func TestUncertainIsFreeTextForAHuman(t *testing.T) {
	tr := readUnitTrace(t)
	for text, want := range map[string]Status{
		"":     Fail,
		"都很好。": Fail,
		"我觉得这个服务整体还挺快的，没什么问题了。":           Fail,
		"只有 8 个成功样本，我不确定换一个窗口 P95 是否还成立。": NeedsHuman,
		// A reviewer's correct answer that names no word of the first list.
		"换一个时段重测，P95 不一定还是 2 s：8 个样本太少，说不准尾部": NeedsHuman,
	} {
		c := reference()
		c.Uncertain = text
		x, _ := Check(c, tr).Result("text.uncertain")
		if x.Status != want {
			t.Errorf("%q: %s, want %s", text, x.Status, want)
		}
	}
}

// A figure computed right and written with too few digits (a goodput of
// 0.0952 written 0.1) is told it is the rounding, not sent back to the
// method; a wrong count near the right value still is.
// Counter-evidence told in the learner's own words (a request name, a
// delay in seconds, a refused connection) reaches the human reader; talk
// about the device alone still does not.
func TestCounterEvidenceInPlainWordsIsRead(t *testing.T) {
	tr := readUnitTrace(t)
	for text, want := range map[string]Status{
		"GPU 忙碌率接近 100% 的那几秒里，R8 过了 2 秒才收到第一个字，R10 连接被拒": NeedsHuman,
		"R3 等了 1800 ms 才有输出。":       NeedsHuman,
		"GPU 很忙,所以需要买更多的 GPU 才行。":   Fail,
		"GPU 利用率很高，说明模型算得很卖力，显卡很贵。": Fail,
	} {
		c := reference()
		c.CounterEvidence = text
		x, _ := Check(c, tr).Result("text.counter_evidence")
		if x.Status != want {
			t.Errorf("%q: %s, want %s", text, x.Status, want)
		}
	}
}

func TestRoundingIsNamedAsRounding(t *testing.T) {
	for _, c := range []struct {
		written, want float64
		rounded       bool
	}{
		{0.1, 0.0952, true}, {1.2, 1.234, true}, {0.09, 0.0952, false}, {0.0917, 0.1, false},
		{12, 11.6, true}, {0.0952, 0.0952, true}, {0, 0.0952, false}, {0.1, 0.2, false},
	} {
		if got := roundedFrom(c.written, c.want); got != c.rounded {
			t.Errorf("roundedFrom(%v, %v) = %v", c.written, c.want, got)
		}
	}
}

// The card states one P95 and one failure rate (no SLO enters either): a
// wrong one fails its own figures row once, with no "门槛 1 s、0.5 s 下"
// prefix, and no hidden row besides.
func TestAWrongP95OrFailureRateFailsOneRowOnce(t *testing.T) {
	tr := readUnitTrace(t)
	for name, m := range map[string]struct {
		mutate func(c *Card)
		id     string
	}{
		"P95":          {func(c *Card) { c.P95 = Figure{1.5, Seconds} }, "figures.p95"},
		"failure rate": {func(c *Card) { c.FailureRate = Ratio{3, 10, "失败尝试/全部尝试"} }, "figures.failure_rate"},
	} {
		c := reference()
		m.mutate(c)
		r := Check(c, tr)
		if got := failing(r); !slices.Equal(got, []string{m.id}) || r.Failed != 1 {
			t.Errorf("%s: failing rows %v (failed %d), want only %s", name, got, r.Failed, m.id)
		}
		if x, _ := r.Result(m.id); strings.Contains(x.Hint, "门槛") {
			t.Errorf("%s: the hint speaks of a condition, but the card has one %s: %q", name, name, x.Hint)
		}
		for _, x := range HiddenChecks(c, tr) {
			if x.Status != Pass && !(name == "failure rate" && x.ID == "hidden.samples_consistency") {
				t.Errorf("%s: hidden %s also charged: %s", name, x.ID, x.Hint)
			}
		}
	}
}

// A blank card is told what it has not written yet, not that it deleted
// the failures (0/0 is no rate at all).
func TestBlankP95AndFailureRateSayNotWrittenYet(t *testing.T) {
	r := Check(&Card{}, readUnitTrace(t))
	for id, want := range map[string]string{"figures.p95": "还没有写成功 TTFT 的 P95", "figures.failure_rate": "还没有写失败率"} {
		x, _ := r.Result(id)
		if x.Status != Fail || !strings.Contains(x.Hint, want) || strings.Contains(x.Hint, "删掉") {
			t.Errorf("%s on a blank card: %s %q, want a fail saying %q", id, x.Status, x.Hint, want)
		}
	}
}

// resultOf is the row id of Check(c) on the unit trace.
func resultOf(t *testing.T, c *Card, id string) Result {
	t.Helper()
	for _, x := range Check(c, readUnitTrace(t)).Results {
		if x.ID == id {
			return x
		}
	}
	t.Fatalf("no row %s", id)
	return Result{}
}

// A short output in the lesson's own words is an answer (the seventh
// review: "可恢复的检查点" and "每个请求的回答" were told "还没说清"): the
// keyword pre-check passes it to a person, whatever its length.
func TestShortOutputsGoToAPerson(t *testing.T) {
	c := reference()
	c.Outputs = Outputs{Training: "可恢复的检查点", Inference: "每个请求的回答"}
	if x := resultOf(t, c, "text.outputs"); x.Status != NeedsHuman {
		t.Errorf("short outputs: %s %q, want them read by a person", x.Status, x.Hint)
	}
	c.Outputs = Outputs{Training: "很多东西", Inference: "一些东西"}
	if x := resultOf(t, c, "text.outputs"); x.Status != Fail {
		t.Errorf("off-topic outputs: %s, want Fail", x.Status)
	}
}

// 2/8 counts both failures over the complete successes: the hint names
// the denominator, not deleted failures (the learner deleted nothing).
func TestFailureRateOverSuccessesNamesTheDenominator(t *testing.T) {
	c := reference()
	c.FailureRate.Den = 8
	x := resultOf(t, c, "figures.failure_rate")
	if x.Status != Fail || !strings.Contains(x.Hint, "分母") || strings.Contains(x.Hint, "删掉") {
		t.Errorf("2/8: %s %q, want the denominator named", x.Status, x.Hint)
	}
	c.FailureRate.Num = 0
	if x := resultOf(t, c, "figures.failure_rate"); !strings.Contains(x.Hint, "删掉") {
		t.Errorf("0/8: %q, want the deleted-failures hint", x.Hint)
	}
}
