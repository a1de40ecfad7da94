package tracefig

import (
	"fmt"
	"strconv"
	"unicode/utf8"

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

// AttemptRows is how many attempts Attempts shows at once; a longer trace
// gets a slider to scroll through all of them (none is dropped up to
// MaxChartPoints rows; above that a sample is drawn and the title says so).
const AttemptRows = 40

// CaptureEdgeMS is where a trace's capture ended: conditions.capture_ms
// if the header records it, otherwise the latest time in the trace.
// In-flight attempts are drawn up to it.
func CaptureEdgeMS(t *trace.Trace) float64 {
	if c, err := t.Header.ReadConditions(); err == nil && c.CaptureMS != nil {
		return *c.CaptureMS
	}
	edge := 0.0
	for i := range t.Attempts {
		a := &t.Attempts[i]
		edge = max(edge, a.StartMS)
		if n := len(a.Events); n > 0 {
			edge = max(edge, a.Events[n-1].TMS)
		}
		if a.HasEnd {
			edge = max(edge, a.EndMS)
		}
	}
	return edge
}

// Attempts draws every attempt of a trace as one row, in send order, each
// measured from its own send time: the wait for the first output (blue
// within the TTFT SLO, orange over it), then the stream (light blue) up to
// the end. Failures are red bars from send to their final event, labelled
// with their outcome; in-flight attempts are grey bars up to the capture
// edge. Every complete success is labelled with its joint-qualification
// verdict under the TTFT SLO sloMS, the trace's summary's rule (through
// coursekit/cardopts, as `coursekit card --slo-ttft` reads it). The SLO is
// a vertical line.
//
// A trace with more than AttemptRows attempts gets a slider; the subtitle
// says how many rows are in view and that none was dropped. Above
// MaxChartPoints attempts the rows are the digest's sample (see Digest),
// and the title says how many of how many are drawn.
func Attempts(t *trace.Trace, sloMS float64, options ...charts.Option) *ec.Bar {
	return AttemptsOf(DigestOf(t), cardopts.MustSummarize(t, cardopts.TTFT(sloMS)), 0, options...)
}

// AttemptsOf is Attempts drawn from a digest of a trace and its summary s:
// each row's verdict is the rule of s's condition, and the subtitle's
// counts are s's (the attempts in the window, and those outside it). Above
// MaxChartPoints rows it draws the digest's sample of rows: the title says
// so and how many.
func AttemptsOf(d *Digest, s *metrics.Summary, condition int, options ...charts.Option) *ec.Bar {
	rule := metrics.RuleAt(metrics.DefaultSLOMS)
	if condition >= 0 && condition < len(s.Conditions) {
		rule = s.Conditions[condition].Rule()
	}
	sloMS := rule.TTFTMS
	rowsDrawn, seqs, measures, sampled, keptOther := d.drawnRows()
	n := len(rowsDrawn)
	rows := min(max(n, 1), AttemptRows)
	c := draw.NewConfig("100%", strconv.Itoa(165+26*rows)+"px", options)
	lg := c.Lang
	edge := d.CaptureEdgeMS()

	ids := make([]string, n)
	var within, over, stream, failed, inflight []draw.BarItem
	firstIn := -1
	for i, a := range rowsDrawn {
		// The tooltip has the whole id; the axis its end (axisIDs).
		ids[i] = draw.TipID(a.ID)
		prefix := ""
		if d.Header.Window.Contains(a.StartMS) {
			if firstIn < 0 {
				firstIn = i
			}
		} else {
			prefix = lg.S(lang.Msg{"窗口外 · ", "outside window · "})
		}
		zero := draw.BarItem{Value: 0}
		w, o, s, f, in := zero, zero, zero, zero, zero
		_, hasTTFT := a.TTFT()
		tip := lg.F(lang.Msg{"%s · 发起 %s ms · 结果：%s", "%s · sent %s ms · outcome: %s"}, draw.TipID(a.ID), draw.Num(a.StartMS), cardfmt.OutcomeNameAtIn(lg, a.Outcome, hasTTFT))
		switch {
		case a.Outcome == trace.OK:
			ttft, _ := a.TTFT()
			e2e, _ := a.E2E()
			v := rule.JudgeMeasured(a, measures[i])
			lab := prefix + cardfmt.ReasonNameIn(lg, v.Reason)
			tip += fmt.Sprintf("<br/>TTFT %s ms · E2E %s ms · %s<br/>%s", draw.Num(ttft), draw.Num(e2e), charts.QualityLabelIn(lg, a.Quality), cardfmt.ReasonNameIn(lg, v.Reason))
			if ttft <= sloMS {
				w = draw.BarItem{Value: ttft}
			} else {
				o = draw.BarItem{Value: ttft}
			}
			color := draw.ColorMark
			if v.Reason == metrics.Qualified {
				color = "#2f7d32"
			}
			s = draw.BarItem{Value: e2e - ttft, Label: rowLabel(color, lab)}
		case a.Outcome == trace.InFlight:
			dur := max(edge-a.StartMS, 0)
			in = draw.BarItem{Value: dur, Label: rowLabel(draw.ColorInFlight, prefix+lg.F(lang.Msg{"在途（画到采集结束 %s ms）", "in flight (drawn to the capture end %s ms)"}, draw.MS(edge)))}
			tip += lg.S(lang.Msg{"<br/>到采集结束仍未结束：E2E 缺失", "<br/>not finished at the capture end: E2E missing"})
		default:
			e2e, _ := a.E2E()
			what := cardfmt.OutcomeNameAtIn(lg, a.Outcome, hasTTFT)
			if !hasTTFT && a.Outcome != trace.Timeout {
				what += lg.S(lang.Msg{"（无首字）", " (no first output)"})
			}
			if a.Error != "" { // what kind of error, then the trace's own text
				tip += "<br/>" + d.errorKind(lg, seqs[i]) + "<br/>" + lg.S(lang.Msg{"原文：", "raw: "}) + draw.Label(a.Error)
			}
			f = draw.BarItem{Value: max(e2e, 0), Label: rowLabel(draw.ColorFail, prefix+what+" · "+draw.MS(e2e)+" ms")}
		}
		for _, b := range []*draw.BarItem{&w, &o, &s, &f, &in} {
			b.Tooltip = &draw.NodeTooltip{Show: true, Formatter: tip}
		}
		within, over, stream, failed, inflight = append(within, w), append(over, o), append(stream, s), append(failed, f), append(inflight, in)
	}
	ids = axisIDs(ids, AxisIDRunes)
	nOK, nFail, nIn, nOut := s.CompleteSuccess, s.Failures, s.InFlight, s.OutsideWindow

	total := s.Attempts
	title := lg.S(lang.Msg{"全部尝试：首字前等待 → 流式输出 → 结束", "All attempts: wait for the first output → streaming → end"})
	var subtitle string
	if sampled {
		title = lg.F(lang.Msg{"尝试抽样（画出 %d / %d 行）：首字前等待 → 流式输出 → 结束", "Sampled attempts (%d of %d rows drawn): wait for the first output → streaming → end"}, n, d.rows)
		subtitle = lg.F(lang.Msg{"共 %s 次尝试：完整成功 %d · 失败 %d · 在途 %d（计数来自指标口径卡，不是样本的）", "%s: complete successes %d · failures %d · in flight %d (the card's counts, not the sample's)"}, lang.N(lg, total, "attempt", "attempts"), nOK, nFail, nIn)
	} else {
		subtitle = lg.F(lang.Msg{"共 %s 次尝试：完整成功 %d · 失败 %d · 在途 %d（失败与在途都画出，不删除）", "%s: complete successes %d · failures %d · in flight %d (failures and in-flight attempts are drawn, none removed)"}, lang.N(lg, total, "attempt", "attempts"), nOK, nFail, nIn)
	}
	if nOut > 0 {
		subtitle += lg.F(lang.Msg{" · 窗口外 %d", " · outside the window %d"}, nOut)
	}
	if sampled {
		subtitle += lg.F(lang.Msg{"\n抽样：超过 %s 行只画样本，按尝试 id 的哈希均匀抽取，可复现；画出失败与在途 %d / %d，完整成功 %d / %d", "\nsampled: above %s only a sample is drawn, uniform by a hash of the attempt id, reproducible; drawn: failures and in flight %d of %d, complete successes %d of %d"},
			lang.N(lg, d.limit, "row", "rows"), keptOther, d.failed+d.inFlight, n-keptOther, d.ok)
	}
	subtitle += lg.F(lang.Msg{"\n每行从该尝试发起时刻算起；标注 = 按 %s 的联合合格判定", "\neach row starts at its attempt's send time; label = the verdict for qualified under %s"}, draw.SafeText(ruleName(s, condition, rule)))
	if n > AttemptRows {
		subtitle += lg.F(lang.Msg{"；一屏 %s 行，从第一个窗口内的尝试开始，拖动右侧滑块看全部 %s 行", "; %s in view from the first attempt in the window; drag the slider on the right to see all %s"}, lang.N(lg, AttemptRows, "row", "rows"), lang.N(lg, n, "row", "rows"))
	}

	gridTop := "140"
	if sampled { // one more subtitle line
		gridTop = "159"
	}
	b := ec.NewBar()
	globals := []ec.GlobalOpts{
		c.Init(),
		ec.WithTitleOpts(draw.Titled(title, subtitle)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "82"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		ec.WithGridOpts(opts.Grid{Top: gridTop, Bottom: "40", Left: strconv.Itoa(axisLeft(ids)), Right: "190"}),
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: lg.S(lang.Msg{"距发起的时间（ms）", "time since send (ms)"}), NameLocation: "middle", NameGap: 26, Min: 0}),
		ec.WithYAxisOpts(opts.YAxis{Type: "category", Data: ids, Inverse: opts.Bool(true),
			AxisLabel: &opts.AxisLabel{Show: opts.Bool(true), Interval: "0"}}),
		ec.WithAnimation(false),
	}
	if n > AttemptRows {
		// The view opens at the first attempt inside the window (warm-up
		// attempts before it are one drag away).
		start := float32(max(firstIn, 0)) * 100 / float32(n)
		end := min(start+float32(AttemptRows)*100/float32(n), 100)
		globals = append(globals,
			ec.WithDataZoomOpts(
				opts.DataZoom{Type: "slider", YAxisIndex: 0, Start: start, End: end, Orient: "vertical", FilterMode: "filter"},
				opts.DataZoom{Type: "inside", YAxisIndex: 0, Start: start, End: end, FilterMode: "filter"}))
	}
	b.SetGlobalOptions(globals...)
	stack := func(color string) ec.SeriesOpts {
		return ec.WithSeriesOpts(func(s *ec.SingleSeries) {
			s.Stack = "t"
			s.ItemStyle = &opts.ItemStyle{Color: color}
			s.BarWidth = "60%"
		})
	}
	data := func(items []draw.BarItem) ec.SeriesOpts {
		return ec.WithSeriesOpts(func(s *ec.SingleSeries) { s.Data = items })
	}
	b.AddSeries(lg.S(lang.Msg{"首字前等待 ≤ 门槛", "wait for first output ≤ SLO"}), nil, stack(draw.ColorOK), data(within), ec.WithSeriesOpts(func(s *ec.SingleSeries) {
		s.MarkLines = draw.MarkLines(draw.VLine(lg.F(lang.Msg{"TTFT 门槛 %s", "TTFT SLO %s"}, draw.SLOText(sloMS)), sloMS, draw.ColorOverSLO, "start"))
	}))
	b.AddSeries(lg.S(lang.Msg{"首字前等待 > 门槛", "wait for first output > SLO"}), nil, stack(draw.ColorOverSLO), data(over))
	b.AddSeries(lg.S(lang.Msg{"首字后流式输出", "streaming after the first output"}), nil, stack(draw.ColorDecode), data(stream))
	b.AddSeries(lg.S(lang.Msg{"失败（标注结果）", "failed (outcome labelled)"}), nil, stack(draw.ColorFail), data(failed))
	b.AddSeries(lg.S(lang.Msg{"在途", "in flight"}), nil, stack(draw.ColorInFlight), data(inflight))
	return b
}

