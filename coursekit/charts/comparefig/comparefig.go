// Package comparefig draws an A/B comparison (coursekit/compare) as a
// forest plot, one row per metric: B − A as a share of A, with its 95 %
// interval as a bar through it and 0 as a vertical line, coloured by the
// verdict. Metrics of different units share one axis because each is
// drawn relative to its A; a metric whose A is 0 or missing cannot be and
// is named in the subtitle instead. Shares of attempts (failure rate,
// qualified rates) are drawn in percentage points, B − A itself, so a
// failure rate of 0 % on A is drawn too; their rows say "(pp)". WritePage puts the plot and the
// comparison's table on one offline HTML page.
package comparefig

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
	msgSubtitle  = lang.Msg{"A %d 次运行，B %d 次运行；横轴是 B − A 占 A 的百分比，竖线是 0\n每行名字后是结论，区间含 0 记为 ~（看不出差别）\n比例（标 pp）画的是 B − A 的百分点，与别的行共用这根横轴：1 pp 和 1%% 一样长，但不是一个量", "A %d run(s), B %d run(s); the axis is B − A as a share of A, the vertical line 0\neach row's name ends with its verdict: ~ when its interval holds 0 (no difference shows)\nshares (marked pp) in percentage points on this same axis: as long as 1%%, not the same quantity"}
	msgPPRow     = lang.Msg{"%s（pp）", "%s (pp)"}
	msgLeftOut   = lang.Msg{"没有画出（A 为 0 或缺失）：", "not drawn (A is 0 or missing): "}
	msgAxis      = lang.Msg{"B − A，占 A 的百分比（%）；标 pp 的行：百分点，共用刻度", "B − A as a share of A (%); rows marked pp: percentage points on the same scale"}
	msgRowName   = lang.Msg{"%s · %s", "%s · %s"}
	msgPoint     = lang.Msg{"B − A", "B − A"}
	msgInterval  = lang.Msg{"95% 区间", "95% interval"}
	msgZero      = lang.Msg{"0（没有差别）", "0 (no difference)"}
	msgTip       = lang.Msg{"%s：A %s，B %s<br/>B − A %s（%s）<br/>95%% 区间 %s，%s<br/>结论：%s", "%s: A %s, B %s<br/>B − A %s (%s)<br/>95%% interval %s, %s<br/>verdict: %s"}
	msgUnbounded = lang.Msg{"（区间一侧没有界，画到边上）", " (unbounded on one side: drawn to the edge)"}
	msgSep       = lang.Msg{"、", ", "}
	msgPage      = lang.Msg{"A/B 对照", "A/B comparison"}
	msgCaption   = lang.Msg{"每一行是一个指标：点是 B − A 占 A 的百分比（失败率、合格率这类比例是 B − A 的百分点，标 pp），横条是它的 95% 区间；绿色更好，红色更差，灰色是 ~（区间含 0）。", "One row per metric: the point is B − A as a share of A (for shares, the failure and qualified rates, B − A in percentage points, marked pp), the bar its 95% interval; green is better, red worse, grey ~ (the interval holds 0)."}
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
	// is fitted to what is drawn (axisRange): the estimates and bounded
	// ends, and 0. An end beyond it, or an unbounded one, stops at the edge
	// with an arrow, so that one huge or unbounded interval does not
	// squeeze the others.
	type row struct {
		m                 compare.Metric
		x, lo, hi         float64
		open              bool
		clipLow, clipHigh bool
		// pp: a share, drawn in percentage points.
		pp bool
	}
	var rows []row
	var left []string
	var ests, ends []float64
	for _, m := range r.Metrics {
		share := m.Unit == "share" && m.Diff != nil
		if !share && (m.Rel == nil || m.A == nil || *m.A == 0) {
			left = append(left, m.Name)
			continue
		}
		var rw row
		var a float64
		if share {
			// Percentage points: B − A itself, whatever A is.
			rw, a = row{m: m, x: *m.Diff * 100, pp: true}, 1
		} else {
			a = math.Abs(*m.A)
			rw = row{m: m, x: *m.Rel * 100}
		}
		ests = append(ests, rw.x)
		if m.CI95.Low != nil {
			rw.lo = *m.CI95.Low / a * 100
			ends = append(ends, rw.lo)
		}
		if m.CI95.High != nil {
			rw.hi = *m.CI95.High / a * 100
			ends = append(ends, rw.hi)
		}
		rows = append(rows, rw)
	}
	edgeLow, edge, step := axisRange(ests, ends)
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
	sub := msgSubtitle.F(l, len(r.A.Traces), len(r.B.Traces))
	if len(left) > 0 {
		sub += "\n" + wrapList(msgLeftOut.In(l), left, msgSep.In(l))
	}
	lines := strings.Count(sub, "\n") + 1
	if c.Height == "" {
		c.Height = fmt.Sprintf("%dpx", 131+19*lines+36*max(len(rows), 1))
	}
	// Each row is named in full, wrapped after its metric's name when
	// long (qualified_rate / @ttft1000ms+e2e3000ms), and ends with its
	// verdict: a label on the point could be left out by the chart, and
	// a mark the reader looks for should not be. The axis is given the
	// room its longest line takes.
	names := make([]string, len(rows))
	widest := 0
	for i, rw := range rows {
		name := rw.m.Name
		if rw.pp {
			name = msgPPRow.F(l, name)
		}
		names[i] = rowName(msgRowName.F(l, name, compare.VerdictName(l, rw.m.Verdict)))
		for _, line := range strings.Split(names[i], "\n") {
			widest = max(widest, columns(line))
		}
	}
	yWidth := max(100, 7*widest+24)
	ln := ec.NewLine()
	ln.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(msgTitle.In(l), sub)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: strconv.Itoa(71 + 19*lines), Bottom: "60", Left: strconv.Itoa(yWidth), Right: "40"}),
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: msgAxis.In(l), NameLocation: "middle", NameGap: 28, Min: edgeLow, Max: edge, MinInterval: step, MaxInterval: step}),
		ec.WithYAxisOpts(opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true), AxisLabel: &opts.AxisLabel{Interval: "0"}}),
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
			ItemStyle: &opts.ItemStyle{Color: color}, Tooltip: tt})
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

