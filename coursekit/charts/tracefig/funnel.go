package tracefig

import (
	"fmt"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// Funnel draws the denominator funnel of one condition of a summary:
// all attempts → complete successes → quality passes → jointly qualified
// (10 → 8 → 7 → 5 for the unit trace at 1 s). Each bar keeps the previous
// stage's height: the kept part is solid, the part that dropped out is red
// and labelled with why (failure outcomes, quality fail or unrated, TTFT
// over the SLO), straight from the Summary's counts and
// Conditions[condition].NotQualified.
func Funnel(s *metrics.Summary, condition int, options ...charts.Option) *ec.Bar {
	c := draw.NewConfig("100%", "420px", options)
	lg := c.Lang
	b := ec.NewBar()
	if condition < 0 || condition >= len(s.Conditions) {
		b.SetGlobalOptions(c.Init(), ec.WithTitleOpts(opts.Title{Title: lg.F(lang.Msg{"分母漏斗：没有第 %d 个条件（共 %d 个）", "Denominator funnel: there is no condition %d (of %d)"}, condition, len(s.Conditions))}))
		return b
	}
	cond := s.Conditions[condition]
	d := cond.NotQualified
	slo := draw.SLOText(cond.SLOTTFTMS)

	var fails []string
	for _, o := range []string{"timeout", "connect_error", "http_error", "stream_error", "cancelled"} {
		if k := s.Outcomes[o]; k > 0 {
			fails = append(fails, fmt.Sprintf("%s %d", charts.OutcomeCodeLabelIn(lg, o), k))
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
		quality += lg.F(lang.Msg{"\n未评分 %d(不算通过)", "\nunrated %d (not a pass)"}, d.QualityUnrated)
	}
	stages := []struct {
		name   string
		kept   int64
		drop   int64
		reason string
	}{
		{lg.S(lang.Msg{"全部尝试", "all attempts"}), s.Attempts, 0, ""},
		{lg.S(lang.Msg{"完整成功", "complete successes"}), s.CompleteSuccess, d.NotComplete, notComplete},
		{lg.S(lang.Msg{"质量通过", "quality passes"}), s.QualityPasses, d.QualityFail + d.QualityUnrated, quality},
		{lg.F(lang.Msg{"联合合格\n(TTFT ≤ %s)", "qualified\n(TTFT ≤ %s)"}, slo), cond.Qualified, d.TTFTOverSLO, fmt.Sprintf("TTFT > %s:%d", slo, d.TTFTOverSLO)},
	}
	var names []string
	var kept, dropped []draw.BarItem
	for _, st := range stages {
		names = append(names, st.name)
		kept = append(kept, draw.BarItem{Value: st.kept, Label: &opts.Label{Show: opts.Bool(true), Position: "inside", Color: "#fff",
			FontWeight: "bold", FontSize: 16, Formatter: draw.Literal(fmt.Sprint(st.kept))}})
		di := draw.BarItem{Value: st.drop}
		if st.drop > 0 {
			di.Label = &opts.Label{Show: opts.Bool(true), Position: "top", Color: draw.ColorFail, Formatter: draw.Literal("−" + st.reason)}
		}
		dropped = append(dropped, di)
	}
	subtitle := lg.F(lang.Msg{"联合合格 = 完整成功 ∧ 质量通过 ∧ TTFT ≤ %s；比例的分母始终是全部尝试：%d / %d", "qualified = complete success ∧ quality pass ∧ TTFT ≤ %s; the denominator is always all attempts: %d / %d"}, slo, cond.Qualified, s.Attempts)
	if cond.QualifiedRate.Value != nil {
		subtitle += fmt.Sprintf(" = %s%%", draw.Num(*cond.QualifiedRate.Value*100))
	}
	b.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(lg.F(lang.Msg{"分母漏斗 · 条件 TTFT ≤ %s", "Denominator funnel · condition TTFT ≤ %s"}, slo), subtitle)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "50", Right: "20"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		ec.WithGridOpts(opts.Grid{Top: "110", Bottom: "60", Left: "60", Right: "30"}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: lg.S(lang.Msg{"尝试次数", "attempts"}), MinInterval: 1, Max: draw.NiceCeil(float64(s.Attempts) * 1.4)}),
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
