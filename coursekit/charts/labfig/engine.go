package labfig

import (
	"encoding/json"
	"fmt"
	"strconv"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Compare is a bar chart of one number per run, in the order given, each
// bar labelled with its value and unit: labels[i] is the run, values[i]
// its number (a nil value is drawn as no bar and labelled "无").
func Compare(title, subtitle, yName, unit string, labelsIn []string, values []*float64, options ...charts.Option) *ec.Bar {
	c := draw.NewConfig("100%", "380px", options)
	items := make([]draw.BarItem, len(values))
	mx := 0.0
	for i, v := range values {
		if v == nil {
			items[i] = draw.BarItem{Value: "-", Label: &opts.Label{Show: opts.Bool(true), Position: "top", Formatter: draw.Literal("无")}}
			continue
		}
		mx = max(mx, *v)
		items[i] = draw.BarItem{Value: *v, ItemStyle: &opts.ItemStyle{Color: draw.RunColor(i)},
			Label: &opts.Label{Show: opts.Bool(true), Position: "top", Formatter: draw.Literal(cardfmt.Measure(*v, unit))}}
	}
	b := ec.NewBar()
	b.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(title, draw.Label(subtitle))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		ec.WithGridOpts(opts.Grid{Top: "95", Bottom: "50", Left: "70", Right: "30"}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: yName, Min: 0, Max: draw.NiceCeil(mx * 1.2)}),
		ec.WithAnimation(false),
	)
	b.SetXAxis(draw.Labels(labelsIn))
	b.AddSeries(yName, nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
		ss.Data = items
		ss.BarWidth = "50%"
	}))
	return b
}

// ServerSplit stacks, for each complete success of a run that carries the
// server's own timings (meta.server_timings), the server's prompt_ms under
// what the client waited beyond it (TTFT − prompt_ms): together they are the
// client's TTFT. Attempts without usable timings are left out and counted
// in the subtitle. Both parts are durations, each on its own clock.
func ServerSplit(run Run, options ...charts.Option) *ec.Bar {
	c := draw.NewConfig("100%", "420px", options)
	var ids []string
	var server, client []draw.BarItem
	without := 0
	for i := range run.Trace.Attempts {
		a := &run.Trace.Attempts[i]
		if a.Outcome != trace.OK {
			continue
		}
		ttft, _ := a.TTFT()
		p, ok := promptMS(a)
		if !ok || ttft < p {
			without++
			continue
		}
		ids = append(ids, a.ID)
		tip := fmt.Sprintf("%s · TTFT %s ms = 服务器 prompt_ms %s ms + 其余 %s ms", draw.TipID(a.ID), draw.Num(ttft), draw.Num(p), draw.Num(ttft-p))
		server = append(server, draw.BarItem{Value: p, Tooltip: &draw.NodeTooltip{Show: true, Formatter: tip}})
		client = append(client, draw.BarItem{Value: ttft - p, Tooltip: &draw.NodeTooltip{Show: true, Formatter: tip}})
	}
	sub := fmt.Sprintf("%s：%d 次完整成功带服务器计时；另有 %d 次没有可用的计时，未画出", run.Name, len(ids), without)
	b := ec.NewBar()
	b.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled("客户端 TTFT 拆成两段：服务器预填充 + 其余", draw.Label(sub))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: "95", Bottom: "80", Left: "70", Right: "30"}),
		ec.WithXAxisOpts(opts.XAxis{Name: "尝试", NameLocation: "middle", NameGap: 30}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: "TTFT (ms)", Min: 0}),
		ec.WithAnimation(false),
	)
	b.SetXAxis(draw.Labels(ids))
	add := func(name, color string, data []draw.BarItem) {
		b.AddSeries(name, nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
			ss.Data = data
			ss.Stack = "ttft"
			ss.ItemStyle = &opts.ItemStyle{Color: color}
		}))
	}
	add("服务器 prompt_ms（服务器时钟）", draw.ColorOK, server)
	add("TTFT − prompt_ms：排队、HTTP 路径、网络（客户端时钟）", draw.ColorOverSLO, client)
	return b
}

// promptMS reads meta.server_timings.prompt_ms, if it is a number ≥ 0.
func promptMS(a *trace.Attempt) (float64, bool) {
	if len(a.Meta) == 0 {
		return 0, false
	}
	var m struct {
		ST struct {
			PromptMS json.RawMessage `json:"prompt_ms"`
		} `json:"server_timings"`
	}
	if json.Unmarshal(a.Meta, &m) != nil || len(m.ST.PromptMS) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(m.ST.PromptMS), 64)
	return v, err == nil && v >= 0
}
