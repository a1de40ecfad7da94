package labfig

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
)

// Goodput draws, for each run, over time: the complete successes per
// second and the goodput (jointly qualified attempts per second: complete
// ∧ quality pass ∧ TTFT ≤ sloMS) of each binMS slice of the window (left
// axis, from Bins; the successes dotted in the run's colour), and the device-busy gauge
// as the server read it (%, right axis, dashed; left out when the server
// reports none). Two runs under the same load with different answer
// quality show the same successes and the same busy gauge, and goodput
// lines apart: neither the gauge nor the latency can see a wrong answer.
// The subtitle gives each run's window goodput, quality pass rate and mean
// busy reading.
func Goodput(runs []Run, binMS, sloMS float64, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "460px", options)
	o := cardopts.TTFT(sloMS)
	l := ec.NewLine()
	var sub []string
	maxX := 0.0
	type series struct {
		name  string
		pts   []draw.Point
		lc    opts.LineChart
		style opts.LineStyle
	}
	var all []series
	gauges := false
	for i, r := range runs {
		name := draw.Label(r.Name)
		color := draw.RunColor(i)
		var good, done []draw.Point
		for _, b := range Bins(r.Trace, binMS, o) {
			mid := draw.Sec((b.FromMS + b.ToMS) / 2)
			span := fmt.Sprintf("%s–%s s 发出的请求", draw.Num(draw.Sec(b.FromMS)), draw.Num(draw.Sec(b.ToMS)))
			k := b.Conditions[0]
			good = append(good, draw.Point{Value: []any{mid, round2(k.GoodputPerS)}, Tooltip: &draw.NodeTooltip{Show: true,
				Formatter: fmt.Sprintf("%s：%s，联合合格 %d 次 / %s s = %s 次/s", name, span, k.Qualified, draw.Num(b.WindowS), draw.Num(round2(k.GoodputPerS)))}})
			done = append(done, draw.Point{Value: []any{mid, round2(float64(b.CompleteSuccess) / b.WindowS)}, Tooltip: &draw.NodeTooltip{Show: true,
				Formatter: fmt.Sprintf("%s：%s，完整成功 %d 次（质量通过 %d 次）", name, span, b.CompleteSuccess, b.QualityPasses)}})
		}
		var busy []draw.Point
		sum, n := 0.0, 0
		w := r.Trace.Header.Window
		for _, g := range r.Gauges {
			busy = append(busy, draw.Point{Value: []any{draw.Sec(g.TMS), math.Round(g.Busy*1000) / 10}})
			if g.TMS >= w.StartMS+busySettleMS && g.TMS < w.EndMS {
				sum, n = sum+g.Busy, n+1
			}
		}
		s := cardopts.MustSummarize(r.Trace, o)
		line := fmt.Sprintf("%s：goodput %s 次/s，质量通过 %s", name, draw.Num(round2(s.Conditions[0].GoodputPerS)), ratioText(s.QualityPassRate))
		if n > 0 {
			line += fmt.Sprintf("，窗口内忙碌率平均 %s", pct(sum/float64(n)))
		}
		sub = append(sub, line)
		maxX = max(maxX, draw.Sec(runEnd(r)))
		all = append(all,
			series{name + " goodput", good, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 8}, opts.LineStyle{Color: color, Width: 3}},
			series{name + " 完整成功", done, opts.LineChart{ShowSymbol: opts.Bool(false)}, opts.LineStyle{Color: color, Width: 2, Type: "dotted"}})
		// A server that reports no busy gauge (a real engine) gets no empty
		// busy series: an empty legend entry reads like a reading of 0.
		if len(busy) > 0 {
			all = append(all, series{name + " 设备忙碌率 %", busy, opts.LineChart{ShowSymbol: opts.Bool(false), YAxisIndex: 1}, opts.LineStyle{Color: color, Width: 2, Type: "dashed"}})
			gauges = true
		}
	}
	title := "goodput 与设备忙碌率"
	if !gauges {
		title = "goodput 与完整成功"
		sub = append(sub, "服务器没有报告设备忙碌率，图里只有客户端算出的两条线")
	}
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(title+"（联合合格 = 完整成功 ∧ 质量通过 ∧ TTFT ≤ "+draw.SLOText(sloMS)+"）", strings.Join(sub, "\n"))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: strconv.Itoa(95 + 19*len(sub)), Bottom: "95", Left: "60", Right: "70"}),
		ec.WithXAxisOpts(draw.TimeAxis("时刻（s；分段值画在段中点，按发送时刻分组）", maxX)),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "次/s", Min: 0}),
		ec.WithAnimation(false),
	)
	if gauges {
		l.ExtendYAxis(opts.YAxis{Type: "value", Name: "忙碌率（%）", Min: 0, Max: 100, Position: "right"})
	}
	for _, s := range all {
		draw.AddLine(l, s.name, s.pts, s.lc, s.style, nil)
	}
	return l
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// busySettleMS is how long after the window opens the busy gauge is left
// out of the average: it looks back over the server's BusyWindow, which
// starts empty (lab.GaugeSettleMS).
const busySettleMS = 200
