package tracefig

import (
	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// maxLabelledPoints is how many sample points TTFTDistribution labels with
// their attempt id.
const maxLabelledPoints = 12

type sample struct {
	id   string
	ttft float64
}

// TTFTDistribution draws the empirical CDF of the complete successes' TTFT
// (a step line, one point per success) with the P95 marked twice, under
// nearest-rank and under linear (numpy's default), both read by the
// trace's summary (coursekit/cardopts). The title carries n; the subtitle
// says how many attempts have no TTFT at all (missing, not 0). For the
// unit trace the marks read 2000 ms and 1720 ms.
func TTFTDistribution(t *trace.Trace, options ...charts.Option) *ec.Line {
	s := cardopts.MustSummarize(t, cardopts.Flags{}, cardopts.OtherMethod(metrics.Linear))
	return TTFTDistributionOf(DigestOf(t), s, options...)
}

// TTFTDistributionNearestRank is TTFTDistribution with the P95 marked
// under nearest-rank alone, the course's method: notebook 03 draws it as
// Fig. 01.3 before its exercise 3 asks for the linear P95, which the
// two-method figure would show (the seventh review). For the unit trace
// the mark reads 2000 ms.
func TTFTDistributionNearestRank(t *trace.Trace, options ...charts.Option) *ec.Line {
	s := cardopts.MustSummarize(t, cardopts.Flags{})
	return TTFTDistributionOf(DigestOf(t), s, options...)
}

// TTFTDistributionOf is TTFTDistribution drawn from a digest, with the
// counts and percentiles of s, the trace's summary: its TTFT under the
// card's method, and under the other method when s has it
// (cardopts.OtherMethod). Above MaxChartPoints successes the curve is the
// empirical CDF of the digest's uniform sample of their TTFTs: the title
// says so and how many are drawn; n, the missing count and both P95 marks
// are still the whole trace's.
func TTFTDistributionOf(d *Digest, s *metrics.Summary, options ...charts.Option) *ec.Line {
	nr, lin := &s.TTFT, s.TTFTOther
	if s.TTFT.Method == metrics.Linear {
		nr, lin = s.TTFTOther, &s.TTFT
	}
	c := draw.NewConfig("100%", "440px", options)
	lg := c.Lang
	xs, sampled := d.successSample()
	n := s.TTFT.N
	m := len(xs)

	var pts []draw.Point
	for k, x := range xs {
		p := draw.Point{Name: draw.Label(x.id), Value: []any{x.ttft, float64(k+1) / float64(m)}}
		if m <= maxLabelledPoints {
			p.Label = &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "left", Color: draw.ColorMark}
		}
		tip := lg.F(lang.Msg{"%s · TTFT %s ms · 第 %d / %d 个", "%s · TTFT %s ms · %d of %d"}, draw.TipID(x.id), draw.Num(x.ttft), k+1, m)
		if sampled {
			tip = lg.F(lang.Msg{"%s · TTFT %s ms · 样本中第 %d / %d 个", "%s · TTFT %s ms · %d of %d in the sample"}, draw.TipID(x.id), draw.Num(x.ttft), k+1, m)
		}
		p.Tooltip = &draw.NodeTooltip{Show: true, Formatter: tip}
		pts = append(pts, p)
	}

	title := lg.F(lang.Msg{"完整成功的 TTFT 分布（n = %d）", "TTFT distribution of complete successes (n = %d)"}, n)
	subtitle := lg.F(lang.Msg{"只含完整成功；%s 次尝试没有首个输出，TTFT 缺失（不是 0），留在失败率的分母里", "complete successes only; %s no first output: TTFT missing (not 0), kept in the failure rate's denominator"}, lang.N(lg, s.TTFTMissing, "attempt had", "attempts had"))
	if s.TTFTMissing == 0 {
		subtitle = lg.S(lang.Msg{"只含完整成功；缺失 TTFT：无", "complete successes only; missing TTFT: none"})
	}
	if sampled {
		title = lg.F(lang.Msg{"完整成功的 TTFT 分布（n = %d，抽样画出 %d 个）", "TTFT distribution of complete successes (n = %d, a sample of %d drawn)"}, n, m)
		lines := lang.Msg{"P95 线", "the P95 line"}
		if nr != nil && nr.P95 != nil && lin != nil && lin.P95 != nil {
			lines = lang.Msg{"两条 P95 线", "both P95 lines"}
		}
		subtitle += lg.F(lang.Msg{"\n抽样：超过 %s 个成功只画样本（按尝试 id 的哈希均匀抽取，可复现），曲线是样本的经验分布；n 与%s来自全部 %d 个", "\nsampled: above %s only a sample is drawn (uniform by a hash of the attempt id, reproducible), the curve is the sample's empirical CDF; n and %s come from all %d"}, lang.N(lg, d.limit, "success", "successes"), lg.S(lines), n)
	}
	var marks []any
	switch {
	case nr != nil && nr.P95 != nil && lin != nil && lin.P95 != nil:
		p95nr, p95lin := *nr.P95, *lin.P95
		k := metrics.NearestRankIndex(n, 0.95) + 1
		subtitle += lg.F(lang.Msg{"\nP95 最近秩 = 第 ⌈0.95×%d⌉ = %d 个 = %s ms；P95 线性插值（numpy 默认）= %s ms", "\nP95 nearest-rank = value number ⌈0.95×%d⌉ = %d = %s ms; P95 linear (numpy's default, interpolated) = %s ms"}, n, k, draw.Num(p95nr), draw.Num(p95lin))
		// Two vertical segments of different heights keep the labels apart
		// even when the two values are close.
		marks = append(marks,
			draw.Span(lg.F(lang.Msg{"P95 最近秩 %s ms", "P95 nearest-rank %s ms"}, draw.Num(p95nr)), p95nr, 0, p95nr, 1.2, draw.ColorFail, "end"),
			draw.Span(lg.F(lang.Msg{"P95 线性插值 %s ms", "P95 linear %s ms"}, draw.Num(p95lin)), p95lin, 0, p95lin, 1.08, "#9a60b4", "end"),
			draw.HLine("95%", 0.95, draw.ColorMark, "end"),
		)
	case s.TTFT.P95 != nil:
		p95 := *s.TTFT.P95
		name := draw.SafeText(cardfmt.MethodNameIn(lg, s.TTFT.Method))
		subtitle += lg.F(lang.Msg{"\nP95（%s）= %s ms", "\nP95 (%s) = %s ms"}, name, draw.Num(p95))
		marks = append(marks,
			draw.Span(lg.F(lang.Msg{"P95 %s %s ms", "P95 %s %s ms"}, name, draw.Num(p95)), p95, 0, p95, 1.2, draw.ColorFail, "end"),
			draw.HLine("95%", 0.95, draw.ColorMark, "end"),
		)
	default:
		subtitle += lg.S(lang.Msg{"\n没有成功样本：分位数为空（不是 0）", "\nno successes: the percentiles are empty (not 0)"})
	}

	gridTop := "120"
	if sampled { // the subtitle's sampling line
		gridTop = "158"
	}
	l := ec.NewLine()
	l.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(title, subtitle)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: gridTop, Bottom: "45", Left: "60", Right: "120"}),
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: "TTFT (ms)", NameLocation: "middle", NameGap: 28, Min: 0}),
		// Room above 1 for the P95 labels, but no "1.25" tick: a cumulative
		// share never exceeds 1 (hidden with showMaxLabel, not with a label
		// formatter function, which cannot travel as chart data).
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Name: lg.S(lang.Msg{"累计比例 k/n", "cumulative share k/n"}), Min: 0, Max: 1.25, MinInterval: 0.25, MaxInterval: 0.25,
			AxisLabel: &opts.AxisLabel{Show: opts.Bool(true), ShowMinLabel: opts.Bool(true), ShowMaxLabel: opts.Bool(false)}}),
		ec.WithAnimation(false),
	)
	l.AddSeries(lg.S(lang.Msg{"成功 TTFT", "TTFT of successes"}), nil,
		ec.WithLineChartOpts(opts.LineChart{Step: "end", ShowSymbol: opts.Bool(true), SymbolSize: 7}),
		ec.WithSeriesOpts(func(s *ec.SingleSeries) {
			s.Data = pts
			s.LineStyle = &opts.LineStyle{Color: draw.ColorOK, Width: 2}
			s.ItemStyle = &opts.ItemStyle{Color: draw.ColorOK}
			s.MarkLines = draw.MarkLines(marks...)
		}))
	return l
}
