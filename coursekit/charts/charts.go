// Package charts draws the figures of the course with go-echarts: the system
// paths (Figure 01.1), a learner's own path map, the client timeline of one
// request (Figure 01.2), every attempt of a trace, the TTFT distribution with
// its P95 under two methods, the denominator funnel and the SLO sweep.
//
// Every function returns a go-echarts chart, which satisfies web.Snippeter:
// show it in a GoNB cell with nb.Chart, or put several on one offline page
// with Page. Labels are in Simplified Chinese (they are learner-facing).
//
// Numbers come from coursekit/metrics; this package only selects what to
// draw and never re-implements a metric.
//
// Text that comes from a trace or a card (attempt ids, error strings, step
// names) goes through Label before it reaches a chart, so it cannot inject
// markup or script into the page.
package charts

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Option adjusts one chart.
type Option func(*config)

type config struct {
	id            string
	width, height string
	lang          lang.Lang
}

// WithLang draws the chart's titles, axes, legends and tooltips in l
// (default Chinese).
func WithLang(l lang.Lang) Option {
	return func(c *config) { c.lang = l }
}

// WithID fixes the chart id (the id of its div). Without it every chart
// gets a random id, so two charts on one page never share a div; golden
// tests fix it. Characters other than ASCII letters, digits and '_' are
// replaced by '_', because the id also names JavaScript variables.
func WithID(id string) Option {
	return func(c *config) { c.id = sanitizeID(id) }
}

// WithSize sets the chart's CSS width and height, e.g. "960px", "420px".
func WithSize(width, height string) Option {
	return func(c *config) {
		if width != "" {
			c.width = width
		}
		if height != "" {
			c.height = height
		}
	}
}

func newConfig(width, height string, options []Option) config {
	c := config{width: width, height: height}
	for _, o := range options {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// init returns the chart-wide initialization options: size, id, and no
// asset host (pages and notebooks inline ECharts themselves).
func (c config) init() ec.GlobalOpts {
	return ec.WithInitializationOpts(opts.Initialization{
		ChartID:    c.id,
		Width:      c.width,
		Height:     c.height,
		PageTitle:  "coursekit",
		AssetsHost: "./",
	})
}

func sanitizeID(id string) string {
	var b strings.Builder
	for _, r := range id {
		if r < utf8.RuneSelf && (r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// MaxLabelRunes is how long a label from a trace or a card may get before
// Label shortens it with "…".
const MaxLabelRunes = 40

// Label makes text from a trace or a card safe and short enough to draw.
//
// go-echarts writes the option JSON unescaped into a <script>, and ECharts
// tooltips are HTML, so '<' and '>' become the look-alikes '‹' and '›'
// ("</script>" reads "‹/script›"); '{' and '}' become '｛' '｝' so ECharts
// does not read them as {a}/{b} template variables; the marker "__f__",
// which go-echarts strips to turn strings into JavaScript functions, is
// broken up; control characters become spaces. The result is at most
// MaxLabelRunes runes.
func Label(s string) string { return drawable(s, MaxLabelRunes) }

// wholeText is Label without the length limit, for text a learner wrote
// that a chart wraps instead of cutting (the path map's steps and marks).
func wholeText(s string) string { return drawable(s, -1) }

func drawable(s string, limit int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == limit {
			b.WriteString("…")
			break
		}
		switch {
		case r == '<':
			r = '‹'
		case r == '>':
			r = '›'
		case r == '{':
			r = '｛'
		case r == '}':
			r = '｝'
		case r == utf8.RuneError, unicode.IsControl(r):
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	out := b.String()
	for strings.Contains(out, "__f__") {
		out = strings.ReplaceAll(out, "__f__", "_\u200b_f_\u200b_")
	}
	return out
}

// ms prints a time in milliseconds the short way: 700, 1720, 12.5.
func ms(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "?"
	}
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// num prints a number with at most 3 decimals.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// sloText names an SLO: "1 s", "500 ms".
func sloText(sloMS float64) string {
	if sloMS >= 1000 && math.Mod(sloMS, 1000) == 0 {
		return num(sloMS/1000) + " s"
	}
	return ms(sloMS) + " ms"
}

// labelOpts is a shown label with the {b} (data name) formatter: without it
// mark lines print their value instead of their name.
func nameLabel(position string) *opts.Label {
	return &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: position}
}

// Colours used across the figures.
const (
	colorOK       = "#5470c6" // complete success, within SLO
	colorDecode   = "#9fb7e8" // streaming after the first token
	colorOverSLO  = "#fc8452" // TTFT over the SLO
	colorFail     = "#d93b3b" // failure outcomes
	colorInFlight = "#9a9a9a" // still in flight at the capture edge
	colorQualFail = "#9a60b4" // quality fail
	colorMark     = "#333333"
)

// titled is a title with a readable multi-line subtitle.
func titled(title, subtitle string) opts.Title {
	return opts.Title{Title: title, Subtitle: subtitle,
		SubtitleStyle: &opts.TextStyle{FontSize: 13, LineHeight: 19, Color: "#555"}}
}

func centered(t opts.Title) opts.Title {
	t.Left = "center"
	return t
}

// OutcomeCodeLabel names an outcome code as a Summary counts it
// ("timeout", "connect_error", ...) in Chinese (cardfmt.OutcomeName); an
// unknown code is shown escaped.
func OutcomeCodeLabel(code string) string { return OutcomeCodeLabelIn(lang.ZH, code) }

// OutcomeCodeLabelIn is OutcomeCodeLabel in l.
func OutcomeCodeLabelIn(l lang.Lang, code string) string {
	if o, ok := trace.ParseOutcome(code); ok {
		return cardfmt.OutcomeNameIn(l, o)
	}
	return Label(code)
}

// QualityLabel names a quality verdict in Chinese where the word 质量 is
// not already in a column header: 质量通过, 质量不通过, 质量未评
// (cardfmt.QualityName is the bare word).
func QualityLabel(q trace.Quality) string { return QualityLabelIn(lang.ZH, q) }

// QualityLabelIn is QualityLabel in l: "quality pass" in English.
func QualityLabelIn(l lang.Lang, q trace.Quality) string {
	return lang.Msg{"质量", "quality "}.In(l) + cardfmt.QualityNameIn(l, q)
}
