package labfig

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/charts/page"
)

// CapacitySearch is what the capacity charts draw: a `coursekit capacity`
// result, copied field by field by the caller so that this package does
// not depend on the search.
type CapacitySearch struct {
	Target    float64 // share of attempts that must qualify
	SLOTTFTMS float64
	// Rule is the joint-qualification rule as the search's text output
	// says it (e.g. with an E2E SLO); empty means complete success ∧
	// quality pass ∧ TTFT ≤ SLOTTFTMS.
	Rule string
	// Model is the model the server reported; it is escaped like any text
	// from a server.
	Model          string
	Steps          []CapacityStep
	MaxRateMeeting *float64
	// AtLeast is true when every step met up to the search's limit: the
	// answer is a lower bound (容量 ≥ 上限), not a capacity.
	AtLeast     bool
	Provisional bool
	ElapsedS    float64
}

// CapacityStep is one searched rate. Shares are in [0, 1]; nil is unknown.
type CapacityStep struct {
	Rate                      float64
	Attempts, Qualified       int64
	Attainment, CILow, CIHigh *float64
	// Verdict is "meets", "fails", "undecided" or "interrupted".
	Verdict      string
	StoppedEarly bool // ended early on overload
	Overloaded   bool // failed because the server fell behind (early or by the overload test)
	WindowS      float64
	Extended     int
	GoodputPerS  float64
	P95TTFTMS    *float64
	BusyMean     *float64
}

// capacityVerdict names and colours a verdict.
var capacityVerdict = map[string]struct{ name, color string }{
	"meets":       {"达标", "#3ba272"},
	"fails":       {"不达标", draw.ColorFail},
	"undecided":   {"尚无定论", "#e0a000"},
	"interrupted": {"被中断", draw.ColorInFlight},
}

