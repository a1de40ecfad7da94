// Package web turns go-echarts charts into what the course shows them in,
// with no network: notebook outputs (NotebookOutput: the option as data,
// drawn by the course's JupyterLab extension) and fragments of one offline
// HTML page (ChartHTML after InlineEChartsScript, for `coursekit report`).
//
// go-echarts' own Render() output loads ECharts from a CDN and runs its script
// at once, which fails offline and whenever the library arrives later than the
// chart (RequireJS pages also hide the global). So for pages the library is
// embedded here (ECharts 5.4.3, the version go-echarts v2.7.0 targets;
// Apache-2.0, see ECHARTS-LICENSE and ECHARTS-NOTICE) and each chart waits for
// window.echarts. Notebooks carry no script at all (see MIMEType).
package web

import (
	_ "embed"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/go-echarts/go-echarts/v2/render"

	"github.com/llmperf-course/course/coursekit/lang"
)

// EChartsVersion is the version of the embedded echarts.min.js.
const EChartsVersion = "5.4.3"

//go:embed echarts.min.js
var echartsJS string

// EChartsJS returns the embedded echarts.min.js, for writing it next to an
// exported page.
func EChartsJS() string { return echartsJS }

// InlineEChartsScript returns a <script> element that defines window.echarts
// from the embedded library, unless the page already has it.
//
// The library is a UMD bundle: when the page has an AMD define (RequireJS in
// classic Notebook and some exports) it registers a module instead of the
// global, so define, module and exports are hidden while it runs.
func InlineEChartsScript() string {
	return "<script>if(!window.echarts){(function(define,module,exports){\n" +
		echartsJS +
		"\n}).call(window);}</script>"
}

// Snippeter is what every go-echarts chart provides (charts.Bar, charts.Line, ...).
type Snippeter interface {
	RenderSnippet() render.ChartSnippet
}

// missingLibraryHint is shown in the chart's place if ECharts never arrives:
// the page lost the inlined library (e.g. it was cut out of a saved copy).
var missingLibraryHint = lang.Msg{"图表库 ECharts 没有加载：这一页缺少内嵌的 ECharts，请用 coursekit report 重新生成。", "The chart library ECharts did not load: this page lacks the inlined ECharts; make it again with coursekit report."}

// ChartHTML turns a go-echarts snippet into a fragment that is safe to show
// in a Jupyter output: the chart's script runs inside a function (so showing
// the same ChartID twice does not redeclare its `let` variables) and only once
// window.echarts and the chart's element both exist (JupyterLab may render an
// output before it is in the page, or a chart before the output that carries
// the library), and no label can close the <script> element. If the library
// has not come after 10 s, the chart's place says so, and the chart still
// draws if it comes later (polling stops after about 10 minutes).
//
// The fragment does not carry the library: put InlineEChartsScript once in
// the page before it (page.Write does).
func ChartHTML(s render.ChartSnippet) string { return ChartHTMLIn(lang.ZH, s) }

// ChartHTMLIn is ChartHTML with the missing-library hint in l.
func ChartHTMLIn(l lang.Lang, s render.ChartSnippet) string {
	body := scriptBody(NumericIntervals(s.Script))
	id := chartID(s.Element)
	idJSON, _ := json.Marshal(id)
	hintJSON, _ := json.Marshal(missingLibraryHint.In(l))
	var b strings.Builder
	b.WriteString(s.Element)
	b.WriteString("\n<script>\n(function () {\n  function run(echarts) {\n")
	b.WriteString(body)
	b.WriteString("\n  }\n  var id = ")
	b.WriteString(escapeScript(string(idJSON)))
	b.WriteString(", hint = ")
	b.WriteString(escapeScript(string(hintJSON)))
	b.WriteString(`, tries = 0, hinted = false;
  (function wait() {
    var el = document.getElementById(id);
    if (window.echarts && el) {
      if (hinted) { el.textContent = ""; el.style.height = el.dataset.height; }
      run(window.echarts);
      return;
    }
    tries++;
    if (tries >= 100 && el && !hinted) {
      hinted = true;
      el.dataset.height = el.style.height;
      el.style.height = "auto";
      el.textContent = hint;
    }
    if (tries < 700) setTimeout(wait, tries < 100 ? 100 : 1000);
  })();
})();
</script>`)
	return b.String()
}