// axisRange fits the axis to the estimates and bounded ends (in % of A):
// from the lowest to the highest of them and 0, padded by a tenth of the
// span, on ticks of a round step so that 0 is one. Each side reaches at
// most twice the larger of the farthest estimate and the median end, so
// that one interval far wider than the rest stops at the edge instead of
// squeezing them; and not below −100 % (or the tick just below 0, if −100
// is none), since no true value is below 0: an interval reaching below
// −100 % of the observed A (Welch's over few runs can) stops at the edge
// with an arrow.
func axisRange(ests, ends []float64) (lo, hi, step float64) {
	reach := 0.0
	for _, x := range ests {
		reach = max(reach, math.Abs(x))
	}
	abs := make([]float64, len(ends))
	for i, e := range ends {
		abs[i] = math.Abs(e)
	}
	slices.Sort(abs)
	if len(abs) > 0 {
		reach = max(reach, abs[len(abs)/2])
	}
	limit := 2 * reach
	for _, v := range slices.Concat(ests, ends) {
		lo, hi = min(lo, max(v, -limit)), max(hi, min(v, limit))
	}
	if hi-lo == 0 {
		lo, hi = -1, 1 // nothing but 0 to draw
	}
	pad := (hi - lo) / 10
	lo, hi = max(lo-pad, -100), hi+pad
	step = niceStep((hi - lo) / 6)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	if lo < -100 {
		// The ticks run from lo: −100 is the start when it is one of
		// them, else the tick just below 0.
		lo = -step
		if k := 100 / step; k == math.Trunc(k) {
			lo = -100
		}
	}
	return lo, hi, step
}

// niceStep is the smallest of 1, 2, 2.5 and 5 times a power of ten at
// least x.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// wrapList is head and then items, joined by sep and wrapped into lines
// of at most subtitleColumns, an item never cut: the subtitle names every
// metric left out whole.
func wrapList(head string, items []string, sep string) string {
	var b strings.Builder
	line := head
	for i, it := range items {
		it = draw.Label(it)
		if i < len(items)-1 {
			it += strings.TrimRight(sep, " ")
		}
		if line != head && columns(line)+1+columns(it) > subtitleColumns {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = ""
		} else if line != head && !strings.HasSuffix(line, "、") {
			line += " "
		}
		line += it
	}
	b.WriteString(line)
	return b.String()
}

// subtitleColumns is how wide a subtitle line may get, in columns (a
// Chinese character takes two): what a chart of 1000 px holds at 13 px.
const subtitleColumns = 100

// columns is how many columns s takes.
func columns(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x2e80 {
			n++
		}
	}
	return n
}

// rowLineRunes is the longest a row's name runs on one line before it is
// wrapped after its metric's name (at "@").
const rowLineRunes = 30

// rowName is a row's name as the axis prints it: whole (no cut), wrapped
// before its "@" when longer than rowLineRunes.
func rowName(s string) string {
	s = draw.WholeText(s)
	if utf8.RuneCountInString(s) <= rowLineRunes {
		return s
	}
	if i := strings.Index(s, "@"); i > 0 {
		return s[:i] + "\n" + s[i:]
	}
	return s
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
