package class

import (
	"fmt"
	"math"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
)

// Class charts: what `coursekit grade` draws in OUT/class.html for the
// instructor. They take plain counts (the grader computes them), so this
// package does not depend on the grader. Every name is passed through
// Label: criterion titles are ours, but mistake names and learner ids
// travel through the same path and must not inject markup.

// ScoreDistribution is a bar chart of how many learners scored in each
// band: bands[i] names band i ("0–10%"), counts[i] is its learners.
func ScoreDistribution(bands []string, counts []int, subtitle string, options ...charts.Option) *ec.Bar {
	c := draw.NewConfig("100%", "360px", options)
	b := ec.NewBar()
	mx := 0
	items := make([]draw.BarItem, len(counts))
	for i, n := range counts {
		mx = max(mx, n)
		items[i] = draw.BarItem{Value: n, Label: &opts.Label{Show: opts.Bool(n > 0), Position: "top", Formatter: draw.Literal(fmt.Sprint(n))}}
	}
	b.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled("分数分布", draw.Label(subtitle))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		ec.WithGridOpts(opts.Grid{Top: "95", Bottom: "50", Left: "60", Right: "30"}),
		ec.WithXAxisOpts(opts.XAxis{Name: "得分占自动评分满分", NameLocation: "middle", NameGap: 30}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "学习者人数", MinInterval: 1, Max: draw.NiceCeil(float64(mx) * 1.2)}),
		ec.WithAnimation(false),
	)
	b.SetXAxis(draw.Labels(bands))
	b.AddSeries("学习者", nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
		ss.Data = items
		ss.ItemStyle = &opts.ItemStyle{Color: draw.ColorOK}
		ss.BarWidth = "60%"
	}))
	return b
}

// PassRates is a horizontal bar chart of each criterion's pass rate (the
// share of graded learners with full points), in the order given: names[i]
// is the criterion, passed[i] of graded learners passed it.
func PassRates(names []string, passed []int, graded int, options ...charts.Option) *ec.Bar {
	c := draw.NewConfig("100%", fmt.Sprintf("%dpx", 116+24*len(names)), options)
	items := make([]draw.BarItem, len(names))
	for i, n := range passed {
		pct := 0.0
		if graded > 0 {
			pct = float64(n) / float64(graded) * 100
		}
		color := draw.ColorOK
		if pct < 50 {
			color = draw.ColorFail
		} else if pct < 80 {
			color = draw.ColorOverSLO
		}
		items[i] = draw.BarItem{Value: draw.Num(pct), ItemStyle: &opts.ItemStyle{Color: color},
			Label: &opts.Label{Show: opts.Bool(true), Position: "right", Formatter: draw.Literal(numfmt.Fixed(pct, 0) + fmt.Sprintf("%%(%d/%d)", n, graded))}}
	}
	subtitle := fmt.Sprintf("得满分的学习者占可评分学习者（%d 人）的比例；红色低于 50%%，橙色低于 80%%", graded)
	return hbar(c, "各检查项通过率", subtitle, names, items, opts.XAxis{Type: "value", Min: 0, Max: 100, Name: "得满分的学习者（%）"}, "330", "110", "60%")
}

// hbar is a horizontal bar chart of one series: names down the side,
// items as the bars, no legend. The value axis's name sits centred under
// its ticks: at the axis's end it floated alone past the last tick, away
// from the axis it names.
func hbar(c draw.Config, title, subtitle string, names []string, items []draw.BarItem, x opts.XAxis, left, right, width string) *ec.Bar {
	x.NameLocation, x.NameGap = "middle", 28
	b := ec.NewBar()
	b.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(title, subtitle)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		ec.WithGridOpts(opts.Grid{Top: "70", Bottom: "56", Left: left, Right: right}),
		ec.WithXAxisOpts(x),
		ec.WithYAxisOpts(opts.YAxis{Type: "category", Inverse: opts.Bool(true), AxisLabel: &opts.AxisLabel{Interval: "0"}}),
		ec.WithAnimation(false),
	)
	b.SetXAxis(draw.Labels(names))
	b.AddSeries(title, nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
		ss.Data = items
		ss.BarWidth = width
	}))
	b.XYReversal()
	return b
}

// Mistakes is a horizontal bar chart of how many learners made each of
// the unit's typical mistakes: names[i] made by counts[i] learners.
func Mistakes(names []string, counts []int, graded int, options ...charts.Option) *ec.Bar {
	c := draw.NewConfig("100%", fmt.Sprintf("%dpx", 136+36*len(names)), options)
	items := make([]draw.BarItem, len(counts))
	mx := 0
	for i, n := range counts {
		mx = max(mx, n)
		items[i] = draw.BarItem{Value: n, ItemStyle: &opts.ItemStyle{Color: draw.ColorFail},
			Label: &opts.Label{Show: opts.Bool(true), Position: "right", Formatter: draw.Literal(fmt.Sprintf("%d 人", n))}}
	}
	subtitle := fmt.Sprintf("从口径卡上的数字认出来的典型错误；可评分学习者 %d 人", graded)
	x := opts.XAxis{Type: "value", MinInterval: 1, Max: max(mx+1, int(math.Ceil(float64(mx)*1.2))), Name: "学习者人数"}
	return hbar(c, "常见错误", subtitle, names, items, x, "300", "80", "55%")
}