var (
	scriptTag = regexp.MustCompile(`(?is)^\s*<script[^>]*>(.*)</script>\s*$`)
	idAttr    = regexp.MustCompile(`id="([^"]*)"`)
)

// scriptBody strips the <script> tags go-echarts puts around the chart code
// and makes the code safe to put back inside one.
func scriptBody(script string) string {
	if m := scriptTag.FindStringSubmatch(script); m != nil {
		script = m[1]
	}
	return escapeScript(script)
}

// chartID reads the id of the chart's div from the snippet's element.
func chartID(element string) string {
	if m := idAttr.FindStringSubmatch(element); m != nil {
		return m[1]
	}
	return ""
}

// escapeScript makes JavaScript source safe inside an HTML <script> element.
//
// go-echarts writes option JSON with HTML escaping off, so a title such as
// "</script><img onerror=...>" would end the element and inject markup. Inside
// string literals and comments every '<' becomes \u003c, which JavaScript
// reads as the same character. Outside them '<' is an operator and is left
// alone, except in the two sequences an HTML parser reacts to, "</script" and
// "<!--", which become "<\/script" and "<\!--".
func escapeScript(src string) string {
	var b strings.Builder
	b.Grow(len(src))
	const (
		code = iota
		str
		lineComment
		blockComment
	)
	state := code
	var quote byte
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch state {
		case code:
			switch {
			case c == '"' || c == '\'' || c == '`':
				state, quote = str, c
			case c == '/' && i+1 < len(src) && src[i+1] == '/':
				state = lineComment
			case c == '/' && i+1 < len(src) && src[i+1] == '*':
				state = blockComment
			case c == '<':
				rest := strings.ToLower(src[i:])
				if strings.HasPrefix(rest, "</script") {
					b.WriteString(`<\/`)
					i++ // skip the '/'
					continue
				}
				if strings.HasPrefix(rest, "<!--") {
					b.WriteString(`<\!`)
					i++ // skip the '!'
					continue
				}
			}
		case str:
			switch c {
			case '\\':
				if i+1 < len(src) && src[i+1] == '<' {
					// "\<" is "<" in JavaScript; write the escape instead.
					b.WriteString(`\u003c`)
					i++
					continue
				}
				b.WriteByte(c)
				if i+1 < len(src) {
					i++
					b.WriteByte(src[i])
				}
				continue
			case quote:
				state = code
			case '\n':
				if quote != '`' {
					state = code // unterminated literal: resync at the line end
				}
			}
		case lineComment:
			if c == '\n' {
				state = code
			}
		case blockComment:
			if c == '*' && i+1 < len(src) && src[i+1] == '/' {
				b.WriteString("*/")
				i++
				state = code
				continue
			}
		}
		if c == '<' && state != code {
			b.WriteString(`\u003c`)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// stringInterval is an interval go-echarts writes as a string: its
// opts.AxisLabel.Interval (and the axis tick's) is a string field.
var stringInterval = regexp.MustCompile(`"interval":"(\d+)"`)

// NumericIntervals writes every interval of a chart's options, "0", as the
// number ECharts reads, 0. ECharts shows every category label only for the
// number: for the string it still hides a first or last label that
// overlaps its neighbour, or the neighbour (fixMinMaxLabelShow), which hid
// a stage of the funnel on a narrow page. Inside a JSON string a quote is
// escaped, so no label's text can match.
func NumericIntervals(option string) string {
	return stringInterval.ReplaceAllString(option, `"interval":$1`)
}
