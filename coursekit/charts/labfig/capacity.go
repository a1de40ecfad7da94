package labfig

import (
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/charts/page"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// CapacitySearch is what the capacity charts draw: a `coursekit capacity`
// result, copied field by field by the caller so that this package does
// not depend on the search. Every word the figures and the page print is
// a zh/en pair (charts.WithLang), from the same tables as the text of
// `coursekit capacity` (cardfmt.CapacityRuleIn, cardfmt.CapacityVerdictIn).
type CapacitySearch struct {
	Target    float64 // share of attempts that must qualify
	SLOTTFTMS float64
	// Latency are the search's SLOs beyond TTFT (none: a TTFT SLO alone);
	// the rule is worded from them, SLOTTFTMS and Judged (answers judged:
	// "∧ quality pass") in the chart's language.
	Latency metrics.LatencySLO
	Judged  bool
	// Model is the model the server reported; it is escaped like any text
	// from a server.
	Model          string
	Steps          []CapacityStep
	MaxRateMeeting *float64
	// AtLeast is true when every step met up to the search's limit: the
	// answer is a lower bound (容量 ≥ 上限), not a capacity.
	AtLeast bool
	// AnswerMargin is capacity.Result.AnswerMargin: how much less than the
	// answer the server may sustain, as its step measured it (zero: no
	// rate answered).
	AnswerMargin capacity.AnswerMargin
	Provisional  bool
	ElapsedS     float64
	// Undecided says no step decided either way (MostAttempts in a step,
	// AttemptsToMeet needed to meet the target at best): the answer is
	// undecided, not "no rate meets" (cardfmt.CapacityUndecidedIn).
	Undecided      bool
	MostAttempts   int64
	AttemptsToMeet int
	// AnswerGrowth is the answer step's load check when it shows a queue
	// growing that its test could not decide on (cardfmt.CapacityGrowthIn);
	// nil otherwise.
	AnswerGrowth *capacity.LoadCheck
	// ShortStep is capacity.Result.ShortStep: with no rate met, the step
	// whose length, not the server, bounds the answer (cardfmt.CapacityNoRateIn).
	ShortStep *capacity.Step
	// StoppedBefore is capacity.Result.StoppedBefore: the rate the
	// bisection stopped before, too low to meet within StepMaxDurationS
	// (cardfmt.CapacityStoppedBeforeIn); nil otherwise.
	StoppedBefore    *float64
	StepMaxDurationS float64
}

// CapacityStep is one searched rate. Shares are in [0, 1]; nil is unknown.
type CapacityStep struct {
	Rate                      float64
	Attempts, Qualified       int64
	Attainment, CILow, CIHigh *float64
	// Verdict is capacity.Meets, Fails, Undecided or Interrupted.
	Verdict      string
	StoppedEarly bool // ended early on overload
	// InFlight are the attempts a step stopped early cut off: neither
	// qualified nor failed, left out of Attempts, printed beside them.
	InFlight   int64
	Overloaded bool // failed because the server fell behind (early or by the overload test)
	WindowS    float64
	Extended   int
	// BeforeWindow: the search was interrupted before the step's window
	// began; it measured nothing (capacity.Step.BeforeWindow).
	BeforeWindow bool
	GoodputPerS  float64
	P95TTFTMS    *float64
	BusyMean     *float64
	// ClientLag and SendLagP99MS are how late the client was during the
	// step, as the search's summary recorded them (capacity.Step); the
	// chart words them as the text does (cardfmt.CapacityLatenessIn).
	ClientLag    *metrics.ClientLag
	SendLagP99MS *float64
}

// lateness is the step's client lateness in lg, "" when on time.
func (s CapacityStep) lateness(lg lang.Lang) string {
	return cardfmt.CapacityLatenessIn(lg, capacity.Step{ClientLag: s.ClientLag, SendLagP99MS: s.SendLagP99MS})
}

// verdictColors colour the verdicts; their names are cardfmt's.
var verdictColors = map[string]string{
	capacity.Meets:       "#3ba272",
	capacity.Fails:       draw.ColorFail,
	capacity.Undecided:   "#e0a000",
	capacity.Interrupted: draw.ColorInFlight,
}

func verdictOf(lg lang.Lang, v string) (name, color string) {
	if c, ok := verdictColors[v]; ok {
		return cardfmt.CapacityVerdictIn(lg, v), c
	}
	return draw.Label(v), draw.ColorMark
}

// sortedSteps are the steps by rate (the search visits them out of order).
func sortedSteps(r CapacitySearch) []CapacityStep {
	s := slices.Clone(r.Steps)
	slices.SortStableFunc(s, func(a, b CapacityStep) int {
		switch {
		case a.Rate < b.Rate:
			return -1
		case a.Rate > b.Rate:
			return 1
		}
		return 0
	})
	return s
}

// pct2 is a share as a percentage rounded to 0.01 (a chart value).
func pct2(v float64) float64 { return math.Round(v*10000) / 100 }

// The attainment points carry no permanent label: verdict labels of steps
// close in rate (1 and 2 req/s on a 0–16 axis, or four steps at 100 %)
// overlapped each other and the target line's label. The colour is the
// verdict, a triangle a step during which the client was late, and the
// subtitle says so once (attainmentKey); the tooltip has every word.
const (
	symbolOnTime = "circle"
	symbolLate   = "triangle"
)

// The words of attainmentKey.
var (
	capKeyColours = lang.Msg{"点的颜色是判定：%s（悬停看每一步的详情）", "a point's colour is its verdict: %s (hover for each step's details)"}
	capKeyColour  = lang.Msg{"%s %s", "%s %s"}
	capKeySep     = lang.Msg{"，", ", "}
	capKeyLate    = lang.Msg{"；三角形：这一步客户端迟到，TTFT 可能被多算", "; a triangle: the client was late during that step, so its TTFT may be too long"}
	capColourName = map[string]lang.Msg{
		capacity.Meets:       {"绿色", "green"},
		capacity.Fails:       {"红色", "red"},
		capacity.Undecided:   {"黄色", "yellow"},
		capacity.Interrupted: {"灰色", "grey"},
	}
)

// attainmentKey says, once, what the attainment points' colours and
// symbols mean: the verdicts of the steps drawn (those with an
// attainment), in a fixed order, and the triangle when a drawn step was
// late.
func attainmentKey(lg lang.Lang, steps []CapacityStep) string {
	seen, late := map[string]bool{}, false
	for _, s := range steps {
		if s.Attainment == nil {
			continue
		}
		seen[s.Verdict] = true
		late = late || s.lateness(lg) != ""
	}
	var parts []string
	for _, v := range []string{capacity.Meets, capacity.Fails, capacity.Undecided, capacity.Interrupted} {
		if seen[v] {
			parts = append(parts, lg.F(capKeyColour, capColourName[v].In(lg), cardfmt.CapacityVerdictIn(lg, v)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	key := lg.F(capKeyColours, strings.Join(parts, capKeySep.In(lg)))
	if late {
		key += capKeyLate.In(lg)
	}
	return key
}

var none = lang.Msg{"无", "none"}

func pctOrNone(lg lang.Lang, v *float64) string {
	if v == nil {
		return none.In(lg)
	}
	return pct(*v)
}

// intervalOrNone is "[a%，b%]" ("[a%, b%]" in English), or "无" when the step has no interval (no
// attempt in its window): never "[无, 无]", a half-width comma in Chinese.
func intervalOrNone(lg lang.Lang, lo, hi *float64) string {
	if lo == nil || hi == nil {
		return none.In(lg)
	}
	sep := "，" // full-width in Chinese, as the 无 beside it
	if lg == lang.EN {
		sep = ", "
	}
	return "[" + pct(*lo) + sep + pct(*hi) + "]"
}

// subtitleWidth is the widest subtitle line, in CJK characters, that a
// 900 px chart shows whole at 13 px: ECharts does not wrap a subtitle, it
// clips it at the chart's edge.
const subtitleWidth = 60

// wrappedTitle is draw.Titled with the subtitle wrapped at subtitleWidth
// (draw.WrapLines: nothing dropped), and the grid top that clears its
// lines, at least minTop px.
func wrappedTitle(title, sub string, minTop int) (opts.Title, string) {
	var lines []string
	for _, l := range strings.Split(sub, "\n") {
		lines = append(lines, draw.WrapLines(l, subtitleWidth)...)
	}
	return draw.Titled(title, strings.Join(lines, "\n")), strconv.Itoa(max(minTop, 70+19*len(lines))) // the axis name sits about 20 px above the grid
}

// capacitySubtitle says the answer, its interval, the steps and the time.
func capacitySubtitle(lg lang.Lang, r CapacitySearch) string {
	q := draw.SafeText(cardfmt.CapacityRuleIn(lg, r.SLOTTFTMS, r.Latency, r.Judged))
	rule := lg.F(lang.Msg{"联合合格（%s）占全部尝试 ≥ %s，判定用 95%% Wilson 区间", "qualified (%s) of all attempts ≥ %s, decided by the 95%% Wilson interval"}, q, pct(r.Target))
	if r.Model != "" {
		rule = lg.F(lang.Msg{"模型 %s；%s", "model %s; %s"}, draw.Label(r.Model), rule)
	}
	ans := strings.TrimRight(cardfmt.CapacityNoRateIn(lg, r.ShortStep, r.AttemptsToMeet), "。.")
	if r.MaxRateMeeting != nil {
		ans = lg.F(lang.Msg{"结论：达标的最高速率 %s 次/s", "Answer: the highest rate that meets the target is %s req/s"}, draw.Num(*r.MaxRateMeeting))
		if r.AtLeast {
			ans = lg.F(lang.Msg{"结论：容量 ≥ %s 次/s（搜索的上限，没有找到不达标的速率）", "Answer: capacity ≥ %s req/s (the search's limit; no rate failed)"}, draw.Num(*r.MaxRateMeeting))
		}
		for _, s := range r.Steps {
			if s.Rate == *r.MaxRateMeeting {
				ans += lg.F(lang.Msg{"（联合合格 %s，区间 %s）", " (qualified %s, interval %s)"}, pctOrNone(lg, s.Attainment), intervalOrNone(lg, s.CILow, s.CIHigh))
			}
		}
		if r.AtLeast {
			// The ≥ is what the steps met; the margin is what the last
			// step's window could show.
			if w := strings.TrimRight(cardfmt.CapacityAtLimitWindowIn(lg, r.AnswerMargin), "。."); w != "" {
				ans += lg.S(lang.Msg{"；", "; "}) + w
			}
		} else {
			ans += cardfmt.CapacityWithinIn(lg, r.AnswerMargin)
		}
	}
	if r.MaxRateMeeting == nil && r.Undecided {
		ans = strings.TrimRight(cardfmt.CapacityUndecidedIn(lg, r.MostAttempts, r.AttemptsToMeet, r.Target), "。.")
	}
	if r.StoppedBefore != nil {
		// What the text's answer says next: why the search went no lower.
		ans += "\n" + strings.TrimRight(cardfmt.CapacityStoppedBeforeIn(lg, *r.StoppedBefore, r.AttemptsToMeet, r.StepMaxDurationS), "。.")
	}
	if r.AnswerGrowth != nil {
		ans += "\n" + cardfmt.CapacityGrowthIn(lg, *r.AnswerGrowth)
	}
	if r.Provisional {
		ans += lg.S(lang.Msg{"；搜索被中断，答案是暂定的", "; the search was interrupted, so the answer is provisional"})
	}
	return rule + "\n" + ans + lg.F(lang.Msg{"；共 %s 步，用时 %s s", "; %s in %s s"}, lang.N(lg, len(r.Steps), "step", "steps"), draw.Num(math.Round(r.ElapsedS*10)/10))
}

// The words of the capacity figures and page.
var (
	capRatePerS   = lang.Msg{"%s 次/s", "%s req/s"}
	capRateAxis   = lang.Msg{"提供的速率（次/s，开环泊松）", "offered rate (req/s, open-loop Poisson)"}
	capWilson     = lang.Msg{"95% Wilson 区间", "95% Wilson interval"}
	capAttainment = lang.Msg{"联合合格率", "qualified share"}
	capBusy       = lang.Msg{"设备忙碌率", "device busy share"}
	capGoodput    = lang.Msg{"goodput（合格次/s）", "goodput (qualified/s)"}
	capOffered    = lang.Msg{"提供的速率", "offered rate"}
	capP95        = lang.Msg{"P95 TTFT（ms）", "P95 TTFT (ms)"}
	// capNoAttempts lists, under the load figure, the steps without an
	// attempt, whose goodput is not drawn.
	capNoAttempts       = lang.Msg{"%s：窗口里没有尝试，没有 goodput，不画点（缺失不是 0）", "%s: no attempt in the window, so no goodput and no point drawn (missing is not 0)"}
	capNoAttemptStep    = lang.Msg{"%s 次/s（%s）", "%s req/s (%s)"}
	capStepBeforeWindow = lang.Msg{"%s 次/s：%s（%s）", "%s req/s: %s (%s)"}
	capStepTooltip      = lang.Msg{"%s 次/s：%d / %d 合格%s = %s，95%% Wilson 区间 %s → %s（窗口 %s s，%s）", "%s req/s: %d / %d qualified%s = %s, 95%% Wilson interval %s → %s (window %s s, %s)"}
)

// Where a capacity chart's horizontal marks put their labels: at the x
// axis's start, 0, left of the first step's rate, where no series runs. At
// the end, the highest rates, the busy share nears 100 %, the attainment
// falls through the target and the P95 TTFT climbs through the SLO (walk
// 35e). The target's label goes below its line: a step that meets has its
// whole Wilson interval above the target, and the search starts with steps
// that meet. The SLO's goes above: the first steps' P95 TTFT lies below it.
const (
	targetLabelAt = "insideStartBottom"
	sloLabelAt    = "insideStartTop"
)

// CapacityAttainment draws, against the offered rate, each step's
// attainment (qualified / attempts, failures in the denominator) with its
// 95 % Wilson interval as a box around it, the point coloured and labelled by its
// verdict, the target as a horizontal line and the answer as a vertical
// one, and the server's busy share when it exposes one: all in %, on one
// axis. A busy device beside a failing step is the point of the figure.
func CapacityAttainment(r CapacitySearch, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "500px", options)
	lg := c.Lang
	steps := sortedSteps(r)
	var mid, att, busy []draw.Point
	var boxes []any
	// Each step's interval is a box around its rate, 1.2 % of the axis wide.
	half := 0.006
	if len(steps) > 0 { // a search interrupted in its first step has none
		half *= max(steps[len(steps)-1].Rate, 1)
	}
	anyBusy := false
	for _, s := range steps {
		vname, vcolor := verdictOf(lg, s.Verdict)
		if s.CILow != nil && s.CIHigh != nil {
			lo, hi := pct2(*s.CILow), pct2(*s.CIHigh)
			boxes = append(boxes, []draw.MarkItem{
				{Name: lg.F(lang.Msg{"%s 次/s：95%% Wilson 区间 [%s，%s]", "%s req/s: 95%% Wilson interval [%s, %s]"}, draw.Num(s.Rate), pct(*s.CILow), pct(*s.CIHigh)), Coord: []float64{s.Rate - half, lo}},
				{Coord: []float64{s.Rate + half, hi}},
			})
			mid = append(mid, draw.Point{Value: []any{s.Rate, math.Round((lo+hi)*50) / 100}})
		} else {
			mid = append(mid, draw.Point{Value: []any{s.Rate, "-"}})
		}
		tip := lg.F(capStepTooltip,
			draw.Num(s.Rate), s.Qualified, s.Attempts, cardfmt.CapacityCutOffIn(lg, s.StoppedEarly, s.InFlight), pctOrNone(lg, s.Attainment), intervalOrNone(lg, s.CILow, s.CIHigh), vname, draw.Num(s.WindowS), cardfmt.CapacityExtendedIn(lg, s.Extended))
		if s.BeforeWindow {
			tip = lg.F(capStepBeforeWindow, draw.Num(s.Rate), vname, cardfmt.CapacityBeforeWindowIn(lg))
		}
		switch {
		case s.StoppedEarly:
			tip += lg.S(lang.Msg{"；队列持续增长，提前停止", "; the queue kept growing, stopped early"})
		case s.Overloaded:
			tip += lg.S(lang.Msg{"；过载：服务器跟不上提供的速率（完成落后于到达，或在途数在增长）", "; overload: the server fell behind the offered rate (completions behind the arrivals, or in flight growing)"})
		}
		symbol, size := symbolOnTime, 11
		if late := s.lateness(lg); late != "" {
			tip += lg.S(lang.Msg{"；", "; "}) + late // late names itself ("客户端迟到：…")
			symbol, size = symbolLate, 14
		}
		var v any = "-"
		if s.Attainment != nil {
			v = pct2(*s.Attainment)
		}
		att = append(att, draw.Point{Value: []any{s.Rate, v}, Symbol: symbol, SymbolSize: size,
			ItemStyle: &opts.ItemStyle{Color: vcolor},
			Tooltip:   &draw.NodeTooltip{Show: true, Formatter: tip}})
		var b any = "-"
		if s.BusyMean != nil {
			b, anyBusy = pct2(capacity.BusyShown(*s.BusyMean)), true
		}
		busy = append(busy, draw.Point{Value: []any{s.Rate, b}, Tooltip: &draw.NodeTooltip{Show: true,
			Formatter: lg.F(lang.Msg{"%s 次/s：窗口内设备忙碌率 %s", "%s req/s: device busy share in the window %s"}, draw.Num(s.Rate), busyOrNotReported(lg, s.BusyMean))}})
	}
	marks := []any{draw.HLine(lg.F(lang.Msg{"目标 %s", "target %s"}, pct(r.Target)), pct2(r.Target), draw.ColorMark, targetLabelAt)}
	if r.MaxRateMeeting != nil {
		name := lg.F(lang.Msg{"答案 %s 次/s", "answer %s req/s"}, draw.Num(*r.MaxRateMeeting))
		if r.AtLeast {
			name = lg.F(lang.Msg{"答案 ≥ %s 次/s（搜索上限）", "answer ≥ %s req/s (the search's limit)"}, draw.Num(*r.MaxRateMeeting))
		}
		marks = append(marks, draw.VLine(name, *r.MaxRateMeeting, "#3ba272", "insideMiddleTop"))
	}
	legend := []string{capAttainment.In(lg), capWilson.In(lg)}
	if anyBusy {
		legend = append(legend, capBusy.In(lg))
	}
	sub := capacitySubtitle(lg, r)
	if key := attainmentKey(lg, steps); key != "" {
		sub += "\n" + key
	}
	title, top := wrappedTitle(lg.S(lang.Msg{"容量搜索：各步的联合合格率与 95% 区间", "Capacity search: each step's qualified share and its 95% interval"}), sub, 110)
	l := ec.NewLine()
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(title),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom", Data: legend}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: top, Bottom: "80", Left: "60", Right: "60"}),
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: capRateAxis.In(lg), NameLocation: "middle", NameGap: 28, Min: 0}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "%", Min: 0, Max: 100}),
		ec.WithAnimation(false),
	)
	// The intervals: one box per step, on a series of their midpoints that
	// draws nothing itself (stacking a band does not work on a value x
	// axis: ECharts stacks the x values).
	draw.AddLine(l, capWilson.In(lg), mid, opts.LineChart{ShowSymbol: opts.Bool(false)}, opts.LineStyle{Color: "#7f9fdc", Opacity: opts.Float(0)}, nil)
	l.MultiSeries[0].MarkAreas = &opts.MarkAreas{Data: boxes, MarkAreaStyle: opts.MarkAreaStyle{
		ItemStyle: &opts.ItemStyle{Color: "#7f9fdc", Opacity: opts.Float(0.45)},
		Label:     &opts.Label{Show: opts.Bool(false)},
	}}
	draw.AddLine(l, capAttainment.In(lg), att, opts.LineChart{ShowSymbol: opts.Bool(true)}, opts.LineStyle{Color: draw.ColorOK, Width: 2}, draw.MarkLines(marks...))
	if anyBusy {
		draw.AddLine(l, capBusy.In(lg), busy, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 6}, opts.LineStyle{Color: draw.ColorOverSLO, Width: 2, Type: "dashed"}, nil)
	}
	return l
}

