package page

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/web"
)

// Part is one block of a page: a metrics card, a chart or a paragraph.
type Part interface {
	pageHTML(l lang.Lang) (string, error)
}

type cardPart struct {
	s      *metrics.Summary
	source string
}

// Card is the metrics card of s (cardfmt's Markdown card, as HTML, in the
// page's language); source names the trace in its heading.
func Card(s *metrics.Summary, source string) Part { return cardPart{s, source} }

func (p cardPart) pageHTML(l lang.Lang) (string, error) {
	var md bytes.Buffer
	// MarkdownHTML escapes every character: the card's strings go in unescaped, to be escaped once.
	if err := cardfmt.WriteMarkdownForHTML(&md, p.s, p.source, l); err != nil {
		return "", err
	}
	return `<section class="card">` + MarkdownHTML(md.String()) + "</section>\n", nil
}

type figurePart struct {
	c       web.Snippeter
	caption string
}

// Figure is a chart with a caption under it.
func Figure(c web.Snippeter, caption string) Part { return figurePart{c, caption} }

func (p figurePart) pageHTML(l lang.Lang) (string, error) {
	var b strings.Builder
	b.WriteString("<figure>\n")
	b.WriteString(web.ChartHTMLIn(l, p.c.RenderSnippet()))
	if p.caption != "" {
		b.WriteString("\n<figcaption>" + safetext.HTML(p.caption) + "</figcaption>")
	}
	b.WriteString("\n</figure>\n")
	return b.String(), nil
}

type textPart string

// Text is a paragraph of plain text (escaped; blank lines separate paragraphs).
func Text(s string) Part { return textPart(s) }

func (p textPart) pageHTML(lang.Lang) (string, error) {
	var b strings.Builder
	for _, para := range strings.Split(string(p), "\n\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		b.WriteString("<p>" + strings.ReplaceAll(safetext.HTML(para), "\n", "<br>") + "</p>\n")
	}
	return b.String(), nil
}

const pageStyle = `<style>
body{font-family:"Noto Sans CJK SC","Noto Sans SC","PingFang SC","Microsoft YaHei",sans-serif;margin:24px auto;max-width:1100px;color:#222;padding:0 16px;line-height:1.6}
h1{font-size:24px;margin-bottom:4px}
.card{background:#f7f8fa;border:1px solid #dde;border-radius:6px;padding:4px 20px 12px;margin:16px 0}
.card table{border-collapse:collapse;margin-top:8px;font-size:14px}
.card th,.card td{border:1px solid #ccd;padding:4px 8px;text-align:left;vertical-align:top}
.card th{background:#eef}
.card li.sub{margin-left:1.5em;list-style:circle}
code{background:#eef;padding:0 4px;border-radius:3px}
figure{margin:24px 0;overflow-x:auto}
figcaption{color:#555;font-size:14px;margin-top:4px}
footer{color:#777;font-size:12px;margin-top:32px;border-top:1px solid #ddd;padding-top:8px}
</style>`

// Write writes one self-contained HTML page: ECharts inlined once (no
// network, no <script src>), then the parts in order. title is escaped.
func Write(w io.Writer, title string, parts ...Part) error {
	return WriteIn(w, lang.ZH, title, parts...)
}

// WriteIn is Write in l: the page's language attribute and its footer.
func WriteIn(w io.Writer, l lang.Lang, title string, parts ...Part) error {
	bw := bufio.NewWriter(w)
	t := safetext.HTML(title)
	fmt.Fprintf(bw, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n%s\n", htmlLang(l), t, pageStyle)
	bw.WriteString(web.InlineEChartsScript())
	fmt.Fprintf(bw, "\n</head>\n<body>\n<h1>%s</h1>\n", t)
	for _, p := range parts {
		s, err := p.pageHTML(l)
		if err != nil {
			return err
		}
		bw.WriteString(s)
	}
	fmt.Fprintf(bw, "<footer>%s</footer>\n</body>\n</html>\n", lang.Msg{"离线自包含页面：ECharts %s 已内嵌（Apache-2.0），不访问网络。由 coursekit 生成。", "Offline self-contained page: ECharts %s is inlined (Apache-2.0), no network access. Made by coursekit."}.F(l, web.EChartsVersion))
	return bw.Flush()
}

// htmlLang is the page's lang attribute, for fonts and screen readers.
func htmlLang(l lang.Lang) string {
	if l == lang.EN {
		return "en"
	}
	return "zh-CN"
}

// MarkdownHTML turns the small Markdown subset cardfmt writes (### headings,
// "- " lists with "  - " sub-items, pipe tables, `code`, plain lines) into escaped HTML.
func MarkdownHTML(md string) string {
	var b strings.Builder
	inList, inTable, header := false, false, false
	closeAll := func() {
		if inList {
			b.WriteString("</ul>\n")
			inList = false
		}
		if inTable {
			b.WriteString("</table>\n")
			inTable = false
		}
	}
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimRight(line, " \r")
		switch {
		case strings.HasPrefix(line, "#"):
			closeAll()
			level := min(len(line)-len(strings.TrimLeft(line, "#")), 6)
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", level, inline(strings.TrimSpace(line[level:])), level)
		case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "  - ") && inList:
			if inTable {
				closeAll()
			}
			if !inList {
				b.WriteString("<ul>\n")
				inList = true
			}
			if item, ok := strings.CutPrefix(line, "  - "); ok { // a sub-item of the one above
				b.WriteString(`<li class="sub">` + inline(item) + "</li>\n")
				continue
			}
			b.WriteString("<li>" + inline(line[2:]) + "</li>\n")
		case strings.HasPrefix(line, "|"):
			if inList {
				closeAll()
			}
			if !inTable {
				b.WriteString("<table>\n")
				inTable, header = true, true
			}
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if isSeparator(cells) {
				continue
			}
			tag := "td"
			if header {
				tag = "th"
				header = false
			}
			b.WriteString("<tr>")
			for _, c := range cells {
				fmt.Fprintf(&b, "<%s>%s</%s>", tag, inline(strings.TrimSpace(c)), tag)
			}
			b.WriteString("</tr>\n")
		case strings.TrimSpace(line) == "":
			closeAll()
		default:
			closeAll()
			b.WriteString("<p>" + inline(line) + "</p>\n")
		}
	}
	closeAll()
	return b.String()
}

func isSeparator(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(strings.TrimSpace(c), "-:") != "" {
			return false
		}
	}
	return len(cells) > 0
}

// inline escapes a line and turns `code` spans into <code> and **strong**
// spans outside them into <strong>, so no Markdown mark shows in the page.
func inline(s string) string {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		e := safetext.HTML(p)
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + e + "</code>")
		} else {
			if i%2 == 1 {
				b.WriteString("`")
			}
			b.WriteString(strong(e))
		}
	}
	return b.String()
}

// strong turns each pair of ** in escaped text into <strong>…</strong>; an
// unpaired ** stays as written.
func strong(e string) string {
	parts := strings.Split(e, "**")
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i == 0:
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString("<strong>")
		case i%2 == 1:
			b.WriteString("**")
		default:
			b.WriteString("</strong>")
		}
		b.WriteString(p)
	}
	return b.String()
}
