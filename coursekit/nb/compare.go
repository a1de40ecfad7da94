package nb

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// Comparison shows an A/B comparison (lab.Lab.Compare) in Chinese: both
// sides' runs, the conditions that changed, the table of every metric's A,
// B, B − A, relative change, 95 % interval, method and verdict (~ when the
// interval holds 0), which differences are real, and the values of each
// run. The same output carries the comparison as JSON under
// compare.MIMEType, so a saved notebook can be read by a tool without
// running it. Outside a notebook it prints the text report.
func Comparison(r *compare.Result) {
	bundle := ComparisonBundle(r)
	if !gonbui.IsNotebook {
		fmt.Print(bundle[protocol.MIMETextPlain])
		return
	}
	gonbui.SendData(&protocol.DisplayData{Data: bundle})
}

// ComparisonBundle is Comparison's MIME bundle: text/html, text/plain and
// compare.MIMEType, every value a string (GoNB sends display data by gob).
func ComparisonBundle(r *compare.Result) map[protocol.MIMEType]any {
	var txt, js bytes.Buffer
	bundle := map[protocol.MIMEType]any{}
	if err := compare.Write(&txt, r, cardfmt.Text, lang.ZH); err != nil {
		txt.WriteString(err.Error())
	}
	bundle[protocol.MIMETextPlain] = txt.String()
	bundle[protocol.MIMETextHTML] = ComparisonHTML(r)
	if err := compare.Write(&js, r, cardfmt.JSON, lang.ZH); err == nil {
		bundle[protocol.MIMEType(compare.MIMEType)] = js.String()
	}
	return bundle
}

// ComparisonHTML is the comparison as HTML, every text escaped.
func ComparisonHTML(r *compare.Result) string {
	e := html.EscapeString
	var b strings.Builder
	b.WriteString(`<div class="coursekit-compare">`)
	for _, bl := range compare.Blocks(r, lang.ZH) {
		switch {
		case bl.Table != nil:
			b.WriteString(`<table style="border-collapse:collapse;font-size:13px;margin:6px 0"><thead><tr>`)
			for _, h := range bl.Table[0] {
				b.WriteString(`<th style="border:1px solid #ccd;padding:3px 6px;background:#eef;text-align:left">` + e(h) + "</th>")
			}
			b.WriteString("</tr></thead><tbody>")
			for _, row := range bl.Table[1:] {
				b.WriteString("<tr>")
				for _, c := range row {
					b.WriteString(`<td style="border:1px solid #ccd;padding:3px 6px;white-space:nowrap">` + e(c) + "</td>")
				}
				b.WriteString("</tr>")
			}
			b.WriteString("</tbody></table>")
		case bl.Items != nil:
			b.WriteString("<ul>")
			for _, it := range bl.Items {
				b.WriteString("<li>" + e(it) + "</li>")
			}
			b.WriteString("</ul>")
		default:
			b.WriteString("<p>" + e(bl.Para) + "</p>")
		}
	}
	b.WriteString("</div>")
	return b.String()
}
