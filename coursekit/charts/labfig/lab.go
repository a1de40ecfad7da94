package labfig

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Run is one load run against the simulator as the open- vs closed-loop
// lab keeps it: the client's trace and the server's gauges read during the
// run, on the trace's clock.
type Run struct {
	Name   string
	Trace  *trace.Trace
	Gauges []Gauge
}

// Gauge is one reading of the simulator's gauges (sim.Stats: what /metrics
// exports as sim_device_busy_ratio, sim_queue_depth and sim_batch_size) at
// TMS on the trace's clock.
type Gauge struct {
	TMS        float64 `json:"t_ms"`
	Busy       float64 `json:"busy"`
	QueueDepth int     `json:"queue_depth"`
	BatchSize  int     `json:"batch_size"`
}

// Bin is the card of the attempts sent in one slice [FromMS, ToMS) of a
// trace's window.
type Bin struct {
	FromMS, ToMS float64
	*metrics.Summary
}

// Bins cuts a trace's window into consecutive slices of binMS (the last one
// may be shorter) and summarises each under f (coursekit/cardopts), the slice
// being the window: Attempts / WindowS is then the send rate of the slice,
// TTFT the distribution of its complete successes and FailureRate its
// failures, all grouped by send time. A window of zero length, or binMS ≤ 0,
// gives no bins.
func Bins(t *trace.Trace, binMS float64, f cardopts.Flags) []Bin {
	w := t.Header.Window
	if !(binMS > 0) || !(w.EndMS > w.StartMS) {
		return nil
	}
	var bins []Bin
	for from := w.StartMS; from < w.EndMS; from += binMS {
		to := min(from+binMS, w.EndMS)
		if to-from < binMS*1e-6 { // float residue of the last step
			break
		}
		h := t.Header
		h.Window = trace.Window{StartMS: from, EndMS: to}
		bins = append(bins, Bin{FromMS: from, ToMS: to, Summary: cardopts.MustSummarize(&trace.Trace{Header: h, Attempts: t.Attempts}, f)})
	}
	return bins
}

// pct prints a fraction as a percentage with at most one decimal.
func pct(v float64) string { return draw.Num(math.Round(v*1000)/10) + "%" }

// ratioText is "num/den" of a metrics.Ratio, with its percentage when known.
func ratioText(r metrics.Ratio) string {
	s := draw.Num(r.Num) + "/" + draw.Num(r.Den)
	if r.Value != nil {
		s += "（" + pct(*r.Value) + "）"
	}
	return s
}

// runEnd is the last time a run's trace or gauges know of.
func runEnd(r Run) float64 {
	end := tracefig.CaptureEdgeMS(r.Trace)
	if n := len(r.Gauges); n > 0 {
		end = max(end, r.Gauges[n-1].TMS)
	}
	return end
}

// SendRate draws, for each run, how many attempts per second it sent in
// each binMS slice of its window (Attempts / WindowS of the slice, from
// Bins), with the planned rate as a dashed line when plannedPerS > 0.
// A closed loop's line settles where the server lets it; an open loop's
// stays on its plan however slow the server gets. The subtitle gives each
// run's whole-window rate as attempts / window seconds.
func SendRate(runs []Run, binMS, plannedPerS float64, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "420px", options)
	var sub []string
	maxX, maxY := 0.0, plannedPerS
	l := ec.NewLine()
	for i, r := range runs {
		name := draw.Label(r.Name)
		s := cardopts.MustSummarize(r.Trace, cardopts.Flags{})
		rate := 0.0
		if s.WindowS > 0 {
			rate = float64(s.Attempts) / s.WindowS
		}
		sub = append(sub, fmt.Sprintf("%s：窗口内 %d 次 / %s s = %s 次/s", name, s.Attempts, draw.Num(s.WindowS), draw.Num(rate)))
		var pts []draw.Point
		bins := Bins(r.Trace, binMS, cardopts.Flags{})
		for _, b := range bins {
			v := float64(b.Attempts) / b.WindowS
			maxY = max(maxY, v)
			maxX = max(maxX, draw.Sec(b.ToMS))
			pts = append(pts, draw.Point{Value: []any{draw.Sec(b.FromMS), v}, Tooltip: &draw.NodeTooltip{Show: true,
				Formatter: fmt.Sprintf("%s · %s–%s s 发出 %d 次 = %s 次/s", name, draw.Num(draw.Sec(b.FromMS)), draw.Num(draw.Sec(b.ToMS)), b.Attempts, draw.Num(v))}})
		}
		if n := len(bins); n > 0 { // close the last step at the window end
			pts = append(pts, draw.Point{Value: []any{draw.Sec(bins[n-1].ToMS), pts[n-1].Value[1]}})
		}
		color := draw.RunColor(i)
		var marks *opts.MarkLines
		if i == 0 && plannedPerS > 0 {
			marks = draw.MarkLines(draw.HLine(fmt.Sprintf("计划：%s 次/s", draw.Num(plannedPerS)), plannedPerS, draw.ColorFail, "insideStartTop"))
		}
		draw.AddLine(l, name, pts, opts.LineChart{Step: "end", ShowSymbol: opts.Bool(true), SymbolSize: 6}, opts.LineStyle{Color: color, Width: 2}, marks)
	}
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled("每秒发出的请求：闭环跟着服务变慢，开环按计划发", strings.Join(sub, "\n"))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: strconv.Itoa(75 + 19*len(sub)), Bottom: "75", Left: "60", Right: "40"}),
		ec.WithXAxisOpts(draw.TimeAxis("发送时刻（s，按 "+draw.Num(binMS/1000)+" s 分组）", maxX)),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "发出（次/s）", Min: 0, Max: draw.NiceCeil(maxY * 1.15)}),
		ec.WithAnimation(false),
	)
	return l
}

