package tracefig

import (
	"cmp"
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
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// DefaultMarksMS are the two SLOs the unit compares: 1 s and 0.5 s.
var DefaultMarksMS = []float64{1000, 500}

// SweepSLOs is the SLO grid SLOSweep draws beside a summary's
// conditions: slos when given, or 0 to a little past the slowest success
// in about 80 steps plus every success TTFT (where goodput jumps) when
// there are at most 500.
func SweepSLOs(d *Digest, slos []float64) []float64 {
	xs := slices.Clone(slos)
	if len(xs) == 0 {
		hi := 1000.0
		if d.successes > 0 {
			hi = max(hi, d.maxTTFT*1.1)
		}
		step := draw.NiceStep(hi / 80)
		for v := step; v <= hi+step/2; v += step {
			xs = append(xs, math.Round(v/step)*step)
		}
		if d.successes <= 500 {
			succ, _ := d.successSample()
			for _, s := range succ {
				if s.ttft > 0 {
					xs = append(xs, s.ttft)
				}
			}
		}
	}
	xs = slices.DeleteFunc(xs, func(v float64) bool { return !(v > 0) || math.IsInf(v, 0) })
	slices.Sort(xs)
	// Two TTFTs equal but for float noise (11.727999999999156 and
	// 11.728000000000065, each a difference of two stamps) are one
	// threshold: the larger, which every attempt at that TTFT meets.
	out := xs[:0]
	for _, v := range xs {
		if n := len(out); n > 0 && v-out[n-1] <= 1e-9*max(1, v) {
			out[n-1] = v
			continue
		}
		out = append(out, v)
	}
	return out
}

// SLOSweep draws goodput (jointly qualified attempts per window second, left
// axis) and cost per 1,000 qualified (right axis, when the trace records a
// window cost) against the TTFT SLO, with the marks (default 1 s and 0.5 s)
// as labelled vertical lines. Every value is a condition of the trace's
// summary (coursekit/cardopts): the marks are its conditions, the grid
// its sweep; slosMS nil picks a grid that includes every success TTFT.
func SLOSweep(t *trace.Trace, slosMS []float64, markMS []float64, options ...charts.Option) *ec.Line {
	if markMS == nil {
		markMS = DefaultMarksMS
	}
	s := cardopts.MustSummarize(t, cardopts.TTFT(markMS...), cardopts.Sweep(SweepSLOs(DigestOf(t), slosMS)))
	return SLOSweepOf(s, options...)
}

// SLOSweepOf is SLOSweep drawn from s, a summary with a sweep
// (cardopts.Sweep, the grid of SweepSLOs): every point drawn is one of its
// sweep's or its conditions' values, judged under the conditions' rule
// (latency SLOs included), and the marks are its conditions.
func SLOSweepOf(s *metrics.Summary, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "480px", options)
	lg := c.Lang
	var markMS []float64
	for _, cd := range s.Conditions {
		markMS = append(markMS, cd.SLOTTFTMS)
	}
	points := append(slices.Clone(s.Conditions), s.Sweep...) // a condition first: it is the mark
	slices.SortStableFunc(points, func(a, b metrics.Condition) int { return cmp.Compare(a.SLOTTFTMS, b.SLOTTFTMS) })
	points = slices.CompactFunc(points, func(a, b metrics.Condition) bool { return a.SLOTTFTMS == b.SLOTTFTMS })
	cur := draw.Label(cardfmt.CurrencyNameIn(lg, s.Currency)) // 元, not CNY
	// 元/千次合格: a bare 元 reads as a total. Without a currency the unit
	// is /千次合格 and the subtitle says once that none was recorded.
	perK := draw.Label(cardfmt.CostUnitShortIn(lg, s.Currency))
	costText := func(v float64) string { // 6.25 元/千次合格, 6.25/千次合格
		if cur == "" {
			return draw.Num(v) + perK
		}
		return draw.Num(v) + " " + perK
	}
	byMS := map[float64]metrics.Condition{}
	var good, cost []draw.Point
	for _, cd := range s.Conditions {
		byMS[cd.SLOTTFTMS] = cd
	}
	// The cost axis stops at 4× the dearest mark (rounded up): a cost
	// above it (few qualified at a tight SLO) is drawn off scale, marked.
	var costMax *float64
	for _, m := range markMS {
		if cd, ok := byMS[m]; ok && cd.CostPer1000 != nil && (costMax == nil || *cd.CostPer1000*4 > *costMax) {
			costMax = draw.Ptr(*cd.CostPer1000 * 4)
		}
	}
	if costMax != nil {
		costMax = draw.Ptr(draw.NiceCeil(*costMax))
	}
	var offScale []draw.Point // a mark at the axis's top for each cost above it
	sloText := pointTexts(points)
	for i, cd := range points {
		slo := sloText[i]
		tip := lg.F(lang.Msg{"TTFT ≤ %s：合格 %d · goodput %s 次/s", "TTFT ≤ %s: qualified %d · goodput %s /s"}, slo, cd.Qualified, draw.Num(cd.GoodputPerS))
		var gv any = cd.GoodputPerS
		if cd.Unknown != "" { // nothing rated: no point, not 0
			gv, tip = "-", lg.F(lang.Msg{"TTFT ≤ %s：goodput %s", "TTFT ≤ %s: goodput %s"}, slo, cardfmt.UnknownUnrated.In(lg))
		}
		good = append(good, draw.Point{Value: []any{cd.SLOTTFTMS, gv}, Tooltip: &draw.NodeTooltip{Show: true, Formatter: tip}})
		if s.WindowCost != nil {
			var v any = "-"
			if cd.CostPer1000 != nil {
				v = *cd.CostPer1000
				tip = lg.F(lang.Msg{"TTFT ≤ %s：成本 %s", "TTFT ≤ %s: cost %s"}, slo, costText(*cd.CostPer1000))
				if costMax != nil && *cd.CostPer1000 > *costMax {
					offScale = append(offScale, draw.Point{Value: []any{cd.SLOTTFTMS, *costMax}, Tooltip: &draw.NodeTooltip{Show: true,
						Formatter: lg.F(lang.Msg{"TTFT ≤ %s：成本 %s（超出坐标轴：轴只到 %s）", "TTFT ≤ %s: cost %s (off scale: the axis stops at %s)"}, slo, costText(*cd.CostPer1000), draw.Num(*costMax))}})
				}
			}
			cost = append(cost, draw.Point{Value: []any{cd.SLOTTFTMS, v}, Tooltip: &draw.NodeTooltip{Show: true, Formatter: tip}})
		}
	}
	var marks []any
	for i, m := range markMS {
		cd, ok := byMS[m]
		if !ok {
			continue
		}
		text := lg.F(lang.Msg{"TTFT ≤ %s\n合格 %d\n%s 次/s", "TTFT ≤ %s\nqualified %d\n%s /s"}, draw.SLOText(m), cd.Qualified, draw.Num(cd.GoodputPerS))
		if cd.Unknown != "" {
			text = lg.F(lang.Msg{"TTFT ≤ %s\ngoodput %s", "TTFT ≤ %s\ngoodput %s"}, draw.SLOText(m), cardfmt.UnknownUnrated.In(lg))
		}
		if cd.CostPer1000 != nil {
			text += "\n" + costText(*cd.CostPer1000)
		}
		marks = append(marks, draw.VLine(text, m, []string{draw.ColorFail, "#9a60b4", draw.ColorMark}[i%3], "end"))
	}
	subtitle := lg.F(lang.Msg{"goodput = 联合合格 / 窗口 %s s；只改门槛，失败率与成功 P95 不变", "goodput = qualified / window %s s; only the SLO changes, the failure rate and the P95 of successes do not"}, draw.Num(s.WindowS))
	if s.WindowCost == nil {
		subtitle += lg.S(lang.Msg{"；trace 没有记录窗口成本，不画成本", "; the trace records no window cost, so no cost is drawn"})
	} else {
		// its own line: one line with the goodput's is cut at the chart's edge
		subtitle += "\n" + lg.F(lang.Msg{"每千次合格成本 = 窗口成本 %s ÷ 合格数 × 1000", "cost per 1000 qualified = window cost %s / qualified × 1000"}, strings.TrimSpace(draw.Num(*s.WindowCost)+" "+cur))
		if cur == "" {
			subtitle += lg.S(lang.Msg{"（", " ("}) + cardfmt.NoCurrency.In(lg) + lg.S(lang.Msg{"）", ")"})
		} else {
			subtitle += lg.F(lang.Msg{"，单位 %s", ", in %s"}, perK)
		}
	}
	legendTop := "50"
	if strings.Contains(subtitle, "\n") {
		legendTop = "70"
	}
	l := ec.NewLine()
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(lg.S(lang.Msg{"改变 TTFT 门槛：goodput 与每千次合格成本", "Changing the TTFT SLO: goodput and cost per 1000 qualified"}), subtitle)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: legendTop, Right: "20"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: "165", Bottom: "45", Left: "60", Right: "70"}),
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: lg.S(lang.Msg{"TTFT 门槛（ms）", "TTFT SLO (ms)"}), NameLocation: "middle", NameGap: 28, Min: 0}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: lg.S(lang.Msg{"goodput（合格次/s）", "goodput (qualified/s)"}), Min: 0}),
		ec.WithAnimation(false),
	)
	draw.AddLine(l, lg.S(lang.Msg{"goodput（合格次/s）", "goodput (qualified/s)"}), good, opts.LineChart{Step: "end", ShowSymbol: opts.Bool(false)}, opts.LineStyle{Color: draw.ColorOK, Width: 2}, draw.MarkLines(marks...))
	if s.WindowCost != nil {
		name := perK // 元/千次合格: the axis is the unit, the legend names the line
		if cur == "" {
			name = lg.S(lang.Msg{"成本", "cost"}) + perK
		}
		y := opts.YAxis{Type: "value", Name: name, Min: 0, Position: "right"}
		if costMax != nil {
			y.Max = *costMax
		}
		l.ExtendYAxis(y)
		draw.AddLine(l, lg.S(lang.Msg{"每千次合格成本", "cost per 1000 qualified"}), cost, opts.LineChart{Step: "end", ShowSymbol: opts.Bool(false), YAxisIndex: 1}, opts.LineStyle{Color: draw.ColorOverSLO, Width: 2, Type: "dashed"}, nil)
		if len(offScale) > 0 {
			// Upward triangles on the axis's top edge where the cost curve
			// leaves it, the rightmost labelled; each tooltip has the cost.
			offScale[len(offScale)-1].Label = &opts.Label{Show: opts.Bool(true), Position: "top", Color: draw.ColorOverSLO,
				Formatter: draw.Literal(lg.F(lang.Msg{"超出坐标轴 ↑（> %s）", "off scale ↑ (> %s)"}, draw.Num(*costMax)))}
			draw.AddLine(l, lg.F(lang.Msg{"成本超出坐标轴（> %s）", "cost off scale (> %s)"}, draw.Num(*costMax)), offScale,
				opts.LineChart{ShowSymbol: opts.Bool(true), Symbol: "triangle", SymbolSize: 7, YAxisIndex: 1}, opts.LineStyle{Color: draw.ColorOverSLO, Width: 0, Opacity: opts.Float(0)}, nil)
		}
	}
	return l
}

