// Package comparefig draws an A/B comparison (coursekit/compare) as a
// forest plot, one row per metric: B − A as a share of A, with its 95 %
// interval as a bar through it and 0 as a vertical line, coloured by the
// verdict. Metrics of different units share one axis because each is
// drawn relative to its A; a metric whose A is 0 or missing cannot be and
// is named in the subtitle instead. WritePage puts the plot and the
// comparison's table on one offline HTML page.
package comparefig

import (
	"fmt"
	"io"
	"math"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/charts/page"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

var (
	msgTitle     = lang.Msg{"A/B 对照：每个指标的 B − A 与 95% 区间", "A/B comparison: B − A per metric with its 95% interval"}
	msgSubtitle  = lang.Msg{"A %d 次运行，B %d 次运行；横轴是 B − A 占 A 的百分比，竖线是 0；区间含 0 记为 ~（看不出差别）", "A %d run(s), B %d run(s); the axis is B − A as a share of A, the vertical line 0; an interval holding 0 is ~ (no difference shows)"}
	msgLeftOut   = lang.Msg{"；没有画出（A 为 0 或缺失）：%s", "; not drawn (A is 0 or missing): %s"}
	msgAxis      = lang.Msg{"B − A，占 A 的百分比（%）", "B − A as a share of A (%)"}
	msgPoint     = lang.Msg{"B − A", "B − A"}
	msgInterval  = lang.Msg{"95% 区间", "95% interval"}
	msgZero      = lang.Msg{"0（没有差别）", "0 (no difference)"}
	msgTip       = lang.Msg{"%s：A %s，B %s<br/>B − A %s（%s）<br/>95%% 区间 %s，%s<br/>结论：%s", "%s: A %s, B %s<br/>B − A %s (%s)<br/>95%% interval %s, %s<br/>verdict: %s"}
	msgUnbounded = lang.Msg{"（区间一侧没有界，画到边上）", " (unbounded on one side: drawn to the edge)"}
	msgSep       = lang.Msg{"、", ", "}
	msgPage      = lang.Msg{"A/B 对照", "A/B comparison"}
	msgCaption   = lang.Msg{"每一行是一个指标：点是 B − A 占 A 的百分比，横条是它的 95% 区间；绿色更好，红色更差，灰色是 ~（区间含 0）。", "One row per metric: the point is B − A as a share of A, the bar its 95% interval; green is better, red worse, grey ~ (the interval holds 0)."}
)

// Verdict colours.
const (
	colorBetter = "#3ba272"
	colorSame   = draw.ColorInFlight
)

func verdictColor(v string) string {
	switch v {
	case compare.Better:
		return colorBetter
	case compare.Worse:
		return draw.ColorFail
	}
	return colorSame
}

// Forest draws r as a forest plot (see the package doc).
func Forest(r *compare.Result, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "", options)
	l := c.Lang
	// The drawn rows: B − A and its interval as shares of A, in %. The axis
	// starts at −100 %: every metric is at least 0, so B − A ≥ −A. It ends
	// past the farthest estimate and bounded end, but at most twice the
	// farthest estimate (100 % at least): an end beyond, or an unbounded
	// one, stops at the edge with an arrow, so that one huge or unbounded
	// interval does not squeeze the others.
	type row struct {
		m                 compare.Metric
		x, lo, hi         float64
		open              bool
		clipLow, clipHigh bool
	}
	var rows []row
	var left []string
	far, est := 0.0, 0.0
	for _, m := range r.Metrics {
		if m.Rel == nil || m.A == nil || *m.A == 0 {
			left = append(left, m.Name)
			continue
		}
		a := math.Abs(*m.A)
		rw := row{m: m, x: *m.Rel * 100}
		est = max(est, rw.x)
		far = max(far, rw.x)
		if m.CI95.Low != nil {
			rw.lo = *m.CI95.Low / a * 100
			far = max(far, rw.lo)
		}
		if m.CI95.High != nil {
			rw.hi = *m.CI95.High / a * 100
			far = max(far, rw.hi)
		}
		rows = append(rows, rw)
	}
	const edgeLow = -100.0
	edge, step := axisEdge(max(min(far, 2*max(est, 50))*1.1, 10))
	for i := range rows {
		rw := &rows[i]
		if rw.m.CI95.Low == nil || rw.lo < edgeLow {
			rw.lo, rw.clipLow = edgeLow, true
		}
		if rw.m.CI95.High == nil || rw.hi > edge {
			rw.hi, rw.clipHigh = edge, true
		}
		rw.open = rw.m.CI95.Low == nil || rw.m.CI95.High == nil
	}
	if c.Height == "" {
		c.Height = fmt.Sprintf("%dpx", 150+36*max(len(rows), 1))
	}
	names := make([]string, len(rows))
	for i, rw := range rows {
		names[i] = draw.Label(rw.m.Name)
	}
	sub := msgSubtitle.F(l, len(r.A.Traces), len(r.B.Traces))
	if len(left) > 0 {
		sub += msgLeftOut.F(l, draw.Label(strings.Join(left, msgSep.In(l))))
	}
	ln := ec.NewLine()
	ln.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(msgTitle.In(l), sub)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: "90", Bottom: "60", Left: "230", Right: "40"}),
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: msgAxis.In(l), NameLocation: "middle", NameGap: 28, Min: edgeLow, Max: edge, MinInterval: step, MaxInterval: step}),
		ec.WithYAxisOpts(opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true)}),
		ec.WithAnimation(false),
	)
	cells := map[string]compare.Cell{}
	for _, c := range compare.Cells(r, l) {
		cells[c.Name] = c
	}
	var points []draw.Point
	for i, rw := range rows {
		m := rw.m
		tip := tooltip(l, cells[m.Name], rw.open)
		color := verdictColor(m.Verdict)
		tt := &draw.NodeTooltip{Show: true, Formatter: tip}
		style := "solid"
		if rw.open {
			style = "dashed"
		}
		lo := draw.Point{Value: []any{round2(rw.lo), names[i]}, Tooltip: tt}
		if rw.clipLow {
			lo.Symbol, lo.SymbolSize, lo.SymbolRotate, lo.ItemStyle = "arrow", 12, 90, &opts.ItemStyle{Color: color}
		}
		hi := draw.Point{Value: []any{round2(rw.hi), names[i]}, Tooltip: tt}
		if rw.clipHigh {
			hi.Symbol, hi.SymbolSize, hi.SymbolRotate, hi.ItemStyle = "arrow", 12, -90, &opts.ItemStyle{Color: color}
		}
		draw.AddLine(ln, msgInterval.In(l), []draw.Point{lo, hi},
			opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 6}, opts.LineStyle{Color: color, Width: 3, Type: style}, nil)
		points = append(points, draw.Point{Value: []any{round2(rw.x), names[i]}, Symbol: "diamond", SymbolSize: 13,
			ItemStyle: &opts.ItemStyle{Color: color}, Tooltip: tt,
			Label: &opts.Label{Show: opts.Bool(true), Position: "top", Color: color, Formatter: draw.Literal(compare.VerdictName(l, m.Verdict))}})
	}
	// The estimates, on a series whose line is not drawn, and the 0 line.
	draw.AddLine(ln, msgPoint.In(l), points, opts.LineChart{ShowSymbol: opts.Bool(true)}, opts.LineStyle{Color: draw.ColorMark, Opacity: opts.Float(0)},
		draw.MarkLines(zeroLine(l)))
	return ln
}

