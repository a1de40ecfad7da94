package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// go-echarts writes an axis label's interval as a string; ECharts shows
// every category label only for the number 0. Both outputs carry the
// number, and a label whose text spells `"interval":"0"` keeps its text.
func TestIntervalsAreNumbers(t *testing.T) {
	const text = `"interval":"0"`
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: "c", Width: "600px", Height: "300px"}),
		charts.WithTitleOpts(opts.Title{Title: text}),
		charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Interval: "0"}}),
	)
	bar.SetXAxis([]string{"a", text}).AddSeries("s", []opts.BarData{{Value: 1}, {Value: 2}})
	html := ChartHTMLIn("zh", bar.RenderSnippet())
	if !strings.Contains(html, `"interval":0`) || strings.Count(html, `interval\":\"0\"`) != 2 {
		t.Errorf("page: want interval 0 as a number and the two texts kept:\n%s", html)
	}
	out, err := NotebookOutput(bar)
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		Title struct{ Text string } `json:"title"`
		XAxis []struct {
			Data      []string       `json:"data"`
			AxisLabel map[string]any `json:"axisLabel"`
		} `json:"xAxis"`
	}
	if err := json.Unmarshal([]byte(out.Data[MIMEType].(string)), &o); err != nil {
		t.Fatal(err)
	}
	if o.XAxis[0].AxisLabel["interval"] != float64(0) || o.Title.Text != text || o.XAxis[0].Data[1] != text {
		t.Errorf("notebook output: %+v; want interval 0 as a number and the texts kept", o)
	}
}
