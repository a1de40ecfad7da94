package web_test

import (
	"fmt"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/web"
)

// A notebook page shows the library once, then any number of charts.
func Example() {
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: "ttft", Width: "600px", Height: "300px"}),
		charts.WithTitleOpts(opts.Title{Title: "首字延迟 TTFT (ms)"}),
	)
	bar.SetXAxis([]string{"r1", "r2"}).AddSeries("TTFT", []opts.BarData{{Value: 120}, {Value: 80}})

	page := web.InlineEChartsScript() + web.ChartHTML(bar.RenderSnippet())

	fmt.Println("ECharts", web.EChartsVersion, "inlined:", strings.Contains(page, web.EChartsJS()))
	fmt.Println("chart div:", strings.Contains(page, `id="ttft"`))
	fmt.Println("Chinese title kept:", strings.Contains(page, "首字延迟"))
	// Output:
	// ECharts 5.4.3 inlined: true
	// chart div: true
	// Chinese title kept: true
}
