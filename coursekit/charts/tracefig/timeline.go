package tracefig

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// sub writes t with a subscript index: t₀, t₁₂.
func sub(i int) string {
	const digits = "₀₁₂₃₄₅₆₇₈₉"
	d := []rune(digits)
	var b strings.Builder
	b.WriteString("t")
	for _, c := range fmt.Sprint(i) {
		b.WriteRune(d[c-'0'])
	}
	return b.String()
}

// MaxTimelineEvents is the most events Timeline draws: past it, a sample.
const MaxTimelineEvents = 200

// Timeline is one attempt on the client clock (the unit's Figure 01.2,
// which the notebook numbers with nb.Figure; the report leaves the course
// numbering out), from t₀ (sent)
// through every streamed event t₁…tₙ to t_end, with TTFT, each event gap
// and E2E drawn as labelled spans, and the span of all the gaps, t₁ → tₙ,
// labelled with how many there are and their sum, above them: a gap's own
// label names that one gap only. Gaps are named as the card names them
// (cardfmt.EventGap): they are ITL only when every event carries one token,
// which the subtitle says of this request, as against the card, which
// speaks of the whole run's gaps: one token per event here, with the
// server's count agreeing, makes this request's event gaps its token gaps
// even in a run whose card says its event gaps together are not ITL. The subtitle adds up E2E = TTFT + the sum of the
// event gaps + the wait after the last event, so E2E is visibly not that
// sum. An event that carried k > 1 tokens is labelled "×k token".
//
// An attempt of more than MaxTimelineEvents events draws every k-th event
// (and the last) and no per-gap span, and says so: each drawn event is a
// labelled point, and 45,000 of them made a 17 MB page.
func Timeline(a *trace.Attempt, options ...charts.Option) *ec.Scatter {
	c := draw.NewConfig("100%", "360px", options)
	lg := c.Lang
	s := ec.NewScatter()
	id := draw.Label(a.ID)
	title := lg.F(lang.Msg{"一次请求的客户端时间轴（%s）", "Client timeline of one request (%s)"}, id)

	ttft, hasTTFT := a.TTFT()
	e2e, hasEnd := a.E2E()
	rel := func(t float64) float64 { return t - a.StartMS }

	// Labels go above or below the row of points; one is shown only where
	// it does not run into the previous label on the same side (t₀ and
	// t_end sit below). Every point keeps its tooltip.
	span0 := 1.0
	if hasEnd {
		span0 = max(e2e, 1)
	} else if n := len(a.Events); n > 0 {
		span0 = max(rel(a.Events[n-1].TMS), 1)
	}
	room := span0 * 0.13
	lastTop, lastBottom := -room, 0.0
	var events []draw.Point
	multi, tokens := 0, 0
	stride := (len(a.Events) + MaxTimelineEvents - 1) / MaxTimelineEvents
	for i, e := range a.Events {
		if e.Tokens > 1 {
			multi++
		}
		tokens += max(e.Tokens, 1)
		if stride > 1 && i%stride != 0 && i != len(a.Events)-1 {
			continue
		}
		x := rel(e.TMS)
		name := fmt.Sprintf("%s = %s ms", sub(i+1), draw.Num(x))
		if e.Tokens > 1 {
			name += fmt.Sprintf(" ×%d token", e.Tokens)
		}
		pos, show := "top", false
		endClash := hasEnd && e2e-x < room
		switch {
		case x-lastTop >= room:
			show, lastTop = true, x
		case x-lastBottom >= room && !endClash:
			pos, show, lastBottom = "bottom", true, x
		}
		p := draw.Point{Name: name, Value: []any{x, 1}, SymbolSize: 12,
			Label:   &opts.Label{Show: opts.Bool(show), Formatter: "{b}", Position: pos, Color: draw.ColorMark},
			Tooltip: &draw.NodeTooltip{Show: true, Formatter: name}}
		if e.Tokens > 1 {
			p.SymbolSize = 12 + 3*min(e.Tokens, 6)
			p.ItemStyle = &opts.ItemStyle{Color: draw.ColorOverSLO}
		}
		events = append(events, p)
	}

	ends := []draw.Point{{Name: lg.S(lang.Msg{"t₀ = 0 ms 发起", "t₀ = 0 ms sent"}), Value: []any{0.0, 1}, Symbol: "diamond", SymbolSize: 16,
		Label: &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "bottom", Color: draw.ColorMark}}}
	if hasEnd {
		ends = append(ends, draw.Point{Name: lg.F(lang.Msg{"t_end = %s ms 结束", "t_end = %s ms end"}, draw.Num(e2e)), Value: []any{e2e, 1}, Symbol: "rect", SymbolSize: 14,
			Label: &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "bottom", Color: draw.ColorMark}})
	}

	// Spans: TTFT, each ITL and the tail at y = 1.55; E2E at y = 2.15.
	var spans []any
	var areas []any
	sumITL := 0.0
	if hasTTFT {
		spans = append(spans, draw.Span(fmt.Sprintf("TTFT %s ms", draw.Num(ttft)), 0, 1.55, ttft, 1.55, draw.ColorOK, "insideMiddleTop"))
		areas = append(areas, draw.Area(lg.S(lang.Msg{"首字前等待", "wait for first output"}), 0, ttft, draw.ColorOK))
	}
	gap := lg.S(cardfmt.EventGap)
	itls := a.EventIntervals(nil)
	for i, d := range itls {
		sumITL += d
		name := gap + " " + draw.Num(d)
		if d < span0*0.08 {
			name = "" // too narrow to label; the span of all the gaps has the sum
		}
		if stride > 1 {
			continue // sampled: the span of all the gaps has the sum
		}
		x0 := rel(a.Events[i].TMS)
		spans = append(spans, draw.Span(name, x0, 1.55, x0+d, 1.55, "#3ba272", "insideMiddleTop"))
	}
	if n := len(itls); n > 1 {
		x0, x1 := rel(a.Events[0].TMS), rel(a.Events[n].TMS)
		name := lg.F(lang.Msg{"%s → %s：%d 个%s，共 %s ms", "%s → %s: %d %ss, %s ms in all"}, sub(1), sub(n+1), n, gap, draw.Num(sumITL))
		spans = append(spans, draw.Span(name, x0, 1.85, x1, 1.85, "#3ba272", "insideMiddleTop"))
	}
	tail := 0.0
	if hasEnd && hasTTFT {
		last := rel(a.Events[len(a.Events)-1].TMS)
		tail = e2e - last
		if tail > 0 {
			name := lg.F(lang.Msg{"收尾 %s", "tail %s"}, draw.Num(tail))
			if tail < span0*0.04 {
				name = ""
			}
			spans = append(spans, draw.Span(name, last, 1.55, e2e, 1.55, draw.ColorInFlight, "insideMiddleTop"))
		}
	}
	if hasEnd {
		spans = append(spans, draw.Span(fmt.Sprintf("E2E = %s ms", draw.Num(e2e)), 0, 2.15, e2e, 2.15, draw.ColorMark, "insideMiddleTop"))
	}

	var subtitle string
	switch {
	case hasEnd && hasTTFT:
		// "1 event gap", "2 event gaps"; 个 counts in Chinese.
		counted := lang.N(lg, len(itls), gap, gap+"s")
		if lg != lang.EN {
			counted = fmt.Sprintf("%d 个%s", len(itls), gap)
		}
		subtitle = lg.F(lang.Msg{"E2E %s = TTFT %s + %s之和 %s + 最后事件到结束 %s ms：E2E 不等于%s之和", "E2E %s = TTFT %s + the sum of %s %s + last event to end %s ms: E2E is not the sum of the %ss"},
			draw.Num(e2e), draw.Num(ttft), counted, draw.Num(sumITL), draw.Num(tail), gap)
		if !addsUp(e2e, ttft, sumITL, tail) {
			subtitle += lg.S(lang.Msg{"（各项分别四舍五入到 0.001 ms，印出的各项之和与 E2E 可差 0.001 ms）", " (each rounded to 0.001 ms: the printed parts may add up to 0.001 ms off E2E)"})
		}
	case hasEnd:
		subtitle = lg.F(lang.Msg{"结果：%s，没有收到任何输出，TTFT 缺失（不是 0）；E2E = %s ms", "outcome: %s, no output received, TTFT missing (not 0); E2E = %s ms"}, cardfmt.OutcomeNameAtIn(lg, a.Outcome, false), draw.Num(e2e))
	default:
		subtitle = lg.S(lang.Msg{"在途：还没有结束，E2E 缺失", "in flight: not finished yet, E2E missing"})
	}
	switch {
	case multi > 0:
		subtitle += lg.F(lang.Msg{"\n%s 个事件各带多个 token：事件间隔不是 token 间隔，不是 ITL", "\n%s several tokens each: the event gaps are not token gaps, not ITL"}, lang.N(lg, multi, "event carries", "events carry"))
	case a.OutputTokens > tokens:
		subtitle += lg.F(lang.Msg{"\n这次请求 %s 个事件各按 1 个 token 计，服务端却计 %s 个（例如结束符没有文本）：这里的事件间隔未必都是 token 间隔（ITL）",
			"\nthis request: %s, 1 token each, but %s by the server's count (end of sequence has no text): its gaps need not all be token gaps (ITL)"}, lang.N(lg, tokens, "event", "events"), lang.N(lg, a.OutputTokens, "token", "tokens"))
	case len(a.Events) > 0:
		subtitle += lg.S(lang.Msg{"\n这次请求每个事件 1 个 token：这里的事件间隔就是它的 token 间隔（ITL）；指标口径卡说的是整次运行的事件间隔",
			"\nthis request has 1 token per event: its event gaps here are its token gaps (ITL); the card speaks of the whole run's gaps"})
	}
	if stride > 1 {
		subtitle += lg.F(lang.Msg{"\n每 %d 个事件画 1 个（共 %d 个事件中的 %d 个），不画逐个间隔", "\none event in %d drawn (%d of %d events drawn), no span per gap"}, stride, len(events), len(a.Events))
	}
	if a.Outcome != trace.OK {
		_, has := a.TTFT()
		title += lg.S(lang.Msg{" · 结果：", " · outcome: "}) + cardfmt.OutcomeNameAtIn(lg, a.Outcome, has)
	}

	s.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Titled(title, subtitle)),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Formatter: "{b}"}),
		ec.WithGridOpts(opts.Grid{Top: "95", Bottom: "45", Left: "50", Right: "80"}),
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: lg.S(lang.Msg{"距发起的时间（ms）", "time since send (ms)"}), NameLocation: "middle", NameGap: 28, Min: 0}),
		ec.WithYAxisOpts(opts.YAxis{Type: "value", Show: opts.Bool(false), Min: 0.4, Max: 2.5}),
		ec.WithAnimation(false),
	)
	s.AddSeries(lg.S(lang.Msg{"发起 / 结束", "sent / end"}), nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
		ss.Data = ends
		ss.ItemStyle = &opts.ItemStyle{Color: draw.ColorMark}
	}))
	s.AddSeries(lg.S(lang.Msg{"流式事件", "streamed events"}), nil, ec.WithSeriesOpts(func(ss *ec.SingleSeries) {
		ss.Data = events
		ss.ItemStyle = &opts.ItemStyle{Color: draw.ColorOK}
		ss.MarkLines = draw.MarkLines(spans...)
		ss.MarkAreas = draw.MarkAreas(areas...)
	}))
	return s
}

// addsUp reports whether the parts, as draw.Num prints them, add up to the
// total as printed: the subtitle's "E2E = TTFT + gaps + tail" must hold as
// the reader reads it, or say it is rounded (walk 35f 4).
func addsUp(total float64, parts ...float64) bool {
	read := func(v float64) float64 {
		x, _ := strconv.ParseFloat(draw.Num(v), 64)
		return x
	}
	sum := 0.0
	for _, p := range parts {
		sum += read(p)
	}
	return math.Abs(sum-read(total)) < 1e-6
}