func verdictOf(v string) (name, color string) {
	if c, ok := capacityVerdict[v]; ok {
		return c.name, c.color
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

func pctOrNone(v *float64) string {
	if v == nil {
		return "无"
	}
	return pct(*v)
}

// intervalOrNone is "[a%, b%]", or "无" when the step has no interval (no
// attempt in its window): never "[无, 无]", a half-width comma in Chinese.
func intervalOrNone(lo, hi *float64) string {
	if lo == nil || hi == nil {
		return "无"
	}
	return "[" + pct(*lo) + ", " + pct(*hi) + "]"
}

// capacitySubtitle says the answer, its interval, the steps and the time.
func capacitySubtitle(r CapacitySearch) string {
	q := "完整成功 ∧ 质量通过 ∧ TTFT ≤ " + draw.SLOText(r.SLOTTFTMS)
	if r.Rule != "" {
		q = draw.SafeText(r.Rule)
	}
	rule := fmt.Sprintf("联合合格（%s）占全部尝试 ≥ %s，判定用 95%% Wilson 区间", q, pct(r.Target))
	if r.Model != "" {
		rule = "模型 " + draw.Label(r.Model) + "；" + rule
	}
	ans := "结论：搜索过的速率没有一个达标"
	if r.MaxRateMeeting != nil {
		ans = fmt.Sprintf("结论：达标的最高速率 %s 次/s", draw.Num(*r.MaxRateMeeting))
		if r.AtLeast {
			ans = fmt.Sprintf("结论：容量 ≥ %s 次/s（搜索的上限，没有找到不达标的速率）", draw.Num(*r.MaxRateMeeting))
		}
		for _, s := range r.Steps {
			if s.Rate == *r.MaxRateMeeting {
				ans += fmt.Sprintf("（联合合格 %s，区间 %s）", pctOrNone(s.Attainment), intervalOrNone(s.CILow, s.CIHigh))
			}
		}
	}
	if r.Provisional {
		ans += "；搜索被中断，答案是暂定的"
	}
	return rule + "\n" + ans + fmt.Sprintf("；共 %d 步，用时 %s s", len(r.Steps), draw.Num(math.Round(r.ElapsedS*10)/10))
}

// CapacityAttainment draws, against the offered rate, each step's
// attainment (qualified / attempts, failures in the denominator) with its
// 95 % Wilson interval as a box around it, the point coloured and labelled by its
// verdict, the target as a horizontal line and the answer as a vertical
// one, and the server's busy share when it exposes one: all in %, on one
// axis. A busy device beside a failing step is the point of the figure.
func CapacityAttainment(r CapacitySearch, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "500px", options)
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
		vname, vcolor := verdictOf(s.Verdict)
		if s.CILow != nil && s.CIHigh != nil {
			lo, hi := pct2(*s.CILow), pct2(*s.CIHigh)
			boxes = append(boxes, []draw.MarkItem{
				{Name: fmt.Sprintf("%s 次/s：95%% Wilson 区间 [%s, %s]", draw.Num(s.Rate), pct(*s.CILow), pct(*s.CIHigh)), Coord: []float64{s.Rate - half, lo}},
				{Coord: []float64{s.Rate + half, hi}},
			})
			mid = append(mid, draw.Point{Value: []any{s.Rate, math.Round((lo+hi)*50) / 100}})
		} else {
			mid = append(mid, draw.Point{Value: []any{s.Rate, "-"}})
		}
		tip := fmt.Sprintf("%s 次/s：%d / %d 合格 = %s，95%% Wilson 区间 %s → %s（窗口 %s s，延长 %d 次）",
			draw.Num(s.Rate), s.Qualified, s.Attempts, pctOrNone(s.Attainment), intervalOrNone(s.CILow, s.CIHigh), vname, draw.Num(s.WindowS), s.Extended)
		label := vname
		switch {
		case s.StoppedEarly:
			tip += "；队列持续增长，提前停止"
			label += "（过载）"
		case s.Overloaded:
			tip += "；完成速率低于提供的速率，在途数在增长"
			label += "（过载）"
		}
		var v any = "-"
		if s.Attainment != nil {
			v = pct2(*s.Attainment)
		}
		att = append(att, draw.Point{Value: []any{s.Rate, v}, Symbol: "circle", SymbolSize: 11,
			ItemStyle: &opts.ItemStyle{Color: vcolor},
			Label:     &opts.Label{Show: opts.Bool(true), Formatter: draw.Literal(label), Position: "top", Color: vcolor},
			Tooltip:   &draw.NodeTooltip{Show: true, Formatter: tip}})
		var b any = "-"
		if s.BusyMean != nil {
			b, anyBusy = pct2(*s.BusyMean), true
		}
		busy = append(busy, draw.Point{Value: []any{s.Rate, b}, Tooltip: &draw.NodeTooltip{Show: true,
			Formatter: fmt.Sprintf("%s 次/s：窗口内设备忙碌率 %s", draw.Num(s.Rate), pctOrNone(s.BusyMean))}})
	}
	marks := []any{draw.HLine(fmt.Sprintf("目标 %s", pct(r.Target)), pct2(r.Target), draw.ColorMark, "insideEndTop")}
	if r.MaxRateMeeting != nil {
		name := fmt.Sprintf("答案 %s 次/s", draw.Num(*r.MaxRateMeeting))
		if r.AtLeast {
			name = fmt.Sprintf("答案 ≥ %s 次/s（搜索上限）", draw.Num(*r.MaxRateMeeting))
		}
		marks = append(marks, draw.VLine(name, *r.MaxRateMeeting, "#3ba272", "insideMiddleTop"))
	}
	legend := []string{"联合合格率", "95% Wilson 区间"}
	if anyBusy {
		legend = append(legend, "设备忙碌率")
	}
	l := ec.NewLine()
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled("容量搜索：各步的联合合格率与 95% 区间", capacitySubtitle(r))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom", Data: legend}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: "110", Bottom: "80", Left: "60", Right: "60"}),
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: "提供的速率（次/s，开环泊松）", NameLocation: "middle", NameGap: 28, Min: 0}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "%", Min: 0, Max: 100}),
		ec.WithAnimation(false),
	)
	// The intervals: one box per step, on a series of their midpoints that
	// draws nothing itself (stacking a band does not work on a value x
	// axis: ECharts stacks the x values).
	draw.AddLine(l, "95% Wilson 区间", mid, opts.LineChart{ShowSymbol: opts.Bool(false)}, opts.LineStyle{Color: "#7f9fdc", Opacity: opts.Float(0)}, nil)
	l.MultiSeries[0].MarkAreas = &opts.MarkAreas{Data: boxes, MarkAreaStyle: opts.MarkAreaStyle{
		ItemStyle: &opts.ItemStyle{Color: "#7f9fdc", Opacity: opts.Float(0.45)},
		Label:     &opts.Label{Show: opts.Bool(false)},
	}}
	draw.AddLine(l, "联合合格率", att, opts.LineChart{ShowSymbol: opts.Bool(true)}, opts.LineStyle{Color: draw.ColorOK, Width: 2}, draw.MarkLines(marks...))
	if anyBusy {
		draw.AddLine(l, "设备忙碌率", busy, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 6}, opts.LineStyle{Color: draw.ColorOverSLO, Width: 2, Type: "dashed"}, nil)
	}
	return l
}