// Queue draws the simulator's queue depth over time for each run, from
// the gauges read during the run (requests waiting for a batch slot), with
// the end of each run's window marked: after it no request is sent and the
// queue drains. The subtitle gives each run's highest reading.
func Queue(runs []Run, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "420px", options)
	var sub []string
	var ends []float64
	maxX := 0.0
	l := ec.NewLine()
	for i, r := range runs {
		name := draw.Label(r.Name)
		var pts []draw.Point
		peak, peakAt := 0, 0.0
		for _, g := range r.Gauges {
			if g.QueueDepth > peak {
				peak, peakAt = g.QueueDepth, g.TMS
			}
			pts = append(pts, draw.Point{Value: []any{draw.Sec(g.TMS), g.QueueDepth}})
		}
		maxX = max(maxX, draw.Sec(runEnd(r)))
		if len(r.Gauges) == 0 {
			sub = append(sub, name+"：没有读数")
		} else {
			sub = append(sub, fmt.Sprintf("%s：最高 %d 个请求在排队（%s s 时）", name, peak, draw.Num(draw.Sec(peakAt))))
		}
		color := draw.RunColor(i)
		// One mark per distinct window end: runs with the same window share it.
		end := draw.Sec(r.Trace.Header.Window.EndMS)
		var marks *opts.MarkLines
		if !slices.Contains(ends, end) {
			ends = append(ends, end)
			label := name + " 窗口结束"
			if sameEnd(runs) {
				label, color = "窗口结束，不再发新请求", draw.ColorMark
			}
			marks = draw.MarkLines(draw.VLine(label, end, color, "end"))
		}
		draw.AddLine(l, name, pts, opts.LineChart{ShowSymbol: opts.Bool(false)}, opts.LineStyle{Color: draw.RunColor(i), Width: 2}, marks)
	}
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled("服务端排队深度（sim_queue_depth）", strings.Join(sub, "\n"))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		ec.WithGridOpts(opts.Grid{Top: strconv.Itoa(95 + 19*len(sub)), Bottom: "75", Left: "60", Right: "40"}),
		ec.WithXAxisOpts(draw.TimeAxis("运行时刻（s）", maxX)),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "排队的请求（个）", Min: 0}),
		ec.WithAnimation(false),
	)
	return l
}

// sameEnd reports whether every run's window ends at the same time.
func sameEnd(runs []Run) bool {
	for _, r := range runs[1:] {
		if r.Trace.Header.Window.EndMS != runs[0].Trace.Header.Window.EndMS {
			return false
		}
	}
	return true
}

