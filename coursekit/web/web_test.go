package web

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// The embedded file must be exactly echarts@5.4.3's dist/echarts.min.js from
// the npm registry (`npm pack echarts@5.4.3`).
const echartsSHA256 = "1156429a16a38cb8604dcc6518c19406d4226142d908f8edd2e3531443c54d19"

func TestEmbeddedEChartsIsThePinnedRelease(t *testing.T) {
	sum := sha256.Sum256([]byte(EChartsJS()))
	if got := hex.EncodeToString(sum[:]); got != echartsSHA256 {
		t.Fatalf("echarts.min.js sha256 = %s, want %s (ECharts %s)", got, echartsSHA256, EChartsVersion)
	}
	if len(EChartsJS()) != 1024740 {
		t.Fatalf("echarts.min.js is %d bytes, want 1024740", len(EChartsJS()))
	}
}

// countCI counts case-insensitive occurrences of sub in s.
func countCI(s, sub string) int {
	return strings.Count(strings.ToLower(s), strings.ToLower(sub))
}

func TestInlineScriptDefinesEChartsOnlyOnceAndCannotEndEarly(t *testing.T) {
	s := InlineEChartsScript()
	if !strings.HasPrefix(s, "<script>if(!window.echarts){(function(define,module,exports){") {
		t.Fatalf("inline script must be guarded and hide AMD define; starts with %q", s[:80])
	}
	// The HTML parser ends a script at the first "</script"; "<!--" can also
	// change how it reads the rest.
	if n := countCI(s, "</script"); n != 1 || !strings.HasSuffix(s, "</script>") {
		t.Fatalf("inline script has %d \"</script\" sequences, want only the closing tag", n)
	}
	if countCI(s, "<!--") != 0 {
		t.Fatal("inline script contains \"<!--\"")
	}
}

func hostileBar(title string) *charts.Bar {
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: "ttft", Width: "600px", Height: "300px"}),
		charts.WithTitleOpts(opts.Title{Title: title}),
	)
	bar.SetXAxis([]string{"a<b", "ok"}).AddSeries("TTFT", []opts.BarData{{Value: 120}, {Value: 80}})
	return bar
}

func TestChartHTMLKeepsAHostileLabelInsideTheScript(t *testing.T) {
	const title = `</script><img src=x onerror="alert(1)"><!-- </SCRIPT >`
	frag := ChartHTML(hostileBar(title).RenderSnippet())

	if n := countCI(frag, "</script"); n != 1 || !strings.HasSuffix(frag, "</script>") {
		t.Fatalf("fragment has %d \"</script\" sequences, want only the closing tag:\n%s", n, frag)
	}
	if countCI(frag, "<img") != 0 || countCI(frag, "<!--") != 0 {
		t.Fatalf("markup from the label leaked into the fragment:\n%s", frag)
	}

	// The option still says exactly what the chart asked for: \u003c is '<'.
	m := regexp.MustCompile(`let option_ttft = (.*)\n`).FindStringSubmatch(frag)
	if m == nil {
		t.Fatalf("no option in fragment:\n%s", frag)
	}
	var option struct {
		Title struct{ Text string }
		XAxis []struct{ Data []string }
	}
	if err := json.Unmarshal([]byte(m[1]), &option); err != nil {
		t.Fatalf("option is not JSON any more: %v\n%s", err, m[1])
	}
	if option.Title.Text != title {
		t.Errorf("title = %q, want %q", option.Title.Text, title)
	}
	if got := option.XAxis[0].Data[0]; got != "a<b" {
		t.Errorf("x label = %q, want %q", got, "a<b")
	}
}

func TestChartHTMLWaitsForEChartsAndRunsInAFunction(t *testing.T) {
	frag := ChartHTML(hostileBar("TTFT").RenderSnippet())
	for _, want := range []string{
		`<div class="item" id="ttft"`,           // the element go-echarts made
		"function run(echarts) {",               // its `let` variables are local
		"if (window.echarts && el) {",           // waits for the library and the element
		`var id = "ttft"`,                       // for the hint if the library never comes
		"goecharts_ttft.setOption(option_ttft)", // go-echarts' own code runs inside
	} {
		if !strings.Contains(frag, want) {
			t.Errorf("fragment lacks %q:\n%s", want, frag)
		}
	}
	if strings.Contains(frag, `<script type="text/javascript">`) {
		t.Error("go-echarts' own <script> tag should be replaced by the guarded one")
	}
}

func TestEscapeScript(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`if (a<b) f()`, `if (a<b) f()`},                 // an operator stays
		{`x = "</script>"`, `x = "\u003c/script>"`},      // double-quoted string
		{`x = '<!--'`, `x = '\u003c!--'`},                // single-quoted string
		{"x = `<b>`", "x = `\\u003cb>`"},                 // template literal
		{`x = "a\"<"`, `x = "a\"\u003c"`},                // escaped quote does not end the string
		{`x = "\<"`, `x = "\u003c"`},                     // "\<" is "<" too
		{"// </script>\ny<z", "// \\u003c/script>\ny<z"}, // line comment, then code
		{"/* <!-- */ a<b", "/* \\u003c!-- */ a<b"},       // block comment
		{`r = /<\/script>/; s = a </SCRIPT> b`, `r = /<\/script>/; s = a <\/SCRIPT> b`},
		{`a <!-- b`, `a <\!-- b`},
	} {
		if got := escapeScript(tc.in); got != tc.want {
			t.Errorf("escapeScript(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestNotebookOutputIsDataWithABoundedFallback(t *testing.T) {
	bar := hostileBar(`</script><img src=x onerror="alert(1)">`)
	out, err := NotebookOutput(bar)
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := out.Data[MIMEType].(string)
	if !ok {
		t.Fatalf("the option must travel as a string (gob): %T", out.Data[MIMEType])
	}
	var option map[string]any
	if err := json.Unmarshal([]byte(raw), &option); err != nil {
		t.Fatalf("option is not JSON: %v\n%s", err, raw)
	}
	if _, ok := option["series"]; !ok {
		t.Errorf("option lacks its series: %s", raw)
	}
	if _, ok := option["toolbox"]; ok {
		t.Errorf("the option carries a toolbox, which the lab's renderer does not draw: %s", raw)
	}
	fb, _ := out.Data["text/html"].(string)
	if countCI(fb, "<script") != 0 || strings.Contains(fb, "<img") || !strings.Contains(fb, "&lt;img") {
		t.Errorf("fallback must be static and escaped:\n%s", fb)
	}
	if len(fb) > 4096 || strings.Contains(fb, EChartsJS()[:200]) {
		t.Errorf("fallback is %d bytes; it must not carry the chart library", len(fb))
	}
	meta, _ := out.Metadata[MIMEType].(map[string]string)
	if meta["height"] != "300px" {
		t.Errorf("metadata %v, want the chart's height 300px", out.Metadata)
	}
}

func TestNotebookOutputRefusesFunctions(t *testing.T) {
	bar := charts.NewBar()
	bar.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Formatter: opts.FuncOpts("function (p) { return p.name }")}))
	bar.SetXAxis([]string{"a"}).AddSeries("s", []opts.BarData{{Value: 1}})
	if _, err := NotebookOutput(bar); err != ErrFunction {
		t.Fatalf("want ErrFunction, got %v", err)
	}
}
