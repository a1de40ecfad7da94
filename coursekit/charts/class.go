package charts

import (
	"fmt"
	"html"
	"math"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/lang"
)

// Class charts: what `coursekit grade` draws in OUT/class.html for the
// instructor. They take plain counts (the grader computes them), so this
// package does not depend on the grader. Every name is passed through
// Label: criterion titles are ours, but mistake names and learner ids
// travel through the same path and must not inject markup.

// ScoreDistribution is a bar chart of how many learners scored in each
// band: bands[i] names band i ("0–10%"), counts[i] is its learners.
func ScoreDistribution(bands []string, counts []int, subtitle string, options ...Option) *ec.Bar {
	c := newConfig("100%", "360px", options)
	b := ec.NewBar()
	mx := 0
	items := make([]barItem, len(counts))
	for i, n := range counts {
		mx = max(mx, n)
		items[i] = barItem{Value: n, Label: &opts.Label{Show: opts.Bool(n > 0), Position: "top", Formatter: literal(fmt.Sprint(n))}}
	}
	b.SetGlobalOptions(
		c.init(),
		ec.WithTitleOpts(titled("分数分布", Label(subtitle))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		ec.WithGridOpts(opts.Grid{Top: "95", Bottom: "50", Left: "60", Right: "30"}),
		ec.WithXAxisOpts(opts.XAxis{Name: "得分占自动评分满分", NameLocation: "middle", NameGap: 30}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "学习者人数", MinInterval: 1, Max: niceCeil(float64(mx) * 1.2)}),
		ec.WithAnimation(false),
	)
	b.SetXAxis(labels(bands))
	b.AddSeries("学习者", nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
		ss.Data = items
		ss.ItemStyle = &opts.ItemStyle{Color: colorOK}
		ss.BarWidth = "60%"
	}))
	return b
}

// PassRates is a horizontal bar chart of each criterion's pass rate (the
// share of graded learners with full points), in the order given: names[i]
// is the criterion, passed[i] of graded learners passed it.
func PassRates(names []string, passed []int, graded int, options ...Option) *ec.Bar {
	c := newConfig("100%", fmt.Sprintf("%dpx", 116+24*len(names)), options)
	items := make([]barItem, len(names))
	for i, n := range passed {
		pct := 0.0
		if graded > 0 {
			pct = float64(n) / float64(graded) * 100
		}
		color := colorOK
		if pct < 50 {
			color = colorFail
		} else if pct < 80 {
			color = colorOverSLO
		}
		items[i] = barItem{Value: num(pct), ItemStyle: &opts.ItemStyle{Color: color},
			Label: &opts.Label{Show: opts.Bool(true), Position: "right", Formatter: literal(fmt.Sprintf("%.0f%%(%d/%d)", pct, n, graded))}}
	}
	subtitle := fmt.Sprintf("得满分的学习者占可评分学习者（%d 人）的比例；红色低于 50%%，橙色低于 80%%", graded)
	return hbar(c, "各检查项通过率", subtitle, names, items, opts.XAxis{Type: "value", Min: 0, Max: 100, Name: "得满分的学习者（%）"}, "330", "110", "60%")
}

// hbar is a horizontal bar chart of one series: names down the side,
// items as the bars, no legend. The value axis's name sits centred under
// its ticks: at the axis's end it floated alone past the last tick, away
// from the axis it names.
func hbar(c config, title, subtitle string, names []string, items []barItem, x opts.XAxis, left, right, width string) *ec.Bar {
	x.NameLocation, x.NameGap = "middle", 28
	b := ec.NewBar()
	b.SetGlobalOptions(
		c.init(),
		ec.WithTitleOpts(titled(title, subtitle)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		ec.WithGridOpts(opts.Grid{Top: "70", Bottom: "56", Left: left, Right: right}),
		ec.WithXAxisOpts(x),
		ec.WithYAxisOpts(opts.YAxis{Type: "category", Inverse: opts.Bool(true), AxisLabel: &opts.AxisLabel{Interval: "0"}}),
		ec.WithAnimation(false),
	)
	b.SetXAxis(labels(names))
	b.AddSeries(title, nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
		ss.Data = items
		ss.BarWidth = width
	}))
	b.XYReversal()
	return b
}

// Mistakes is a horizontal bar chart of how many learners made each of
// the unit's typical mistakes: names[i] made by counts[i] learners.
func Mistakes(names []string, counts []int, graded int, options ...Option) *ec.Bar {
	c := newConfig("100%", fmt.Sprintf("%dpx", 136+36*len(names)), options)
	items := make([]barItem, len(counts))
	mx := 0
	for i, n := range counts {
		mx = max(mx, n)
		items[i] = barItem{Value: n, ItemStyle: &opts.ItemStyle{Color: colorFail},
			Label: &opts.Label{Show: opts.Bool(true), Position: "right", Formatter: literal(fmt.Sprintf("%d 人", n))}}
	}
	subtitle := fmt.Sprintf("从口径卡上的数字认出来的典型错误；可评分学习者 %d 人", graded)
	x := opts.XAxis{Type: "value", MinInterval: 1, Max: max(mx+1, int(math.Ceil(float64(mx)*1.2))), Name: "学习者人数"}
	return hbar(c, "常见错误", subtitle, names, items, x, "300", "80", "55%")
}

func labels(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = Label(x)
	}
	return out
}

type headingPart string

// Heading is a section heading on a Page (escaped).
func Heading(s string) Part { return headingPart(s) }

func (p headingPart) pageHTML(lang.Lang) (string, error) {
	return "<h2>" + html.EscapeString(string(p)) + "</h2>\n", nil
}

type tablePart struct {
	head []string
	rows [][]string
}

// Table is a plain table on a Page: every cell is text, escaped.
func Table(head []string, rows [][]string) Part { return tablePart{head, rows} }

func (p tablePart) pageHTML(lang.Lang) (string, error) {
	return tableHTML(`class="class-table"`, "", "", p.head, p.rows), nil
}

// tableHTML is a table of text cells, every one escaped (a line break in
// a cell becomes <br>); tableAttrs, thAttrs and thStyle are trusted markup
// added to the table tag, the header tags and their style.
func tableHTML(tableAttrs, thAttrs, thStyle string, head []string, rows [][]string) string {
	e := html.EscapeString
	var b strings.Builder
	b.WriteString(`<table ` + tableAttrs + ` style="border-collapse:collapse;margin:8px 0 20px;font-size:14px">` + "\n<thead><tr>")
	for _, h := range head {
		b.WriteString(`<th` + thAttrs + ` style="border:1px solid #ccd;padding:4px 8px;background:#eef;text-align:left` + thStyle + `">` + e(h) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, c := range r {
			b.WriteString(`<td style="border:1px solid #ccd;padding:4px 8px;vertical-align:top">` + strings.ReplaceAll(e(c), "\n", "<br>") + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>\n")
	return b.String()
}