// rowLabel is the text at the end of a row, on a light background so it
// stays readable where it crosses the SLO line.
func rowLabel(color, text string) *opts.Label {
	return &opts.Label{Show: opts.Bool(true), Position: "right", Color: color, Formatter: draw.Literal(text),
		BackgroundColor: "rgba(255,255,255,0.85)"}
}

// ruleName names the condition whose rule labels the rows: "TTFT ≤ 1 s",
// with its latency SLOs when it has some.
func ruleName(s *metrics.Summary, condition int, r metrics.Rule) string {
	if condition >= 0 && condition < len(s.Conditions) {
		return cardfmt.CondName(s.Conditions[condition])
	}
	return cardfmt.CondName(metrics.Condition{SLOTTFTMS: r.TTFTMS})
}

// AxisIDRunes is how many trailing runes of a long attempt ID the attempts
// chart's y-axis shows after a leading "…" (walk 35g F7: AIPerf's UUIDs
// were clipped at the chart's edge); the row's tooltip has the whole ID.
const AxisIDRunes = 12

// axisIDs shortens the row labels ids (already escaped by draw.TipID) for
// the y-axis: a label longer than keep+1 runes becomes "…" and its last
// keep runes. The axis is a category axis, so the labels stay distinct:
// labels that would read the same keep more runes until they differ.
func axisIDs(ids []string, keep int) []string {
	runes := make([][]rune, len(ids))
	k := make([]int, len(ids))
	for i, id := range ids {
		runes[i], k[i] = []rune(id), keep
	}
	out := make([]string, len(ids))
	for {
		at := make(map[string][]int, len(ids))
		for i, r := range runes {
			out[i] = string(r)
			if len(r) > k[i]+1 {
				out[i] = "…" + string(r[len(r)-k[i]:])
			}
			at[out[i]] = append(at[out[i]], i)
		}
		grew := false
		for _, same := range at {
			if len(same) < 2 {
				continue
			}
			for _, i := range same {
				if len(runes[i]) > k[i]+1 {
					k[i]++
					grew = true
				}
			}
		}
		if !grew {
			return out
		}
	}
}

// axisLeft is the grid's left margin in pixels that fits the longest of
// the axis labels (about 7.5 px a rune at the axis's 12 px font), at
// least the 90 px the chart always had.
func axisLeft(ids []string) int {
	n := 0
	for _, id := range ids {
		n = max(n, utf8.RuneCountInString(id))
	}
	return max(90, 15*n/2+16)
}
