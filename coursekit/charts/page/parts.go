package page

import (
	"strings"

	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
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
