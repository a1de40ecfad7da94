package labfig

import (
	"fmt"
	"math"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// IntervalPoint is a percentile read off the first N samples of a trace,
// with its 95 % order-statistic interval (metrics.QuantileCI). Nil is a
// missing value, or a side the sample is too small to bound; NeedNHigh is
// then the smallest N that bounds the upper side.
type IntervalPoint struct {
	N                   int
	Value, Low, High    *float64
	NeedNLow, NeedNHigh int
}

// PercentileByN draws, against the number of samples (a log axis), the
// percentile at level (e.g. 0.95) of the first N samples as a solid line,
// and its 95 % interval as two dashed lines. Where the sample is too small
// to bound the upper side, the upper line is left out, never drawn at some
// value, and a shaded area from the first point to the smallest N that
// bounds it says so. unit names the values (e.g. "ms").
func PercentileByN(title, subtitle string, level float64, unit string, pts []IntervalPoint, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "440px", options)
	p := "P" + draw.Num(level*100)
	var est, low, high []draw.Point
	need, first := 0, 0
	for i, pt := range pts {
		if i == 0 {
			first = pt.N
		}
		val := func(v *float64) any {
			if v == nil {
				return "-"
			}
			return math.Round(*v*10) / 10
		}
		side := func(v *float64, missing string) string {
			if v == nil {
				return missing
			}
			return draw.Num(*v) + " " + unit
		}
		tip := fmt.Sprintf("前 %d 个样本：%s = %s，95%% 区间 [%s，%s]", pt.N, p, side(pt.Value, "无"), side(pt.Low, "无下界"), side(pt.High, "无上界"))
		if pt.NeedNHigh > 0 {
			tip += fmt.Sprintf("（上界要 n ≥ %d）", pt.NeedNHigh)
			need = max(need, pt.NeedNHigh)
		}
		tt := &draw.NodeTooltip{Show: true, Formatter: tip}
		x := float64(pt.N)
		est = append(est, draw.Point{Value: []any{x, val(pt.Value)}, Tooltip: tt})
		low = append(low, draw.Point{Value: []any{x, val(pt.Low)}, Tooltip: tt})
		high = append(high, draw.Point{Value: []any{x, val(pt.High)}, Tooltip: tt})
	}
	l := ec.NewLine()
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(draw.SafeText(title), draw.SafeText(subtitle))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: "90", Bottom: "80", Left: "70", Right: "40"}),
		ec.WithXAxisOpts(opts.XAxis{Type: "log", Name: "样本数 n（前 n 个完整成功，对数刻度）", NameLocation: "middle", NameGap: 28}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: fmt.Sprintf("%s（%s）", p, unit), Min: 0}),
		ec.WithAnimation(false),
	)
	draw.AddLine(l, p+"（"+cardfmt.MethodName(metrics.NearestRank)+"）", est, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 7}, opts.LineStyle{Color: draw.ColorOK, Width: 2}, nil)
	if need > 0 && first > 0 && need > first {
		l.MultiSeries[0].MarkAreas = draw.MarkAreas(draw.Area(fmt.Sprintf("n < %d：没有上界", need), float64(first), float64(need), draw.ColorFail))
	}
	draw.AddLine(l, "95% 区间下界", low, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 4}, opts.LineStyle{Color: draw.ColorInFlight, Width: 1, Type: "dashed"}, nil)
	draw.AddLine(l, "95% 区间上界", high, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 4}, opts.LineStyle{Color: draw.ColorOverSLO, Width: 1, Type: "dashed"}, nil)
	return l
}
