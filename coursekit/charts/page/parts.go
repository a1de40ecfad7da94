package page

import (
	"bytes"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

type headingPart string

// Heading is a section heading on a page (escaped).
func Heading(s string) Part { return headingPart(s) }

func (p headingPart) pageHTML(lang.Lang) (string, error) {
	return "<h2>" + safetext.HTML(string(p)) + "</h2>\n", nil
}

type tablePart struct {
	head []string
	rows [][]string
}

// Table is a plain table on a page: every cell is text, escaped.
func Table(head []string, rows [][]string) Part { return tablePart{head, rows} }

func (p tablePart) pageHTML(lang.Lang) (string, error) {
	return tableHTML(`class="class-table"`, "", "", p.head, p.rows), nil
}

// tableHTML is a table of text cells, every one escaped (a line break in
// a cell becomes <br>); tableAttrs, thAttrs and thStyle are trusted markup
// added to the table tag, the header tags and their style.
func tableHTML(tableAttrs, thAttrs, thStyle string, head []string, rows [][]string) string {
	e := safetext.HTML
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

// SummaryID is the id of the script element that holds the summary a
// page was drawn from (SummaryData).
const SummaryID = "coursekit-summary"

type summaryPart struct{ s *metrics.Summary }

// SummaryData embeds s, the summary every number of the page comes from,
// as `<script type="application/json" id="coursekit-summary">`: the same
// JSON as `coursekit card --format json` under the same flags, so that a
// reader (or a test) can check the page against it. Inside the element
// every <, > and & is written as a JSON \u escape, so no string of the
// trace can end the element or open a comment.
func SummaryData(s *metrics.Summary) Part { return summaryPart{s} }

func (p summaryPart) pageHTML(lang.Lang) (string, error) {
	var b bytes.Buffer
	if err := cardfmt.WriteLang(&b, p.s, "", cardfmt.JSON, lang.ZH); err != nil {
		return "", err
	}
	return `<script type="application/json" id="` + SummaryID + `">` + "\n" + scriptSafeJSON(b.String()) + "</script>\n", nil
}

// scriptSafeJSON escapes the characters that could end a script element
// or start a comment in it, and the line separators some JavaScript
// parsers refuse; each replacement is a JSON escape of the same character
// (they occur only inside strings), so the JSON reads back the same.
var scriptSafeJSON = strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "\u2028", `\u2028`, "\u2029", `\u2029`).Replace