// CapacityLoad draws, against the offered rate, each step's goodput
// (qualified attempts per window second, left axis) beside the offered
// rate itself, and its P95 TTFT over complete successes (right axis) with
// the TTFT SLO as a line.
func CapacityLoad(r CapacitySearch, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "440px", options)
	lg := c.Lang
	steps := sortedSteps(r)
	var good, offered, p95 []draw.Point
	var noAttempts []string // steps without an attempt: no goodput, no point
	for _, s := range steps {
		if s.Attempts == 0 {
			// No attempt in the window (a step interrupted at its start):
			// its goodput is missing, not 0, so no point is drawn.
			vname, _ := verdictOf(lg, s.Verdict)
			noAttempts = append(noAttempts, lg.F(capNoAttemptStep, draw.Num(s.Rate), vname))
			good = append(good, draw.Point{Value: []any{s.Rate, "-"}})
		} else {
			// Goodput as the card prints it (three decimals), not rounded again.
			good = append(good, draw.Point{Value: []any{s.Rate, math.Round(s.GoodputPerS*1000) / 1000}, Tooltip: &draw.NodeTooltip{Show: true,
				Formatter: lg.F(lang.Msg{"%s 次/s：goodput %s 次/s（%d 次合格 / 窗口 %s s）", "%s req/s: goodput %s /s (%d qualified / window %s s)"}, draw.Num(s.Rate), draw.Num(s.GoodputPerS), s.Qualified, draw.Num(s.WindowS))}})
		}
		offered = append(offered, draw.Point{Value: []any{s.Rate, s.Rate}})
		var v any = "-"
		tip := lg.F(lang.Msg{"%s 次/s：没有完整成功，P95 TTFT 无", "%s req/s: no complete success, no P95 TTFT"}, draw.Num(s.Rate))
		if s.P95TTFTMS != nil {
			v = math.Round(*s.P95TTFTMS*10) / 10
			tip = lg.F(lang.Msg{"%s 次/s：完整成功的 P95 TTFT %s ms", "%s req/s: P95 TTFT of the complete successes %s ms"}, draw.Num(s.Rate), draw.MS(*s.P95TTFTMS))
		}
		p95 = append(p95, draw.Point{Value: []any{s.Rate, v}, Tooltip: &draw.NodeTooltip{Show: true, Formatter: tip}})
	}
	sub := lg.F(lang.Msg{"goodput = 联合合格次数 / 窗口秒数；灰色虚线是提供的速率，goodput 离它越远，失败或超时越多；P95 TTFT 只算完整成功，虚线是门槛 %s", "goodput = qualified / window seconds; the grey dotted line is the offered rate: the further goodput is below it, the more failed or were late; P95 TTFT over complete successes only, the dashed line is the SLO %s"}, draw.SLOText(r.SLOTTFTMS))
	if len(noAttempts) > 0 {
		sub += "\n" + lg.F(capNoAttempts, strings.Join(noAttempts, capKeySep.In(lg)))
	}
	title, top := wrappedTitle(lg.S(lang.Msg{"容量搜索：goodput 与 P95 TTFT", "Capacity search: goodput and P95 TTFT"}), sub, 90)
	l := ec.NewLine()
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(title),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: top, Bottom: "80", Left: "60", Right: "70"}),
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: capRateAxis.In(lg), NameLocation: "middle", NameGap: 28, Min: 0}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: lg.S(lang.Msg{"次/s", "/s"}), Min: 0}),
		ec.WithAnimation(false),
	)
	l.ExtendYAxis(opts.YAxis{Type: "value", Name: capP95.In(lg), Min: 0, Position: "right"})
	draw.AddLine(l, capGoodput.In(lg), good, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 8}, opts.LineStyle{Color: draw.ColorOK, Width: 3}, nil)
	draw.AddLine(l, capOffered.In(lg), offered, opts.LineChart{ShowSymbol: opts.Bool(false)}, opts.LineStyle{Color: draw.ColorInFlight, Width: 1, Type: "dotted"}, nil)
	slo := draw.HLine(lg.F(lang.Msg{"TTFT 门槛 %s", "TTFT SLO %s"}, draw.SLOText(r.SLOTTFTMS)), r.SLOTTFTMS, draw.ColorFail, sloLabelAt)
	slo.LineStyle.Type, slo.LineStyle.Width = "dashed", 2
	draw.AddLine(l, capP95.In(lg), p95, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 7, YAxisIndex: 1}, opts.LineStyle{Color: draw.ColorOverSLO, Width: 2}, draw.MarkLines(slo))
	return l
}

