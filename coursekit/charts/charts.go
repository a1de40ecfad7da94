// Package charts is the course's figures, drawn with go-echarts, and what
// they all take: the options of one chart (WithID, WithSize, WithLang) and
// Label, which makes text from a trace or a card safe to draw. The figures
// live in one package per family:
//
//   - coursekit/charts/tracefig: the request-level figures of one trace
//     (Figure 01.2's timeline, every attempt, the TTFT distribution, the
//     denominator funnel, the SLO sweep, the server's gauges beside the
//     client's in-flight count) and the bounded digest that lets them draw
//     a trace of any size;
//   - coursekit/charts/paths: the system paths (Figure 01.1) and a learner's
//     own path map;
//   - coursekit/charts/labfig: the notebook labs' figures of load runs (send
//     rate, queue, TTFT, busy gauge, goodput, engine comparisons, a
//     percentile's interval against the sample size) and the capacity
//     search;
//   - coursekit/charts/comparefig: an A/B comparison (coursekit/compare)
//     as a forest plot of every metric's B − A and its interval, with its
//     offline page;
//   - coursekit/charts/class: the instructor's class report charts;
//   - coursekit/charts/page: the offline HTML page that puts a card,
//     figures, text and tables together.
//
// Every figure function returns a go-echarts chart, which satisfies
// web.Snippeter: show it in a GoNB cell with nb.Chart, or put several on
// one offline page with page.Write. Labels are in Simplified Chinese (they
// are learner-facing) unless WithLang says otherwise.
//
// Numbers come from coursekit/metrics; the figure packages only select what
// to draw and never re-implement a metric.
//
// Text that comes from a trace or a card (attempt ids, error strings, step
// names) goes through Label before it reaches a chart, so it cannot inject
// markup or script into the page.
package charts

import (
	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Option adjusts one chart.
type Option = draw.Option

// WithLang draws the chart's titles, axes, legends and tooltips in l
// (default Chinese).
func WithLang(l lang.Lang) Option {
	return func(c *draw.Config) { c.Lang = l }
}

// WithID fixes the chart id (the id of its div). Without it every chart
// gets a random id, so two charts on one page never share a div; golden
// tests fix it. Characters other than ASCII letters, digits and '_' are
// replaced by '_', because the id also names JavaScript variables.
func WithID(id string) Option {
	return func(c *draw.Config) { c.ID = draw.SanitizeID(id) }
}

// WithSize sets the chart's CSS width and height, e.g. "960px", "420px".
func WithSize(width, height string) Option {
	return func(c *draw.Config) {
		if width != "" {
			c.Width = width
		}
		if height != "" {
			c.Height = height
		}
	}
}

// MaxLabelRunes is how long a label from a trace or a card may get before
// Label shortens it with "…".
const MaxLabelRunes = draw.MaxLabelRunes

// Label makes text from a trace or a card safe and short enough to draw.
//
// go-echarts writes the option JSON unescaped into a <script>, and ECharts
// tooltips are HTML, so '<' and '>' become the look-alikes '‹' and '›'
// ("</script>" reads "‹/script›"); '{' and '}' become '｛' '｝' so ECharts
// does not read them as {a}/{b} template variables; the marker "__f__",
// which go-echarts strips to turn strings into JavaScript functions, is
// broken up; control characters become spaces. The result is at most
// MaxLabelRunes runes.
func Label(s string) string { return draw.Label(s) }

// OutcomeCodeLabel names an outcome code as a Summary counts it
// ("timeout", "connect_error", ...) in Chinese (cardfmt.OutcomeName); an
// unknown code is shown escaped.
func OutcomeCodeLabel(code string) string { return OutcomeCodeLabelIn(lang.ZH, code) }

// OutcomeCodeLabelIn is OutcomeCodeLabel in l.
func OutcomeCodeLabelIn(l lang.Lang, code string) string {
	if o, ok := trace.ParseOutcome(code); ok {
		return cardfmt.OutcomeNameIn(l, o)
	}
	return draw.Label(code)
}

// QualityLabel names a quality verdict in Chinese where the word 质量 is
// not already in a column header: 质量通过, 质量不通过, 质量未评
// (cardfmt.QualityName is the bare word).
func QualityLabel(q trace.Quality) string { return QualityLabelIn(lang.ZH, q) }

// QualityLabelIn is QualityLabel in l: "quality pass" in English.
func QualityLabelIn(l lang.Lang, q trace.Quality) string {
	return lang.Msg{"质量", "quality "}.In(l) + cardfmt.QualityNameIn(l, q)
}
