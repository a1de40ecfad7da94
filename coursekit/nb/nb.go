// Package nb shows tables and charts in GoNB notebook cells, offline.
//
// Every cell that displays should start with `defer gonbui.Sync()`: a GoNB
// cell is a program of its own, and output still in the pipe when it exits
// is lost.
package nb

import (
	"fmt"
	"html"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/web"
)

// Missing is what a table shows for a missing value. Never 0: a missing
// latency is not a fast one.
const Missing = "缺失"

// MaxRows is how many rows Table shows; the caption says how many were left out.
const MaxRows = 100

// Chart shows a go-echarts chart (charts.Bar, charts.Line, ...) in the
// cell's output, with no network.
//
// The output carries the chart as data (web.MIMEType, the ECharts option
// JSON), which the course's JupyterLab extension draws with its own ECharts;
// nothing in the output is a script, so the chart draws the same in a saved,
// copied, untrusted or partly re-run notebook. Front ends without the
// extension show a short text summary instead (web.NotebookOutput says why
// not the chart itself). A chart that cannot be sent shows why, in red.
func Chart(c web.Chart) {
	out, err := web.NotebookOutput(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nb.Chart:", err)
		gonbui.DisplayHTML(`<div class="coursekit-error" style="color:#b00">图表画不出来：` + html.EscapeString(err.Error()) + `</div>`)
		return
	}
	if !gonbui.IsNotebook {
		fmt.Println(out.Data["text/html"])
		return
	}
	data := map[protocol.MIMEType]any{}
	for k, v := range out.Data {
		data[protocol.MIMEType(k)] = v
	}
	gonbui.SendData(&protocol.DisplayData{Data: data, Metadata: out.Metadata})
}

// Rows is a table as text, header row first: what the lab's tables
// (lab.BusyTable, lab.CapacityTable, ...) return for Table to show.
type Rows = [][]string

// Table shows a table in the cell's output as HTML: a gota DataFrame, or
// rows of text with the header first (a lab table), so that a cell reads
// nb.Table(lab.BusyTable(runs...)) with no conversion. Missing values read
// "缺失". Rows are shown as text, every column, as they are: numbers keep
// the digits their table wrote, and a table marks a missing value itself.
func Table[T dataframe.DataFrame | Rows](t T) {
	df := Frame(t)
	if df.Err != nil {
		fmt.Fprintln(os.Stderr, "nb.Table:", df.Err)
	}
	gonbui.DisplayHTML(TableHTML(df))
}

// Frame is what Table shows: the DataFrame itself, or rows read as text
// columns (no type guessing: "007" stays "007").
func Frame[T dataframe.DataFrame | Rows](t T) dataframe.DataFrame {
	switch v := any(t).(type) {
	case dataframe.DataFrame:
		return v
	case Rows:
		return dataframe.LoadRecords(v, dataframe.DetectTypes(false))
	}
	panic("unreachable")
}

// TableHTML is the HTML that Table shows, with every cell escaped.
//
// gota has no HTML renderer, and its String() prints floats with 6 fixed
// decimals and missing values as "NaN"; here floats use the shortest exact
// form and missing values say so.
func TableHTML(df dataframe.DataFrame) string {
	var b strings.Builder
	if df.Err != nil {
		fmt.Fprintf(&b, `<div class="coursekit-error" style="color:#b00">表格出错：%s</div>`, html.EscapeString(df.Err.Error()))
		return b.String()
	}
	nrow, ncol := df.Nrow(), df.Ncol()
	shown := min(nrow, MaxRows)
	types := df.Types()

	// JupyterLab lays its output tables out fixed; here the browser sizes
	// the columns to their text, and long text wraps, so a wide table
	// (the attempts table has 11 columns) fits the output area instead of
	// running past its right edge. What still does not fit scrolls.
	b.WriteString(`<div class="coursekit-table-wrap" style="max-width:100%;overflow-x:auto">`)
	b.WriteString(`<table class="coursekit-table" style="border-collapse:collapse;table-layout:auto;width:auto;max-width:100%">`)
	fmt.Fprintf(&b, `<caption style="caption-side:bottom;text-align:left">%d 行 × %d 列`, nrow, ncol)
	if shown < nrow {
		fmt.Fprintf(&b, `（只显示前 %d 行）`, shown)
	}
	b.WriteString(`</caption><thead><tr>`)
	// JupyterLab right-aligns every table cell; text reads better on the
	// left, numbers stay right so their digits line up.
	align := make([]string, ncol)
	for j := range align {
		align[j] = "left"
		if types[j] == series.Int || types[j] == series.Float {
			align[j] = "right"
		}
	}
	for j, name := range df.Names() {
		fmt.Fprintf(&b, `<th style="text-align:%s;%s" title="%s">%s</th>`, align[j], wrappingStyle, html.EscapeString(string(types[j])), headerHTML(name))
	}
	b.WriteString(`</tr></thead><tbody>`)
	for i := 0; i < shown; i++ {
		b.WriteString(`<tr>`)
		for j := 0; j < ncol; j++ {
			e := df.Elem(i, j)
			if e.IsNA() {
				fmt.Fprintf(&b, `<td style="text-align:%s;%s"><em style="color:#888">%s</em></td>`, align[j], cellStyle, Missing)
				continue
			}
			v := cellText(e)
			wrap := cellStyle // short values and numbers stay on one line: "52.174%", "首字前超时"
			if utf8.RuneCountInString(v) > maxUnwrapped {
				wrap = longCellStyle
			}
			fmt.Fprintf(&b, `<td style="text-align:%s;%s">%s</td>`, align[j], wrap, html.EscapeString(v))
		}
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table></div>`)
	return b.String()
}

// Cells up to maxUnwrapped characters never wrap (numbers, 是/否, short
// outcomes); longer text wraps in a column 6em to 20em wide, so no column
// is squeezed to a few characters and none pushes the table past the
// output's right edge, and breaks inside a long unspaced run (an address,
// an error code). Headers up to maxUnwrappedHeader characters stay on one
// line; longer ones wrap at their spaces.
const (
	maxUnwrapped       = 10
	maxUnwrappedHeader = 8
	wrappingStyle      = "padding:4px 6px"
	cellStyle          = wrappingStyle + ";white-space:nowrap"
	longCellStyle      = wrappingStyle + ";min-width:6em;max-width:20em;overflow-wrap:anywhere"
)

// headerHTML is a column name that may take two lines, so that a table of
// many columns fits: a unit in brackets at the end goes on a line of its
// own ("发起时刻" over "（ms）"), and a name longer than maxUnwrappedHeader
// characters may wrap at its spaces ("首字时延 TTFT"); the rest stays on
// one line.
func headerHTML(name string) string {
	line := func(s string) string {
		if utf8.RuneCountInString(s) > maxUnwrappedHeader {
			return `<span style="word-break:keep-all">` + html.EscapeString(s) + `</span>` // at spaces only
		}
		return `<span style="white-space:nowrap">` + html.EscapeString(s) + `</span>`
	}
	if i := strings.LastIndex(name, "（"); i > 0 && strings.HasSuffix(name, "）") {
		return line(strings.TrimSpace(name[:i])) + "<br>" + line(name[i:])
	}
	return line(name)
}

// cellText formats one present value.
func cellText(e series.Element) string {
	if e.Type() != series.Float {
		return e.String()
	}
	// Shortest exact form (0.1, not 0.100000), unless that is long.
	return numfmt.Cell(e.Float())
}