// TTFT draws every attempt of each run at its send time. Complete
// successes sit at their TTFT, in the run's colour. Failures are red: at
// their TTFT when a first output arrived before they failed, otherwise
// (no TTFT: missing, never 0) as a cross at the time the client gave up,
// which for a timeout is the timeout. timeoutMS > 0 draws the timeout as a
// dashed line.
func TTFT(runs []Run, timeoutMS float64, options ...charts.Option) *ec.Scatter {
	c := draw.NewConfig("100%", "460px", options)
	var sub []string
	maxX := 0.0
	s := ec.NewScatter()
	for i, r := range runs {
		name := draw.Label(r.Name)
		sum := cardopts.MustSummarize(r.Trace, cardopts.Flags{})
		var ok, failTTFT, failNone []draw.Point
		for k := range r.Trace.Attempts {
			a := &r.Trace.Attempts[k]
			x := draw.Sec(a.StartMS)
			maxX = max(maxX, x)
			ttft, has := a.TTFT()
			switch {
			case a.Outcome == trace.OK:
				ok = append(ok, draw.Point{Value: []any{x, ttft}, Tooltip: &draw.NodeTooltip{Show: true,
					Formatter: fmt.Sprintf("%s · %s · %s s 发出 · TTFT %s ms", name, draw.TipID(a.ID), draw.Num(x), draw.Num(ttft))}})
			case has:
				failTTFT = append(failTTFT, draw.Point{Value: []any{x, ttft}, Tooltip: &draw.NodeTooltip{Show: true,
					Formatter: fmt.Sprintf("%s · %s · %s（首字后失败）· TTFT %s ms", name, draw.TipID(a.ID), cardfmt.OutcomeNameAt(a.Outcome, true), draw.Num(ttft))}})
			default:
				e2e, ended := a.E2E()
				if !ended {
					continue // in flight: no time to place it at
				}
				failNone = append(failNone, draw.Point{Value: []any{x, e2e}, Tooltip: &draw.NodeTooltip{Show: true,
					Formatter: fmt.Sprintf("%s · %s · %s · 无首字，TTFT 缺失；%s ms 后放弃", name, draw.TipID(a.ID), cardfmt.OutcomeNameAt(a.Outcome, false), draw.Num(e2e))}})
			}
		}
		p95 := "无成功样本"
		if sum.TTFT.P95 != nil {
			p95 = fmt.Sprintf("成功 TTFT P95 %s ms（n = %d）", draw.Num(*sum.TTFT.P95), sum.TTFT.N)
		}
		miss := "缺失 TTFT：无"
		if sum.TTFTMissing > 0 {
			miss = fmt.Sprintf("%d 次尝试没有首字（TTFT 缺失，不是 0）", sum.TTFTMissing)
		}
		sub = append(sub, fmt.Sprintf("%s：%s；失败 %s；%s", name, p95, ratioText(sum.FailureRate), miss))
		color := draw.RunColor(i)
		add := func(series string, pts []draw.Point, color, symbol string, size int, marks *opts.MarkLines) {
			s.AddSeries(series, nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
				ss.Data = pts
				ss.Symbol = symbol
				ss.SymbolSize = size
				ss.ItemStyle = &opts.ItemStyle{Color: color, Opacity: opts.Float(0.8)}
				ss.MarkLines = marks
			}))
		}
		var marks *opts.MarkLines
		if i == 0 && timeoutMS > 0 {
			marks = draw.MarkLines(draw.HLine("超时 "+draw.SLOText(timeoutMS), timeoutMS, draw.ColorFail, "insideEndTop"))
		}
		add(name+" · 完整成功", ok, color, "circle", 7, marks)
		if len(failTTFT) > 0 {
			add(name+" · 失败（有首字）", failTTFT, draw.ColorFail, "triangle", 8, nil)
		}
		if len(failNone) > 0 {
			add(name+" · 失败（无首字，画在放弃时刻）", failNone, draw.ColorFail, "path://M0,0L10,10M10,0L0,10", 8, nil)
		}
	}
	s.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled("每次尝试的 TTFT，按发送时刻排开", strings.Join(sub, "\n"))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: strconv.Itoa(75 + 19*len(sub)), Bottom: "90", Left: "70", Right: "40"}),
		ec.WithXAxisOpts(draw.TimeAxis("发送时刻（s）", maxX)),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "TTFT (ms)", Min: 0}),
		ec.WithAnimation(false),
	)
	return s
}

