package tracefig

import (
	"math"
	"strconv"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// GaugeSeries is one line of ServerGauges: a name and a value per scrape
// (NaN where the scrape failed or lacked the gauge).
type GaugeSeries struct {
	Name   string
	Values []float64
}

// ServerGaugeSeries is the data ServerGauges draws, at each scrape's t_ms:
// first the client's in-flight count from the trace, then, for each known
// server whose gauges the sidecar holds, its running and waiting requests
// and their sum. A gauge with labels (vLLM's model_name) is summed over
// them. known is false when the sidecar has none of the known gauges.
func ServerGaugeSeries(t *trace.Trace, scrapes []trace.Scrape) (atMS []float64, series []GaugeSeries, known bool) {
	return serverGaugeSeries(lang.ZH, inFlightAtScrapes(t, scrapes), scrapes)
}

func inFlightAtScrapes(t *trace.Trace, scrapes []trace.Scrape) []int {
	atMS := make([]float64, len(scrapes))
	for i, s := range scrapes {
		atMS[i] = s.TMS
	}
	return metrics.InFlightAt(t, atMS)
}

var (
	gsClient  = lang.Msg{"客户端在途请求（由 trace 算出）", "client requests in flight (from the trace)"}
	gsRunning = lang.Msg{"%s（正在处理）", "%s (running)"}
	gsWaiting = lang.Msg{"%s（等待中）", "%s (waiting)"}
	gsSum     = lang.Msg{"%s 合计：处理 + 等待", "%s total: running + waiting"}
	gsScrapes = lang.Msg{"%s 次读数（%d 次失败，未画出）；每个点在 GET 发出的时刻（trace 时钟），服务器的读数在其后 dur_ms 之内取得", "%s (%d failed, not drawn); each point at the moment its GET was sent (trace clock), the server's reading taken within dur_ms after it"}
	gsUnknown = lang.Msg{"读数里没有已知的服务器请求 gauge（llama.cpp、vLLM、coursekit sim），只画了客户端在途请求", "the scrapes hold no known server request gauge (llama.cpp, vLLM, coursekit sim): only the client's in-flight count is drawn"}
	gsTitle   = lang.Msg{"客户端在途请求与服务器的请求 gauge（同一时钟）", "Client requests in flight and the server's request gauges (one clock)"}
	gsX       = lang.Msg{"运行时刻（s）", "run time (s)"}
	gsY       = lang.Msg{"请求（个）", "requests"}
)

// serverGaugeSeries is ServerGaugeSeries with the client's in-flight count
// at each scrape given.
func serverGaugeSeries(lg lang.Lang, inflight []int, scrapes []trace.Scrape) (atMS []float64, series []GaugeSeries, known bool) {
	for _, s := range scrapes {
		atMS = append(atMS, s.TMS)
	}
	client := GaugeSeries{Name: gsClient.In(lg)}
	for _, n := range inflight {
		client.Values = append(client.Values, float64(n))
	}
	series = append(series, client)
	for _, f := range trace.RequestGauges {
		run, okR := gaugeValues(scrapes, f.Running)
		wait, okW := gaugeValues(scrapes, f.Waiting)
		if !okR && !okW {
			continue
		}
		known = true
		if okR {
			series = append(series, GaugeSeries{Name: lg.F(gsRunning, f.Running), Values: run})
		}
		if okW {
			series = append(series, GaugeSeries{Name: lg.F(gsWaiting, f.Waiting), Values: wait})
		}
		if okR && okW {
			sum := make([]float64, len(run))
			for i := range run {
				sum[i] = run[i] + wait[i] // NaN stays NaN
			}
			series = append(series, GaugeSeries{Name: lg.F(gsSum, f.Server), Values: sum})
		}
	}
	return atMS, series, known
}

// gaugeValues reads one gauge (summed over its label sets) from each
// scrape; ok is false if no scrape has it.
func gaugeValues(scrapes []trace.Scrape, name string) ([]float64, bool) {
	out := make([]float64, len(scrapes))
	ok := false
	for i, s := range scrapes {
		out[i] = math.NaN()
		if s.Error != "" {
			continue
		}
		for k, v := range s.Values {
			if k == name || strings.HasPrefix(k, name+"{") {
				if math.IsNaN(out[i]) {
					out[i] = 0
				}
				out[i] += v
				ok = true
			}
		}
	}
	return out, ok
}

// ServerGauges sets the server's own request gauges, scraped from /metrics
// during the run (the trace's metrics sidecar), beside the client's
// in-flight count computed from the trace at the same moments, on the
// trace's clock: when the two agree, the client's view is the server's
// queue; a gap is requests the server does not hold yet (network, HTTP
// parsing) or no longer holds. Failed scrapes are gaps in the server lines
// and counted in the subtitle.
func ServerGauges(t *trace.Trace, scrapes []trace.Scrape, options ...charts.Option) *ec.Line {
	return ServerGaugesOf(inFlightAtScrapes(t, scrapes), scrapes, options...)
}

// ServerGaugesOf is ServerGauges with the client's in-flight count at each
// scrape given (metrics.InFlightAt at the scrapes' t_ms, e.g. from a
// Digest that counted them while streaming the trace).
func ServerGaugesOf(inflight []int, scrapes []trace.Scrape, options ...charts.Option) *ec.Line {
	c := draw.NewConfig("100%", "440px", options)
	atMS, series, known := serverGaugeSeries(c.Lang, inflight, scrapes)
	failed := 0
	for _, s := range scrapes {
		if s.Error != "" {
			failed++
		}
	}
	sub := []string{c.Lang.F(gsScrapes, lang.N(c.Lang, len(scrapes), "scrape", "scrapes"), failed)}
	if !known {
		sub = append(sub, gsUnknown.In(c.Lang))
	}
	l := ec.NewLine()
	maxX := 0.0
	for _, x := range atMS {
		maxX = max(maxX, draw.Sec(x))
	}
	for i, s := range series {
		var pts []draw.Point
		for j, v := range s.Values {
			if math.IsNaN(v) {
				pts = append(pts, draw.Point{Value: []any{draw.Sec(atMS[j]), "-"}})
				continue
			}
			pts = append(pts, draw.Point{Value: []any{draw.Sec(atMS[j]), v}})
		}
		style := opts.LineStyle{Color: gaugeColor(i), Width: 2}
		if i == 0 {
			style = opts.LineStyle{Color: draw.ColorMark, Width: 3, Type: "dashed"}
		}
		// Every name is ours (gsClient, the gauges of trace.RequestGauges),
		// so it is drawn whole: Label's 40 runes cut "client requests in
		// flight (from the trace)" to "…(from the trac…".
		draw.AddLine(l, draw.WholeText(s.Name), pts, opts.LineChart{ShowSymbol: opts.Bool(true)}, style, nil)
	}
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(gsTitle.In(c.Lang), strings.Join(sub, "\n"))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		ec.WithGridOpts(opts.Grid{Top: strconv.Itoa(95 + 19*len(sub)), Bottom: "95", Left: "60", Right: "40"}),
		ec.WithXAxisOpts(draw.TimeAxis(gsX.In(c.Lang), maxX)),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: gsY.In(c.Lang), Min: 0, MinInterval: 1}),
		ec.WithAnimation(false),
	)
	return l
}

// gaugeColor tells the server lines apart (the client's line is dark and
// dashed).
func gaugeColor(i int) string { return draw.RunColors[(i-1+len(draw.RunColors))%len(draw.RunColors)] }
