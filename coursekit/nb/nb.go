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
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

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

// Table shows a gota DataFrame as an HTML table. Missing values read "缺失".
func Table(df dataframe.DataFrame) {
	if df.Err != nil {
		fmt.Fprintln(os.Stderr, "nb.Table:", df.Err)
	}
	gonbui.DisplayHTML(TableHTML(df))
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

	b.WriteString(`<table class="coursekit-table" style="border-collapse:collapse">`)
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
		style := cellStyle
		if utf8.RuneCountInString(name) > maxUnwrappedHeader {
			style = wrappingStyle // "首字时延 TTFT（ms）" may take two lines, so nine columns fit
		}
		fmt.Fprintf(&b, `<th style="text-align:%s;%s" title="%s">%s</th>`, align[j], style, html.EscapeString(string(types[j])), html.EscapeString(name))
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
	b.WriteString(`</tbody></table>`)
	return b.String()
}

// Cells up to maxUnwrapped characters never wrap; longer text wraps in a
// column 12em to 40em wide, so no column is squeezed to a few characters,
// and breaks inside a long unspaced run (an address, an error code) so the
// table does not run off the right edge. Headers up to maxUnwrappedHeader
// characters stay on one line; longer ones wrap at their spaces.
const (
	maxUnwrapped       = 18
	maxUnwrappedHeader = 8
	wrappingStyle      = "padding:4px 10px"
	cellStyle          = wrappingStyle + ";white-space:nowrap"
	longCellStyle      = wrappingStyle + ";min-width:12em;max-width:40em;overflow-wrap:anywhere"
)

// cellText formats one present value.
func cellText(e series.Element) string {
	if e.Type() != series.Float {
		return e.String()
	}
	// Shortest exact form (0.1, not 0.100000), unless that is long.
	s := strconv.FormatFloat(e.Float(), 'f', -1, 64)
	if len(s) > 12 {
		s = strconv.FormatFloat(e.Float(), 'g', 6, 64)
	}
	return s
}
