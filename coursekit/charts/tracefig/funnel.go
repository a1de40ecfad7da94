package tracefig

import (
	"fmt"
	"math"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Funnel draws the denominator funnel of one condition of a summary, one
// bar per check of the condition's rule (metrics.Summary.Stages): all
// attempts → complete successes → quality passes → TTFT within the SLO,
// then each latency SLO the condition has (10 → 8 → 7 → 5 for the unit
// trace at 1 s). Each bar keeps the previous stage's height: the kept
// part is solid, the part that dropped out is red and labelled with why
// (failure outcomes, quality fail or unrated, the SLO exceeded), straight
// from the summary's counts. A quality check the rule does not require
// (latency SLOs, no judge) says so, and drops only quality fails.
func Funnel(s *metrics.Summary, condition int, options ...charts.Option) *ec.Bar {
	c := draw.NewConfig("100%", "420px", options)
	lg := c.Lang
	b := ec.NewBar()
	stages := s.Stages(condition)
	if stages == nil {
		b.SetGlobalOptions(c.Init(), ec.WithTitleOpts(opts.Title{Title: lg.F(lang.Msg{"分母漏斗：没有第 %d 个条件（共 %d 个）", "Denominator funnel: there is no condition %d (of %d)"}, condition, len(s.Conditions))}))
		return b
	}
	cond := s.Conditions[condition]
	d := cond.NotQualified

	var fails []string
	for _, o := range trace.Failures {
		if k := s.Outcomes[o.String()]; k > 0 {
			fails = append(fails, cardfmt.OutcomeCountIn(lg, s, o))
		}
	}
	notComplete := lg.F(lang.Msg{"失败 %d", "failed %d"}, s.Failures)
	for i := 0; i < len(fails); i += 2 {
		notComplete += "\n" + strings.Join(fails[i:min(i+2, len(fails))], " · ")
	}
	if s.InFlight > 0 {
		notComplete += lg.F(lang.Msg{"\n在途 %d", "\nin flight %d"}, s.InFlight)
	}
	quality := lg.F(lang.Msg{"质量不通过 %d", "quality fail %d"}, d.QualityFail)
	if d.QualityUnrated > 0 {
		quality += lg.F(lang.Msg{"\n未评分 %d（不算通过）", "\nunrated %d (not a pass)"}, d.QualityUnrated)
	}
	var names []string
	var kept, dropped []draw.BarItem
	for i, st := range stages {
		var name, reason string
		switch st.Check {
		case metrics.CheckAttempts:
			name = lg.S(lang.Msg{"全部尝试", "all attempts"})
		case metrics.CheckComplete:
			name, reason = lg.S(lang.Msg{"完整成功", "complete successes"}), notComplete
		case metrics.CheckQuality:
			name, reason = lg.S(lang.Msg{"质量通过", "quality passes"}), quality
			if !st.Required {
				name = lg.S(lang.Msg{"质量\n（未评，不要求）", "quality\n(not judged, not required)"})
			}
		default:
			limit := draw.SafeText(cardfmt.CheckLimitName(st))
			name = limit
			reason = lg.F(lang.Msg{"%s：%d", "%s: %d"}, strings.Replace(limit, "≤", ">", 1), st.Dropped)
		}
		if i == len(stages)-1 {
			name = lg.F(lang.Msg{"联合合格\n（%s）", "qualified\n(%s)"}, name)
		}
		names = append(names, funnelLabel(name, funnelLabelWidth(len(stages))))
		kept = append(kept, draw.BarItem{Value: st.Kept, Label: &opts.Label{Show: opts.Bool(true), Position: "inside", Color: "#fff",
			FontWeight: "bold", FontSize: 16, Formatter: draw.Literal(fmt.Sprint(st.Kept))}})
		di := draw.BarItem{Value: st.Dropped}
		if st.Dropped > 0 {
			di.Label = &opts.Label{Show: opts.Bool(true), Position: "top", Color: draw.ColorFail, Formatter: draw.Literal("−" + reason)}
		}
		if i == len(stages)-1 && cond.Unknown != "" {
			// Nothing was rated, so the last bar's count is not 0
			// qualified but unknown: the bar says so instead of a number.
			kept[i].Label.Show = opts.Bool(false)
			di.Label = &opts.Label{Show: opts.Bool(true), Position: "top", Color: "#555", Formatter: draw.Literal(lg.F(lang.Msg{"联合合格%s", "qualified %s"}, cardfmt.UnknownUnrated.In(lg)))}
		}
		dropped = append(dropped, di)
	}
	labelLines := 1
	for _, n := range names {
		labelLines = max(labelLines, strings.Count(n, "\n")+1)
	}
	slo := draw.SLOText(cond.SLOTTFTMS)
	cname := draw.SafeText(cardfmt.CondName(cond))
	subtitle := lg.F(lang.Msg{"联合合格 = %s；比例的分母始终是全部尝试：%d / %d", "qualified = %s; the denominator is always all attempts: %d / %d"}, draw.SafeText(cardfmt.RuleIn(lg, cond)), cond.Qualified, s.Attempts)
	if cond.QualifiedRate.Value != nil {
		subtitle += " = " + cardfmt.Measure(*cond.QualifiedRate.Value*100, numfmt.UnitPercent)
	}
	if cond.Unknown != "" {
		subtitle = lg.F(lang.Msg{"联合合格 = %s；没有一次尝试有质量评分：联合合格%s", "qualified = %s; no attempt was rated: qualified is %s"}, draw.SafeText(cardfmt.RuleIn(lg, cond)), cardfmt.UnknownUnrated.In(lg))
	}
	title := lg.F(lang.Msg{"分母漏斗 · 条件 TTFT ≤ %s", "Denominator funnel · condition TTFT ≤ %s"}, slo)
	if cond.LatencySLO.Set() {
		title = lg.F(lang.Msg{"分母漏斗 · 条件 %s", "Denominator funnel · condition %s"}, cname)
	}
	b.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(title, subtitle)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "50", Right: "20"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		ec.WithGridOpts(opts.Grid{Top: "110", Bottom: fmt.Sprint(24 + 16*labelLines), Left: "60", Right: "30"}),
		// Every stage is labelled: by default ECharts hides category labels
		// it thinks would overlap, so a narrow chart lost "完整成功" and the
		// latency checks (walk). Interval 0 shows them all (web writes it as
		// the number ECharts needs), wrapped to fit a narrow column
		// (funnelLabel).
		ec.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Show: opts.Bool(true), Interval: "0"}}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: lg.S(lang.Msg{"尝试次数", "attempts"}), MinInterval: 1, Max: funnelAxisMax(s.Attempts)}),
		ec.WithAnimation(false),
	)
	b.SetXAxis(names)
	b.AddSeries(lg.S(lang.Msg{"留下", "kept"}), nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
		ss.Data = kept
		ss.Stack = "f"
		ss.ItemStyle = &opts.ItemStyle{Color: draw.ColorOK}
		ss.BarWidth = "45%"
	}))
	b.AddSeries(lg.S(lang.Msg{"本步流失（原因）", "dropped at this step (why)"}), nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
		ss.Data = dropped
		ss.Stack = "f"
		ss.ItemStyle = &opts.ItemStyle{Color: "#f3b3b3"}
	}))
	return b
}