// CapacityLoad draws, against the offered rate, each step's goodput
// (qualified attempts per window second, left axis) beside the offered
// rate itself, and its P95 TTFT over complete successes (right axis) with
// the TTFT SLO as a line.
func CapacityLoad(r CapacitySearch, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "440px", options)
	steps := sortedSteps(r)
	var good, offered, p95 []draw.Point
	for _, s := range steps {
		good = append(good, draw.Point{Value: []any{s.Rate, round2(s.GoodputPerS)}, Tooltip: &draw.NodeTooltip{Show: true,
			Formatter: fmt.Sprintf("%s 次/s：goodput %s 次/s（%d 次合格 / 窗口 %s s）", draw.Num(s.Rate), draw.Num(round2(s.GoodputPerS)), s.Qualified, draw.Num(s.WindowS))}})
		offered = append(offered, draw.Point{Value: []any{s.Rate, s.Rate}})
		var v any = "-"
		tip := fmt.Sprintf("%s 次/s：没有完整成功，P95 TTFT 无", draw.Num(s.Rate))
		if s.P95TTFTMS != nil {
			v = math.Round(*s.P95TTFTMS*10) / 10
			tip = fmt.Sprintf("%s 次/s：完整成功的 P95 TTFT %s ms", draw.Num(s.Rate), draw.MS(*s.P95TTFTMS))
		}
		p95 = append(p95, draw.Point{Value: []any{s.Rate, v}, Tooltip: &draw.NodeTooltip{Show: true, Formatter: tip}})
	}
	l := ec.NewLine()
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled("容量搜索：goodput 与 P95 TTFT", fmt.Sprintf("goodput = 联合合格次数 / 窗口秒数；灰色虚线是提供的速率，goodput 离它越远，失败或超时越多；P95 TTFT 只算完整成功，虚线是门槛 %s", draw.SLOText(r.SLOTTFTMS)))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: "90", Bottom: "80", Left: "60", Right: "70"}),
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: "提供的速率（次/s，开环泊松）", NameLocation: "middle", NameGap: 28, Min: 0}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "次/s", Min: 0}),
		ec.WithAnimation(false),
	)
	l.ExtendYAxis(opts.YAxis{Type: "value", Name: "P95 TTFT（ms）", Min: 0, Position: "right"})
	draw.AddLine(l, "goodput（合格次/s）", good, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 8}, opts.LineStyle{Color: draw.ColorOK, Width: 3}, nil)
	draw.AddLine(l, "提供的速率", offered, opts.LineChart{ShowSymbol: opts.Bool(false)}, opts.LineStyle{Color: draw.ColorInFlight, Width: 1, Type: "dotted"}, nil)
	slo := draw.HLine("TTFT 门槛 "+draw.SLOText(r.SLOTTFTMS), r.SLOTTFTMS, draw.ColorFail, "insideEndTop")
	slo.LineStyle.Type, slo.LineStyle.Width = "dashed", 2
	draw.AddLine(l, "P95 TTFT（ms）", p95, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 7, YAxisIndex: 1}, opts.LineStyle{Color: draw.ColorOverSLO, Width: 2}, draw.MarkLines(slo))
	return l
}

// WriteCapacityPage writes the search as one offline page: the answer in a
// paragraph, the attainment figure and the load figure.
func WriteCapacityPage(w io.Writer, r CapacitySearch) error {
	var b strings.Builder
	for _, s := range sortedSteps(r) {
		name, _ := verdictOf(s.Verdict)
		fmt.Fprintf(&b, "%s 次/s：%d / %d 合格，%s；设备忙碌率 %s\n", draw.Num(s.Rate), s.Qualified, s.Attempts, name, pctOrNone(s.BusyMean))
	}
	return page.Write(w, "容量搜索",
		page.Text(capacitySubtitle(r)),
		page.Figure(CapacityAttainment(r, charts.WithID("capacity_attainment")), "每个点是一步：联合合格次数 / 全部尝试（失败留在分母里），竖条是该步的 95% Wilson 区间；区间下界 ≥ 目标才算达标，上界 < 目标算不达标，其余尚无定论。"),
		page.Figure(CapacityLoad(r, charts.WithID("capacity_load")), "goodput 与 P95 TTFT：设备忙碌不等于服务得快。"),
		page.Text(b.String()))
}
