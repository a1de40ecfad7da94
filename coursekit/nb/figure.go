package nb

import (
	"regexp"

	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/web"
)

// Figure shows a chart as a numbered figure: its title starts with the
// figure's number ("图 01.3 · 成功 TTFT 的分布"), the number the text uses
// to point at it, so that a chart read on its own, or a screenshot of it,
// still says which figure it is. A title that already starts with a figure
// number gets this one instead. Otherwise it is Chart.
func Figure(number string, c web.Chart) { Chart(Numbered(number, c)) }

// Numbered is c with number at the start of its title (see Figure).
func Numbered(number string, c web.Chart) web.Chart { return numbered{Chart: c, number: number} }

type numbered struct {
	web.Chart
	number string
}

// figurePrefix is a figure number at the start of a title, with what
// separates it from the rest: "图 01.20 ", "图 01.1 · ".
var figurePrefix = regexp.MustCompile(`^图 \d{2}\.\d+\s*(·\s*)?`)

func (n numbered) JSON() map[string]interface{} {
	obj := n.Chart.JSON()
	t, _ := obj["title"].(opts.Title)
	t.Title = NumberedTitle(n.number, t.Title)
	obj["title"] = t
	return obj
}

// NumberedTitle is title with number in front: "图 01.3 · title", or
// just the number for an untitled chart.
func NumberedTitle(number, title string) string {
	title = figurePrefix.ReplaceAllString(title, "")
	if title == "" {
		return number
	}
	return number + " · " + title
}
