package charts

import (
	"fmt"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// Funnel draws the denominator funnel of one condition of a summary:
// all attempts → complete successes → quality passes → jointly qualified
// (10 → 8 → 7 → 5 for the unit trace at 1 s). Each bar keeps the previous
// stage's height: the kept part is solid, the part that dropped out is red
// and labelled with why (failure outcomes, quality fail or unrated, TTFT
// over the SLO), straight from the Summary's counts and
// Conditions[condition].NotQualified.
func Funnel(s *metrics.Summary, condition int, options ...Option) *ec.Bar {
	c := newConfig("100%", "420px", options)
	b := ec.NewBar()
	if condition < 0 || condition >= len(s.Conditions) {
		b.SetGlobalOptions(c.init(), ec.WithTitleOpts(opts.Title{Title: fmt.Sprintf("分母漏斗：没有第 %d 个条件（共 %d 个）", condition, len(s.Conditions))}))
		return b
	}
	cond := s.Conditions[condition]
	d := cond.NotQualified
	slo := sloText(cond.SLOTTFTMS)

	var fails []string
	for _, o := range []string{"timeout", "connect_error", "http_error", "stream_error", "cancelled"} {
		if k := s.Outcomes[o]; k > 0 {
			fails = append(fails, fmt.Sprintf("%s %d", OutcomeCodeLabel(o), k))
		}
	}
	notComplete := "失败 " + fmt.Sprint(s.Failures)
	for i := 0; i < len(fails); i += 2 {
		notComplete += "\n" + strings.Join(fails[i:min(i+2, len(fails))], " · ")
	}
	if s.InFlight > 0 {
		notComplete += fmt.Sprintf("\n在途 %d", s.InFlight)
	}
	quality := fmt.Sprintf("质量不通过 %d", d.QualityFail)
	if d.QualityUnrated > 0 {
		quality += fmt.Sprintf("\n未评分 %d(不算通过)", d.QualityUnrated)
	}
	stages := []struct {
		name   string
		kept   int64
		drop   int64
		reason string
	}{
		{"全部尝试", s.Attempts, 0, ""},
		{"完整成功", s.CompleteSuccess, d.NotComplete, notComplete},
		{"质量通过", s.QualityPasses, d.QualityFail + d.QualityUnrated, quality},
		{"联合合格\n(TTFT ≤ " + slo + ")", cond.Qualified, d.TTFTOverSLO, fmt.Sprintf("TTFT > %s:%d", slo, d.TTFTOverSLO)},
	}
	var names []string
	var kept, dropped []barItem
	for _, st := range stages {
		names = append(names, st.name)
		kept = append(kept, barItem{Value: st.kept, Label: &opts.Label{Show: opts.Bool(true), Position: "inside", Color: "#fff",
			FontWeight: "bold", FontSize: 16, Formatter: literal(fmt.Sprint(st.kept))}})
		di := barItem{Value: st.drop}
		if st.drop > 0 {
			di.Label = &opts.Label{Show: opts.Bool(true), Position: "top", Color: colorFail, Formatter: literal("−" + st.reason)}
		}
		dropped = append(dropped, di)
	}
	subtitle := fmt.Sprintf("联合合格 = 完整成功 ∧ 质量通过 ∧ TTFT ≤ %s；比例的分母始终是全部尝试：%d / %d", slo, cond.Qualified, s.Attempts)
	if cond.QualifiedRate.Value != nil {
		subtitle += fmt.Sprintf(" = %s%%", num(*cond.QualifiedRate.Value*100))
	}
	b.SetGlobalOptions(
		c.init(),
		ec.WithTitleOpts(titled("分母漏斗 · 条件 TTFT ≤ "+slo, subtitle)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "50", Right: "20"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		ec.WithGridOpts(opts.Grid{Top: "110", Bottom: "60", Left: "60", Right: "30"}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "尝试次数", MinInterval: 1, Max: niceCeil(float64(s.Attempts) * 1.4)}),
		ec.WithAnimation(false),
	)
	b.SetXAxis(names)
	b.AddSeries("留下", nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
		ss.Data = kept
		ss.Stack = "f"
		ss.ItemStyle = &opts.ItemStyle{Color: colorOK}
		ss.BarWidth = "45%"
	}))
	b.AddSeries("本步流失（原因）", nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
		ss.Data = dropped
		ss.Stack = "f"
		ss.ItemStyle = &opts.ItemStyle{Color: "#f3b3b3"}
	}))
	return b
}
