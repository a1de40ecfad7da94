// Package draw holds what every figure package of coursekit/charts draws
// with: the chart options (size, id, language), text made safe to draw, the
// course's colours and number formats, and the go-echarts data items, mark
// lines and areas that go-echarts' own types cannot express.
package draw

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
)

// Option adjusts one chart (charts.Option is this type).
type Option func(*Config)

// Config is what the options of one chart set.
type Config struct {
	ID            string
	Width, Height string
	Lang          lang.Lang
}

// NewConfig is the chart's default size with its options applied.
func NewConfig(width, height string, options []Option) Config {
	c := Config{Width: width, Height: height}
	for _, o := range options {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// Init returns the chart-wide initialization options: size, id, and no
// asset host (pages and notebooks inline ECharts themselves).
func (c Config) Init() ec.GlobalOpts {
	return ec.WithInitializationOpts(opts.Initialization{
		ChartID:    c.ID,
		Width:      c.Width,
		Height:     c.Height,
		PageTitle:  "coursekit",
		AssetsHost: "./",
	})
}

// SanitizeID replaces every character of a chart id other than an ASCII
// letter, digit or '_' by '_'.
func SanitizeID(id string) string {
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
// broken up; control characters become spaces and bidi overrides are shown escaped (\u202e):
// safetext.Chart. The result is at most MaxLabelRunes runes, before escapes.
func Label(s string) string { return drawable(s, MaxLabelRunes) }

// MaxTipIDRunes is how long an attempt id may get in a tooltip before
// TipID shortens it: far beyond any id a tool writes (a UUID is 36, a
// conversation/turn/attempt path a few dozen), so a tooltip shows the id
// whole, and a hostile megabyte-long id cannot swell a chart repeating it
// per row and series.
const MaxTipIDRunes = 256

// TipID is an attempt id as a tooltip shows it: whole, where an axis label
// (Label) cuts it at MaxLabelRunes; safe as Label is.
func TipID(s string) string { return drawable(s, MaxTipIDRunes) }

// WholeText is Label without the length limit, for text a learner wrote
// that a chart wraps instead of cutting (the path map's steps and marks).
func WholeText(s string) string { return drawable(s, -1) }

func drawable(s string, limit int) string {
	if limit >= 0 && utf8.RuneCountInString(s) > limit {
		n := 0
		for i := range s {
			if n == limit {
				s = s[:i] + "…"
				break
			}
			n++
		}
	}
	return safetext.Chart(s)
}

// SafeText is Label without the length limit, for whole sentences (titles, subtitles,
// tooltips): safetext.Chart, the same look-alike brackets and braces, no "__f__" marker, and
// no control code or bidi override raw.
func SafeText(s string) string { return safetext.Chart(s) }

// Labels is Label of each of xs.
func Labels(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = Label(x)
	}
	return out
}

// MS prints a time in milliseconds the short way: 700, 1720, 12.5
// (numfmt.MS).
func MS(v float64) string { return numfmt.MS(v) }

// Num prints a number with at most 3 decimals (numfmt.Num).
func Num(v float64) string { return numfmt.Num(v) }

// SLOText names an SLO as the card does: "1 s", "500 ms", "1481.941 ms"
// (at most 3 decimals: one fewer would name a threshold that qualifies
// another count).
func SLOText(sloMS float64) string {
	if sloMS >= 1000 && math.Mod(sloMS, 1000) == 0 {
		return Num(sloMS/1000) + " s"
	}
	return Num(sloMS) + " ms"
}

// Sec is a trace time in seconds, for the time axes.
func Sec(ms float64) float64 { return math.Round(ms) / 1000 }

// Colours used across the figures.
const (
	ColorOK       = "#5470c6" // complete success, within SLO
	ColorDecode   = "#9fb7e8" // streaming after the first token
	ColorOverSLO  = "#fc8452" // TTFT over the SLO
	ColorFail     = "#d93b3b" // failure outcomes
	ColorInFlight = "#9a9a9a" // still in flight at the capture edge
	ColorQualFail = "#9a60b4" // quality fail
	ColorMark     = "#333333"
)

// RunColors tells the runs apart; failures are always ColorFail.
var RunColors = []string{"#3ba272", ColorOK, "#9a60b4", "#fac858"}

// RunColor is the colour of run i.
func RunColor(i int) string { return RunColors[i%len(RunColors)] }

// Titled is a title with a readable multi-line subtitle.
func Titled(title, subtitle string) opts.Title {
	return opts.Title{Title: title, Subtitle: subtitle,
		SubtitleStyle: &opts.TextStyle{FontSize: 13, LineHeight: 19, Color: "#555"}}
}

// Centered is t centred over the chart.
func Centered(t opts.Title) opts.Title {
	t.Left = "center"
	return t
}

// NameLabel is a shown label with the {b} (data name) formatter: without it
// mark lines print their value instead of their name.
func NameLabel(position string) *opts.Label {
	return &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: position}
}

// TimeAxis is the shared x axis of the time charts of a run, in seconds.
func TimeAxis(name string, maxS float64) opts.XAxis {
	x := opts.XAxis{Type: "value", Name: name, NameLocation: "middle", NameGap: 28, Min: 0}
	if maxS > 0 {
		x.Max = math.Ceil(maxS)
	}
	return x
}

// NiceStep rounds up to 1, 2 or 5 × 10^k.
func NiceStep(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// NiceCeil rounds v up to a multiple of a 1-2-5 step, for axis maxima.
func NiceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	step := NiceStep(v / 5)
	return math.Ceil(v/step) * step
}

// BarItem is a bar value with its own label, colour and tooltip.
type BarItem struct {
	Value     any             `json:"value"`
	Label     *opts.Label     `json:"label,omitempty"`
	ItemStyle *opts.ItemStyle `json:"itemStyle,omitempty"`
	Tooltip   *NodeTooltip    `json:"tooltip,omitempty"`
}

// NodeTooltip is the tooltip of one data item or graph node.
type NodeTooltip struct {
	Show      bool   `json:"show"`
	Formatter string `json:"formatter,omitempty"`
}
