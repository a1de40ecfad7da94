package draw

import (
	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// Point is a data item with its own name, symbol and label.
type Point struct {
	Name       string `json:"name,omitempty"`
	Value      []any  `json:"value"`
	Symbol     string `json:"symbol,omitempty"`
	SymbolSize int    `json:"symbolSize,omitempty"`
	// SymbolRotate turns the symbol, degrees anticlockwise (an arrow points
	// up unturned).
	SymbolRotate int             `json:"symbolRotate,omitempty"`
	Label        *opts.Label     `json:"label,omitempty"`
	ItemStyle    *opts.ItemStyle `json:"itemStyle,omitempty"`
	Tooltip      *NodeTooltip    `json:"tooltip,omitempty"`
}

// MarkItem is one end of a mark line or mark area, or a whole line along
// one axis. Pointers keep a coordinate of 0 in the JSON.
type MarkItem struct {
	Name      string          `json:"name,omitempty"`
	XAxis     *float64        `json:"xAxis,omitempty"`
	YAxis     *float64        `json:"yAxis,omitempty"`
	Coord     []float64       `json:"coord,omitempty"`
	Symbol    string          `json:"symbol,omitempty"`
	Label     *opts.Label     `json:"label,omitempty"`
	LineStyle *opts.LineStyle `json:"lineStyle,omitempty"`
	ItemStyle *opts.ItemStyle `json:"itemStyle,omitempty"`
}

// Ptr is a pointer to v.
func Ptr(v float64) *float64 { return &v }

// VLine is a vertical mark line at x, labelled with its name.
func VLine(name string, x float64, color, position string) MarkItem {
	return MarkItem{Name: name, XAxis: Ptr(x), Label: nameLabelColor(position, color),
		LineStyle: &opts.LineStyle{Color: color, Width: 2, Type: "dashed"}}
}

// HLine is a horizontal mark line at y.
func HLine(name string, y float64, color, position string) MarkItem {
	return MarkItem{Name: name, YAxis: Ptr(y), Label: nameLabelColor(position, color),
		LineStyle: &opts.LineStyle{Color: color, Width: 1, Type: "dotted"}}
}

// Span is a mark line from (x0, y0) to (x1, y1), labelled with its name.
func Span(name string, x0, y0, x1, y1 float64, color, position string) []MarkItem {
	return []MarkItem{
		{Name: name, Coord: []float64{x0, y0}, Label: nameLabelColor(position, color),
			LineStyle: &opts.LineStyle{Color: color, Width: 2, Type: "solid"}},
		{Coord: []float64{x1, y1}},
	}
}

func nameLabelColor(position, color string) *opts.Label {
	l := NameLabel(position)
	l.Color = color
	return l
}

// Area is a shaded mark area between x0 and x1 over the whole height.
func Area(name string, x0, x1 float64, color string) []MarkItem {
	return []MarkItem{
		{Name: name, XAxis: Ptr(x0), ItemStyle: &opts.ItemStyle{Color: color, Opacity: opts.Float(0.18)}},
		{XAxis: Ptr(x1)},
	}
}

// MarkLines are mark lines without end symbols, labelled with their names.
func MarkLines(items ...any) *opts.MarkLines {
	return &opts.MarkLines{Data: items, MarkLineStyle: opts.MarkLineStyle{
		Symbol: []string{"none", "none"}, Label: NameLabel("end"),
	}}
}

// MarkAreas are mark areas labelled with their names at the top.
func MarkAreas(items ...any) *opts.MarkAreas {
	return &opts.MarkAreas{Data: items, MarkAreaStyle: opts.MarkAreaStyle{
		Label: &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Color: ColorMark, Position: "insideTop"},
	}}
}

// Literal is a label formatter that shows s as written.
func Literal(s string) types.FuncStr { return types.FuncStr(s) }

// AddLine adds one line series of prepared points in a single colour (line
// and symbols alike); marks may be nil.
func AddLine(l *ec.Line, name string, data any, lc opts.LineChart, style opts.LineStyle, marks *opts.MarkLines) {
	l.AddSeries(name, nil,
		ec.WithLineChartOpts(lc),
		ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
			ss.Data = data
			ss.LineStyle = &style
			ss.ItemStyle = &opts.ItemStyle{Color: style.Color}
			ss.MarkLines = marks
		}))
}
