package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"regexp"
	"strings"
)

// MIMEType is the output type of a chart in a notebook: the ECharts option as
// JSON. The course's JupyterLab extension (docker/labextension) draws it with
// its own copy of ECharts 5.4.3, so a chart draws from data alone: in trusted
// and untrusted notebooks, after any re-run order, in copies side by side,
// with no per-kernel state and no script in the output.
const MIMEType = "application/vnd.coursekit.echarts+json"

// Chart is a go-echarts chart (charts.Bar, charts.Line, charts.Graph, ...).
type Chart interface {
	Snippeter
	JSON() map[string]interface{}
}

// Output is one chart as a notebook output: Data is the MIME bundle (the
// option under MIMEType, and a text/html fallback for front ends without
// the extension), Metadata carries the chart's height for the renderer.
// Every value is a string or a map of strings: GoNB passes display data
// through gob, which carries only those.
type Output struct {
	Data     map[string]any
	Metadata map[string]any
}

// ErrFunction is returned for a chart whose options carry JavaScript
// functions (go-echarts' opts.FuncOpts, marked "__f__"): the renderer draws
// data and never runs code from an output, so such a chart cannot be shown.
var ErrFunction = errors.New("the chart's options contain a JavaScript function (go-echarts FuncOpts, \"__f__\"), which a notebook chart cannot carry: use a formatter template string such as \"{b}\" instead")

// NotebookOutput turns a chart into its notebook output.
//
// The text/html fallback is a short static summary (title, subtitle, the
// series and how many points each has, and a note saying where the chart
// draws), not a second copy of the chart: carrying ECharts (1 MB) in every
// chart's fallback would make the saved deliverable several megabytes, and
// a fallback that loads ECharts once per notebook breaks exactly as the old
// design did (untrusted, re-run, copied). VS Code and exported HTML show
// the summary; `coursekit report` draws the same charts on one offline page.
func NotebookOutput(c Chart) (Output, error) {
	snip := c.RenderSnippet() // also validates the chart (fills in its series)
	obj := c.JSON()
	// go-echarts puts a toolbox into every option (empty unless set). The course's renderer
	// draws no toolbox (its data view writes text into the page as HTML), so none is sent.
	delete(obj, "toolbox")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the renderer reads JSON, not HTML
	if err := enc.Encode(obj); err != nil {
		return Output{}, fmt.Errorf("chart options: %w", err)
	}
	option := []byte(NumericIntervals(string(bytes.TrimSpace(buf.Bytes()))))
	if bytes.Contains(option, []byte("__f__")) {
		return Output{}, ErrFunction
	}
	var parsed map[string]any
	if err := json.Unmarshal(option, &parsed); err != nil {
		return Output{}, fmt.Errorf("chart options: %w", err)
	}
	height := elementHeight(snip.Element)
	return Output{
		Data: map[string]any{
			MIMEType:    string(option),
			"text/html": FallbackHTML(parsed, height),
		},
		Metadata: map[string]any{MIMEType: map[string]string{"height": height}},
	}, nil
}

var heightStyle = regexp.MustCompile(`height:\s*([0-9.]+(?:px|vh|em|rem|%))`)

// elementHeight reads the chart's CSS height from go-echarts' element.
func elementHeight(element string) string {
	if m := heightStyle.FindStringSubmatch(element); m != nil {
		return m[1]
	}
	return "420px"
}

// FallbackHTML is the static text shown in place of a chart by front ends
// that do not have the course's JupyterLab extension. Every string from the
// option is escaped.
func FallbackHTML(option map[string]any, height string) string {
	e := html.EscapeString
	var b strings.Builder
	b.WriteString(`<div class="coursekit-chart-fallback" style="border:1px dashed #bbb;padding:8px 12px;color:#333">`)
	title, subtitle := titleText(option)
	if title == "" {
		title = "图表"
	}
	fmt.Fprintf(&b, `<p style="margin:0 0 4px"><strong>%s</strong></p>`, e(title))
	if subtitle != "" {
		fmt.Fprintf(&b, `<p style="margin:0 0 4px;white-space:pre-line;color:#555">%s</p>`, e(subtitle))
	}
	if s := seriesSummary(option); s != "" {
		fmt.Fprintf(&b, `<p style="margin:0 0 4px">%s</p>`, e(s))
	}
	b.WriteString(`<p style="margin:0;color:#777;font-size:smaller">这张图在课程的 JupyterLab 里从数据画出（扩展 coursekit-jupyterlab）。这个前端没有该扩展，只显示文字摘要；用 coursekit report 可以得到带图的离线网页。</p></div>`)
	return b.String()
}

func titleText(option map[string]any) (title, subtitle string) {
	t := option["title"]
	if list, ok := t.([]any); ok && len(list) > 0 {
		t = list[0]
	}
	if m, ok := t.(map[string]any); ok {
		title, _ = m["text"].(string)
		subtitle, _ = m["subtext"].(string)
	}
	return title, subtitle
}

// seriesSummary names the series and counts their points:
// "系列：留下（4 个数据点） · 本步流失（原因）（4 个数据点）".
func seriesSummary(option map[string]any) string {
	list, _ := option["series"].([]any)
	var parts []string
	for i, s := range list {
		m, _ := s.(map[string]any)
		name, _ := m["name"].(string)
		if name == "" {
			name = fmt.Sprintf("第 %d 组", i+1)
		}
		data, _ := m["data"].([]any)
		parts = append(parts, fmt.Sprintf("%s（%d 个数据点）", name, len(data)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "系列：" + strings.Join(parts, " · ")
}