// pointTexts names the TTFT SLO of each point (sorted, distinct) as
// draw.SLOText does (the card's 3 decimals), with more decimals where that
// text would name two points alike (10.7 ms for 10.66 and 10.74) or would
// qualify a different count: a text that reads below the threshold (1481.9
// for 1481.941, a success's TTFT) drops the attempts between the two, and
// one that reads at or past the next point counts that point's. Each
// point's text is its own, with the fewest decimals (up to 6) that keep
// its count. A threshold that is a success's TTFT carries the float noise
// of the two stamps it is the difference of (1004.4800000000005, which
// 1004.48 would drop): it is rounded up at that many decimals (1004.481
// ms), not printed with every digit, since no other attempt's TTFT lies
// between the two when each success's TTFT is a point of the sweep. Only
// points closer than 1e-6 ms apart are named with every digit.
func pointTexts(points []metrics.Condition) []string {
	out := make([]string, len(points))
	for i := range points {
		v := points[i].SLOTTFTMS
		keeps := func(shown float64) bool {
			return shown >= v && (i+1 == len(points) || shown < points[i+1].SLOTTFTMS)
		}
		clash := func(text func(float64) string) bool {
			t := text(v)
			return i > 0 && text(points[i-1].SLOTTFTMS) == t || i+1 < len(points) && text(points[i+1].SLOTTFTMS) == t
		}
		if keeps(shownMS(v, 3)) && !clash(draw.SLOText) {
			out[i] = draw.SLOText(v)
			continue
		}
		found := false
		for d := 4; d <= 6 && !found; d++ {
			ms := func(x float64) string { return numfmt.Trim(x, d) + " ms" }
			out[i], found = ms(v), keeps(shownMS(v, d)) && !clash(ms)
		}
		for d := 3; d <= 6 && !found; d++ { // float noise above a clean value
			up := func(x float64) string { return numfmt.Trim(ceilAt(x, d), d) + " ms" }
			out[i], found = up(v), keeps(shownMS(ceilAt(v, d), d)) && !clash(up)
		}
		if !found { // closer than 1e-6 ms apart: every digit tells them apart
			out[i] = numfmt.Exact(v) + " ms"
		}
	}
	return out
}

// ceilAt is v rounded up at d decimals.
func ceilAt(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Ceil(v*p) / p
}

// shownMS is the threshold a reader types back from v printed with d
// decimals.
func shownMS(v float64, d int) float64 {
	x, err := strconv.ParseFloat(numfmt.Trim(v, d), 64)
	if err != nil {
		return math.NaN()
	}
	return x
}