// zeroLine is the vertical line at 0, unlabelled: the subtitle says what
// it is, and a label at either end stood on a row's verdict or the axis' 0.
func zeroLine(l lang.Lang) draw.MarkItem {
	z := draw.VLine(msgZero.In(l), 0, draw.ColorMark, "end")
	z.Label = &opts.Label{Show: opts.Bool(false)}
	return z
}

// axisSteps are the tick steps the axis uses: those up to 100 divide 100,
// so −100, the axis' start, and 0 are ticks.
var axisSteps = []float64{10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000}

// axisEdge is the axis' end at least far, a whole number of ticks, and
// the tick step: about six ticks over −100 … edge.
func axisEdge(far float64) (edge, step float64) {
	step = axisSteps[len(axisSteps)-1]
	for _, s := range axisSteps {
		if (far+100)/s <= 7 {
			step = s
			break
		}
	}
	return math.Ceil(far/step) * step, step
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// tooltip is a metric's row of the report: values, difference,
// interval, method and verdict.
func tooltip(l lang.Lang, c compare.Cell, open bool) string {
	e := draw.SafeText // the cells come from the report; the <br/> of the template stays
	s := msgTip.F(l, e(c.Name), e(c.A), e(c.B), e(c.Diff), e(c.Rel), e(c.Interval), e(c.Method), e(c.Verdict))
	if open {
		s += msgUnbounded.In(l)
	}
	return s
}

// WritePage writes r as one offline HTML page in l: the forest plot, then
// the report's paragraphs, lists and table, as the text report has them.
func WritePage(w io.Writer, r *compare.Result, l lang.Lang) error {
	parts := []page.Part{page.Figure(Forest(r, charts.WithLang(l), charts.WithID("compare_forest")), msgCaption.In(l))}
	for _, b := range compare.Blocks(r, l) {
		switch {
		case b.Table != nil:
			parts = append(parts, page.Table(b.Table[0], b.Table[1:]))
		case b.Items != nil:
			parts = append(parts, page.Text(strings.Join(b.Items, "\n")))
		default:
			parts = append(parts, page.Text(b.Para))
		}
	}
	return page.WriteIn(w, l, msgPage.In(l), parts...)
}
