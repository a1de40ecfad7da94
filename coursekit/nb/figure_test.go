package nb

import (
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/web"
)

func TestFigureNumbersTheTitle(t *testing.T) {
	for _, c := range []struct{ number, title, want string }{
		{"图 01.3", "成功 TTFT 的分布", "图 01.3 · 成功 TTFT 的分布"},
		{"图 01.1", "图 01.1 · 训练与推理两条路径", "图 01.1 · 训练与推理两条路径"},
		{"图 01.20", "图 01.2 P95 的区间", "图 01.20 · P95 的区间"},
		{"图 00.1", "", "图 00.1"},
	} {
		bar := charts.NewBar()
		bar.SetGlobalOptions(charts.WithTitleOpts(opts.Title{Title: c.title, Subtitle: "副标题"}))
		bar.SetXAxis([]string{"a"}).AddSeries("s", []opts.BarData{{Value: 1}})
		out, err := web.NotebookOutput(Numbered(c.number, bar))
		if err != nil {
			t.Fatal(err)
		}
		option := out.Data[web.MIMEType].(string)
		if !strings.Contains(option, `"text":"`+c.want+`"`) || !strings.Contains(option, `"subtext":"副标题"`) {
			t.Errorf("%q numbered %s: want title %q in %s", c.title, c.number, c.want, option)
		}
	}
}