// BusyVsTTFT draws one run over time: the device-busy gauge (%, right
// axis) as the server read it, and for each binMS slice of the window the
// share of attempts sent in it that failed (%, right axis, failures /
// attempts of the slice) and the TTFT P95 of its complete successes (ms,
// left axis, nearest-rank; a gap where a slice has no success). Every slice
// value comes from Bins. The subtitle sets the busy gauge beside the first
// and last slice's P95 and the failures.
func BusyVsTTFT(run Run, binMS float64, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "440px", options)
	name := draw.Label(run.Name)
	bins := Bins(run.Trace, binMS, cardopts.Flags{})

	var busy []draw.Point
	lo, hi, inWindow := math.Inf(1), math.Inf(-1), 0
	for _, g := range run.Gauges {
		busy = append(busy, draw.Point{Value: []any{draw.Sec(g.TMS), math.Round(g.Busy*1000) / 10}})
		if run.Trace.Header.Window.Contains(g.TMS) {
			lo, hi, inWindow = min(lo, g.Busy), max(hi, g.Busy), inWindow+1
		}
	}
	var p95, fail []draw.Point
	var firstP95, lastP95 *float64
	empty := 0 // slices with no complete success
	for _, b := range bins {
		mid := draw.Sec((b.FromMS + b.ToMS) / 2)
		var v any = "-"
		tip := fmt.Sprintf("%s–%s s 发出的请求：没有完整成功，P95 缺失", draw.Num(draw.Sec(b.FromMS)), draw.Num(draw.Sec(b.ToMS)))
		if b.TTFT.P95 != nil {
			v = *b.TTFT.P95
			tip = fmt.Sprintf("%s–%s s 发出的请求：成功 TTFT P95 %s ms（n = %d）", draw.Num(draw.Sec(b.FromMS)), draw.Num(draw.Sec(b.ToMS)), draw.Num(*b.TTFT.P95), b.TTFT.N)
			if firstP95 == nil {
				firstP95 = b.TTFT.P95
			}
			lastP95 = b.TTFT.P95
		} else {
			empty++
		}
		p95 = append(p95, draw.Point{Value: []any{mid, v}, Tooltip: &draw.NodeTooltip{Show: true, Formatter: tip}})
		var fv any = "-"
		if b.FailureRate.Value != nil {
			fv = math.Round(*b.FailureRate.Value*1000) / 10
		}
		fail = append(fail, draw.Point{Value: []any{mid, fv}, Tooltip: &draw.NodeTooltip{Show: true,
			Formatter: fmt.Sprintf("%s–%s s 发出的请求：失败 %s", draw.Num(draw.Sec(b.FromMS)), draw.Num(draw.Sec(b.ToMS)), ratioText(b.FailureRate))}})
	}

	all := cardopts.MustSummarize(run.Trace, cardopts.Flags{})
	sub := name + "："
	if inWindow > 0 {
		sub += fmt.Sprintf("窗口内设备忙碌率 %s–%s", pct(lo), pct(hi))
	} else {
		sub += "没有忙碌率读数"
	}
	switch {
	case firstP95 != nil && lastP95 != nil:
		sub += fmt.Sprintf("；各段成功 TTFT P95 从 %s ms 到 %s ms", draw.Num(*firstP95), draw.Num(*lastP95))
		if empty > 0 {
			sub += fmt.Sprintf("，另有 %d 段没有完整成功（P95 缺失，不画）", empty)
		}
	default:
		sub += "；没有完整成功，TTFT P95 缺失"
	}
	sub += fmt.Sprintf("\n全窗口失败 %s（分母是全部尝试）；忙碌率说明设备在干活，不说明谁被及时服务", ratioText(all.FailureRate))

	maxX := draw.Sec(runEnd(run))
	l := ec.NewLine()
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled("设备忙碌率 vs 用户等待："+name, sub)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: "115", Bottom: "75", Left: "70", Right: "70"}),
		ec.WithXAxisOpts(draw.TimeAxis("时刻（s；分段值画在段中点，按发送时刻分组）", maxX)),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "成功 TTFT P95 (ms)", Min: 0}),
		ec.WithAnimation(false),
	)
	l.ExtendYAxis(opts.YAxis{Type: "value", Name: "百分比（%）", Min: 0, Max: 100, Position: "right"})
	draw.AddLine(l, "成功 TTFT P95（每段）", p95, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 8}, opts.LineStyle{Color: draw.ColorOK, Width: 3}, nil)
	draw.AddLine(l, "设备忙碌率 %（sim_device_busy_ratio）", busy, opts.LineChart{ShowSymbol: opts.Bool(false), YAxisIndex: 1}, opts.LineStyle{Color: draw.ColorMark, Width: 2, Type: "dashed"}, nil)
	draw.AddLine(l, "失败占比 %（每段）", fail, opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 8, YAxisIndex: 1}, opts.LineStyle{Color: draw.ColorFail, Width: 2}, nil)
	return l
}