// WriteCapacityPage writes the search as one offline page in lg: the
// answer in a paragraph, the attainment figure and the load figure.
func WriteCapacityPage(w io.Writer, r CapacitySearch, lg lang.Lang) error {
	var b strings.Builder
	for _, s := range sortedSteps(r) {
		name, _ := verdictOf(lg, s.Verdict)
		b.WriteString(lg.F(lang.Msg{"%s 次/s：%d / %d 合格%s，%s；设备忙碌率 %s", "%s req/s: %d / %d qualified%s, %s; device busy share %s"}, draw.Num(s.Rate), s.Qualified, s.Attempts, cardfmt.CapacityCutOffIn(lg, s.StoppedEarly, s.InFlight), name, busyOrNotReported(lg, s.BusyMean)))
		if late := s.lateness(lg); late != "" {
			b.WriteString(lg.S(lang.Msg{"；", "; "}) + late)
		}
		b.WriteString("\n")
	}
	in := charts.WithLang(lg)
	return page.WriteIn(w, lg, lg.S(lang.Msg{"容量搜索", "Capacity search"}),
		page.Text(capacitySubtitle(lg, r)),
		page.Figure(CapacityAttainment(r, charts.WithID("capacity_attainment"), in), lg.S(lang.Msg{"每个点是一步：联合合格次数 / 全部尝试（失败留在分母里），竖条是该步的 95% Wilson 区间；区间下界 ≥ 目标才算达标，上界 < 目标算不达标，其余尚无定论。", "Each point is a step: qualified / all attempts (failures stay in the denominator); the bar is the step's 95% Wilson interval: a lower bound ≥ the target meets, an upper bound < the target fails, anything else is undecided."})),
		page.Figure(CapacityLoad(r, charts.WithID("capacity_load"), in), lg.S(lang.Msg{"goodput 与 P95 TTFT：设备忙碌不等于服务得快。", "Goodput and P95 TTFT: a busy device is not a fast service."})),
		page.Text(b.String()))
}

// busyOrNotReported is a step's busy share as shown (busyShown), or, when
// the server exposed no busy reading, "服务器未报告" ("not reported") as
// the text of coursekit capacity says: not "none", which reads as idle.
func busyOrNotReported(lg lang.Lang, v *float64) string {
	if v == nil {
		return lg.S(lang.Msg{"服务器未报告", "not reported"})
	}
	return pct(*busyShown(v))
}

// busyShown is a busy share as shown (capacity.BusyShown); nil stays nil.
func busyShown(v *float64) *float64 {
	if v == nil {
		return nil
	}
	b := capacity.BusyShown(*v)
	return &b
}