// funnelAxisMax is the funnel's y-axis maximum: a quarter above all
// attempts, room for the drop labels over the bars, rounded up to a 1-2-5
// step of about a fifth of them (60 for 43 attempts, not 80).
func funnelAxisMax(attempts int64) float64 {
	if attempts <= 0 {
		return 1
	}
	step := max(1, draw.NiceStep(float64(attempts)/5))
	return math.Ceil(float64(attempts)*1.25/step) * step
}

// funnelLabelWidth is the widest line of a stage's label, in CJK characters
// (12 px each on the axis), for n stages: about 100 px for up to four, and
// narrower for more, so that seven stages (three latency SLOs beside TTFT)
// fit side by side in a chart about 500 px wide.
func funnelLabelWidth(n int) float64 {
	return max(4.5, min(8.5, 34/float64(max(n, 1))))
}

// funnelLabel is a stage's name as the x axis shows it: each line wider
// than width broken before its "≤" ("ITL P95" over "≤ 100 ms"), then at
// spaces or between CJK characters (draw.WrapLines); nothing of it is
// dropped.
func funnelLabel(name string, width float64) string {
	var out []string
	for _, line := range strings.Split(name, "\n") {
		parts := []string{line}
		if draw.TextWidth(line) > width {
			if before, after, ok := strings.Cut(line, " ≤ "); ok {
				parts = []string{before, "≤ " + after}
			}
		}
		for _, p := range parts {
			out = append(out, draw.WrapLines(p, width)...)
		}
	}
	return strings.Join(out, "\n")
}
