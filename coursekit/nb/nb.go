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
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	"github.com/janpfeifer/gonb/gonbui"

	"github.com/llmperf-course/course/coursekit/web"
)

// Missing is what a table shows for a missing value. Never 0: a missing
// latency is not a fast one.
const Missing = "缺失"

// MaxRows is how many rows Table shows; the caption says how many were left out.
const MaxRows = 100

// Chart shows a go-echarts chart (charts.Bar, charts.Line, ...) in the cell's
// output, with no network.
//
// The first chart of a kernel also carries ECharts itself (about 1 MB), so the
// saved notebook draws again when reopened; later charts reuse window.echarts.
// Each GoNB cell runs as a new process, so "first" is remembered in a marker
// file in the kernel's own temp dir (GONB_TMP_DIR), which a kernel restart
// replaces. The library script is also guarded in the browser, so showing it
// twice costs bytes, not correctness.
func Chart(c web.Snippeter) {
	gonbui.DisplayHTML(chartOutput(c, os.Getenv("GONB_TMP_DIR")))
}

// chartOutput is Chart's HTML; kernelDir is GONB_TMP_DIR ("" outside GoNB).
func chartOutput(c web.Snippeter, kernelDir string) string {
	frag := web.ChartHTML(c.RenderSnippet())
	if kernelDir == "" {
		return web.InlineEChartsScript() + frag
	}
	marker := filepath.Join(kernelDir, ".coursekit-echarts-"+web.EChartsVersion)
	if _, err := os.Stat(marker); err == nil {
		return frag
	}
	// Best effort: if the marker cannot be written, the next chart inlines again.
	_ = os.WriteFile(marker, []byte("ECharts inlined in this kernel's output\n"), 0o644)
	return web.InlineEChartsScript() + frag
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
		fmt.Fprintf(&b, `<th style="text-align:%s" title="%s">%s</th>`, align[j], html.EscapeString(string(types[j])), html.EscapeString(name))
	}
	b.WriteString(`</tr></thead><tbody>`)
	for i := 0; i < shown; i++ {
		b.WriteString(`<tr>`)
		for j := 0; j < ncol; j++ {
			e := df.Elem(i, j)
			if e.IsNA() {
				fmt.Fprintf(&b, `<td style="text-align:%s"><em style="color:#888">%s</em></td>`, align[j], Missing)
				continue
			}
			fmt.Fprintf(&b, `<td style="text-align:%s">%s</td>`, align[j], html.EscapeString(cellText(e)))
		}
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table>`)
	return b.String()
}

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
