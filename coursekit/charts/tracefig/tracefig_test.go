package tracefig_test

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/charttest"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The golden files pin every chart's option JSON under a fixed id;
// `go test ./coursekit/charts/tracefig -update` rewrites them after a deliberate change.
func TestGolden(t *testing.T) {
	unit := readTrace(t, "trace.jsonl")
	tl := readTrace(t, "timeline.jsonl")
	s := metrics.Summarize(unit, metrics.Options{SLOsMS: []float64{1000, 500}})
	for name, c := range map[string]chart{
		"timeline":  tracefig.Timeline(&tl.Attempts[0], charts.WithID("timeline")),
		"attempts":  tracefig.Attempts(unit, 1000, charts.WithID("attempts")),
		"ttft_cdf":  tracefig.TTFTDistribution(unit, charts.WithID("ttft_cdf")),
		"funnel_1s": tracefig.Funnel(s, 0, charts.WithID("funnel_1s")),
		"slo_sweep": tracefig.SLOSweep(unit, nil, nil, charts.WithID("slo_sweep")),
	} {
		t.Run(name, func(t *testing.T) {
			got := option(t, c)
			if !strings.Contains(c.RenderSnippet().Element, `id="`+name+`"`) {
				t.Errorf("chart id not fixed: %s", c.RenderSnippet().Element)
			}
			charttest.Golden(t, filepath.Join("testdata", name+".json"), got, *update)
		})
	}
}

// Figure 01.2: TTFT 700, event gaps 100 and 150, E2E 1000, and the 50 ms
// after the last event that makes E2E differ from TTFT + the sum of the
// gaps. The gaps are named as the card names them (event gaps: ITL only
// when each event carries one token), never "ITL" alone, and the span of
// all of them, t₁ → t₃, has its own label: a gap's label names that gap.
func TestTimelineUnitFigure(t *testing.T) {
	tl := readTrace(t, "timeline.jsonl")
	js := string(option(t, tracefig.Timeline(&tl.Attempts[0], charts.WithID("t"))))
	for _, want := range []string{"t₀ = 0 ms 发起", "t₁ = 700 ms", "t₂ = 800 ms", "t₃ = 950 ms", "t_end = 1000 ms 结束",
		"TTFT 700 ms", `"事件间隔 100"`, `"事件间隔 150"`, "t₁ → t₃：2 个事件间隔，共 250 ms", "E2E = 1000 ms", "收尾 50", "2 个事件间隔之和 250", "E2E 不等于事件间隔之和",
		"这里的事件间隔就是它的 token 间隔（ITL）", `"formatter": "{b}"`} {
		if !strings.Contains(js, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	if strings.Contains(js, `"ITL `) {
		t.Errorf("a span is labelled ITL: %s", js)
	}
	en := string(option(t, tracefig.Timeline(&tl.Attempts[0], charts.WithID("t"), charts.WithLang(lang.EN))))
	for _, want := range []string{`"event gap 100"`, "t₁ → t₃: 2 event gaps, 250 ms in all", "the sum of 2 event gaps 250"} {
		if !strings.Contains(en, want) {
			t.Errorf("English timeline lacks %q", want)
		}
	}
	// A multi-token event is labelled with its token count.
	a := tl.Attempts[0]
	a.Events = []trace.Event{{TMS: 700, Tokens: 1}, {TMS: 800, Tokens: 3}, {TMS: 950, Tokens: 1}}
	js = string(option(t, tracefig.Timeline(&a, charts.WithID("t"))))
	if !strings.Contains(js, "t₂ = 800 ms ×3 token") || !strings.Contains(js, "事件间隔不是 token 间隔，不是 ITL") {
		t.Error("multi-token event not labelled")
	}
}

// seriesValues reads series i's data values (bar items or plain values).
func seriesValues(t testing.TB, m map[string]any, i int) []float64 {
	t.Helper()
	var out []float64
	for _, d := range m["series"].([]any)[i].(map[string]any)["data"].([]any) {
		switch v := d.(type) {
		case map[string]any:
			out = append(out, v["value"].(float64))
		case float64:
			out = append(out, v)
		}
	}
	return out
}

// The unit's denominator funnel: 10 → 8 → 7 → 5 at 1 s, with each drop's reason.
func TestFunnelUnitNumbers(t *testing.T) {
	s := metrics.Summarize(readTrace(t, "trace.jsonl"), metrics.Options{SLOsMS: []float64{1000, 500}})
	for i, want := range [][]float64{{10, 8, 7, 5}, {10, 8, 7, 4}} {
		m := decoded(t, tracefig.Funnel(s, i, charts.WithID("f")))
		if got := seriesValues(t, m, 0); !equal(got, want) {
			t.Errorf("condition %d: kept %v, want %v", i, got, want)
		}
		js, _ := json.Marshal(m)
		for _, reason := range []string{"超时 1", "连接失败 1", "质量不通过 1"} {
			if !strings.Contains(string(js), reason) {
				t.Errorf("condition %d: no reason %q", i, reason)
			}
		}
	}
	if js := string(option(t, tracefig.Funnel(s, 0, charts.WithID("f")))); !strings.Contains(js, "TTFT > 1 s：2") {
		t.Error("1 s funnel: TTFT drop reason missing")
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The sweep agrees with the unit: goodput 0.5/s and 4 元 per 1,000 at 1 s,
// 0.4/s and 5 元 at 0.5 s.
func TestSLOSweepUnitNumbers(t *testing.T) {
	m := decoded(t, tracefig.SLOSweep(readTrace(t, "trace.jsonl"), []float64{250, 750, 1500}, nil, charts.WithID("s")))
	series := m["series"].([]any)
	good := map[float64]float64{}
	for _, d := range series[0].(map[string]any)["data"].([]any) {
		v := d.(map[string]any)["value"].([]any)
		good[v[0].(float64)] = v[1].(float64)
	}
	cost := map[float64]any{}
	for _, d := range series[1].(map[string]any)["data"].([]any) {
		v := d.(map[string]any)["value"].([]any)
		cost[v[0].(float64)] = v[1]
	}
	if good[1000] != 0.5 || good[500] != 0.4 || cost[1000] != 4.0 || cost[500] != 5.0 {
		t.Errorf("goodput %v, cost %v", good, cost)
	}
	js, _ := json.Marshal(m)
	for _, want := range []string{`TTFT ≤ 1 s\n合格 5\n0.5 次/s\n4 元/千次`, `TTFT ≤ 500 ms\n合格 4\n0.4 次/s\n5 元/千次`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("mark %q missing", want)
		}
	}
}

// The TTFT distribution shows both P95s: 2000 ms by nearest-rank and
// 1720 ms by linear, from n = 8 successes.
func TestTTFTDistributionBothMethods(t *testing.T) {
	js := string(option(t, tracefig.TTFTDistribution(readTrace(t, "trace.jsonl"), charts.WithID("d"))))
	for _, want := range []string{"n = 8", "P95 最近秩 2000 ms", "P95 线性插值 1720 ms", "2 次尝试没有首个输出", "第 ⌈0.95×8⌉ = 8 个"} {
		if !strings.Contains(js, want) {
			t.Errorf("distribution lacks %q", want)
		}
	}
}

// Every attempt is a row, failures and in-flight included; a long trace
// scrolls instead of dropping rows.
func TestAttemptsKeepsEveryAttempt(t *testing.T) {
	unit := readTrace(t, "trace.jsonl")
	m := decoded(t, tracefig.Attempts(unit, 1000, charts.WithID("a")))
	ids := m["yAxis"].([]any)[0].(map[string]any)["data"].([]any)
	if len(ids) != 10 || ids[8] != "R9" || ids[9] != "R10" {
		t.Errorf("rows %v", ids)
	}
	js, _ := json.Marshal(m)
	for _, want := range []string{"首字前超时 · 2500 ms", "连接失败（无首字） · 3 ms", "TTFT 门槛 1 s", "质量不通过", "TTFT 超过门槛"} {
		if !strings.Contains(string(js), want) {
			t.Errorf("attempts chart lacks %q", want)
		}
	}
	if _, ok := m["dataZoom"]; ok {
		t.Error("10 attempts should fit without a slider")
	}

	practice := readTrace(t, "practice.jsonl")
	m = decoded(t, tracefig.Attempts(practice, 1000, charts.WithID("p")))
	if n := len(m["yAxis"].([]any)[0].(map[string]any)["data"].([]any)); n != len(practice.Attempts) {
		t.Errorf("practice: %d rows for %d attempts", n, len(practice.Attempts))
	}
	if _, ok := m["dataZoom"]; !ok {
		t.Error("practice: no slider")
	}
	js, _ = json.Marshal(m)
	if !strings.Contains(string(js), "在途（画到采集结束 97400 ms）") {
		t.Error("practice: in-flight attempts not drawn to the capture edge")
	}
}

// A failure has no TTFT: the timeline says it is missing, not 0; an
// in-flight attempt has no end.
func TestTimelineWithoutTTFTOrEnd(t *testing.T) {
	unit := readTrace(t, "trace.jsonl")
	js := string(option(t, tracefig.Timeline(&unit.Attempts[8], charts.WithID("r9"))))
	for _, want := range []string{"结果：首字前超时", "TTFT 缺失（不是 0）", "E2E = 2500 ms"} {
		if !strings.Contains(js, want) {
			t.Errorf("R9 timeline lacks %q", want)
		}
	}
	a := unit.Attempts[0]
	a.Outcome, a.HasEnd, a.EndMS = trace.InFlight, false, 0
	js = string(option(t, tracefig.Timeline(&a, charts.WithID("fly"))))
	if !strings.Contains(js, "在途：还没有结束，E2E 缺失") || strings.Contains(js, "t_end") {
		t.Error("in-flight timeline should have no end")
	}
}

// A failed attempt's tooltip explains its error in Chinese and keeps the
// trace's own text beside it.
func TestAttemptsTooltipExplainsTheError(t *testing.T) {
	opt := tracefig.Attempts(readTrace(t, "trace.jsonl"), 1000).RenderSnippet().Option
	for _, want := range []string{"连接被拒绝", "原文：connect: connection refused", "首字前超时：", "原文：no first token within 2500 ms"} {
		if !strings.Contains(opt, want) {
			t.Errorf("the attempts chart lacks %q", want)
		}
	}
}

// An attempt of 45,000 events draws a bounded timeline: every event a
// labelled point and a gap span made a 17 MB page and most of report's
// 198 MiB at --memory 16MiB. A sample of the events is drawn, and the
// subtitle says how many of how many; the sum of all gaps stays exact.
func TestTimelineBoundedEvents(t *testing.T) {
	a := trace.Attempt{ID: "big", Outcome: trace.OK, HasEnd: true}
	for i := range 45000 {
		a.Events = append(a.Events, trace.Event{TMS: 10 + float64(i)*0.5})
	}
	a.EndMS = 10 + 45000*0.5
	js := string(option(t, tracefig.Timeline(&a, charts.WithID("t"), charts.WithLang(lang.EN))))
	if len(js) > 512<<10 || !strings.Contains(js, " of 45000 events drawn") || !strings.Contains(js, "44999 event gaps") {
		t.Errorf("timeline of 45,000 events: %d bytes of option, want under 512 KiB, saying how many events are drawn and with the gaps' sum:\n%.600s", len(js), js)
	}
}

// The funnel's qualified share is printed as the card prints it (one
// formatter): 7/24 is 29.2 %, never 29.167 % beside a card's 29.2 %.
func TestFunnelShareAsTheCardPrintsIt(t *testing.T) {
	s := metrics.Summarize(readTrace(t, "trace.jsonl"), metrics.Options{SLOsMS: []float64{1000}})
	v := 7.0 / 24
	s.Conditions[0].QualifiedRate.Value = &v
	js := string(option(t, tracefig.Funnel(s, 0, charts.WithID("f"))))
	card := cardfmt.QualifiedTextIn(lang.ZH, s.Conditions[0])
	if !strings.Contains(card, "29.2%") || !strings.Contains(js, "= 29.2%") || strings.Contains(js, "29.167") {
		t.Errorf("card %q; funnel subtitle does not print its share the same way:\n%.600s", card, js)
	}
}

// The funnel's failure label splits http_error by status as the card does
// (cardfmt.OutcomeCountIn over the same summary).
func TestFunnelHTTPErrorsByStatus(t *testing.T) {
	fail := func(id string, status int) trace.Attempt {
		return trace.Attempt{ID: id, StartMS: 10, Outcome: trace.HTTPError, HTTPStatus: status, HasEnd: true, EndMS: 20}
	}
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{EndMS: 1000}},
		Attempts: []trace.Attempt{fail("a", 429), fail("b", 429), fail("c", 503)}}
	s := metrics.Summarize(tr, metrics.Options{})
	js := string(option(t, tracefig.Funnel(s, 0, charts.WithID("f"))))
	if want := cardfmt.OutcomeCountIn(lang.ZH, s, trace.HTTPError); want != "HTTP 错误 3（429 ×2、503 ×1）" || !strings.Contains(js, want) {
		t.Errorf("funnel lacks the card's %q:\n%s", want, js)
	}
}

// Two sweep points whose SLOs round to one text at 0.1 ms are told apart
// in their tooltips: each names its own threshold, and no two tooltips of
// the goodput line name the same SLO.
func TestSLOSweepTooltipsNameDistinctSLOs(t *testing.T) {
	slos := []float64{10.66, 10.74, 10.7, 250}
	m := decoded(t, tracefig.SLOSweep(readTrace(t, "trace.jsonl"), slos, nil, charts.WithID("s")))
	seen := map[string]float64{}
	for _, d := range m["series"].([]any)[0].(map[string]any)["data"].([]any) {
		p := d.(map[string]any)
		x := p["value"].([]any)[0].(float64)
		tip := fmt.Sprint(p["tooltip"].(map[string]any)["formatter"])
		slo, _, _ := strings.Cut(tip, "：")
		if prev, ok := seen[slo]; ok {
			t.Errorf("the points at %g ms and %g ms both say %q", prev, x, slo)
		}
		seen[slo] = x
	}
	for _, want := range []string{"TTFT ≤ 10.66 ms", "TTFT ≤ 10.74 ms", "TTFT ≤ 10.7 ms", "TTFT ≤ 250 ms"} {
		if _, ok := seen[want]; !ok {
			t.Errorf("no tooltip names %q: %v", want, seen)
		}
	}
}

// The sweep's grid takes two TTFTs equal but for float noise as one
// threshold, the larger (which every attempt at that TTFT meets); points
// closer than 1e-6 ms apart but not noise are named with every digit.
func TestSLOSweepGridAndCloseTexts(t *testing.T) {
	d := tracefig.DigestOf(readTrace(t, "trace.jsonl"))
	got := tracefig.SweepSLOs(d, []float64{11.728000000000065, 11.727999999999156, 20})
	if want := []float64{11.728000000000065, 20}; !slices.Equal(got, want) {
		t.Errorf("grid %v, want %v", got, want)
	}
	m := decoded(t, tracefig.SLOSweep(readTrace(t, "trace.jsonl"), []float64{10.1234561, 10.1234564}, nil, charts.WithID("s")))
	js, _ := json.Marshal(m)
	for _, want := range []string{"TTFT ≤ 10.1234561 ms", "TTFT ≤ 10.1234564 ms"} {
		if !strings.Contains(string(js), want) {
			t.Errorf("no tooltip names %q", want)
		}
	}
}

// A trace with a window cost but no currency: the sweep says "no currency
// recorded" once (the subtitle), not on every label, and its axis names,
// mark labels and subtitle lines are short enough to draw whole (walk 35:
// "6.25 (no currency recorded) per 1000 qualifie…" overlapped the next
// mark, the axis read "cost ((no currency recorded) per 1000", the
// subtitle was cut at the chart's edge). With a currency the labels name
// it with the per-1000 unit.
func TestSLOSweepCostLabelsShort(t *testing.T) {
	for _, c := range []struct {
		l        lang.Lang
		currency string
		note     string
		unit     string
	}{
		{lang.EN, "", "no currency recorded", "/1000 qualified"},
		{lang.ZH, "", "未记录币种", "/千次合格"},
		{lang.EN, "CNY", "", "CNY/1000 qualified"},
		{lang.ZH, "CNY", "", "元/千次合格"},
	} {
		tr := readTrace(t, "trace.jsonl")
		tr.Header.Currency = c.currency
		m := decoded(t, tracefig.SLOSweep(tr, nil, []float64{1000, 500}, charts.WithID("s"), charts.WithLang(c.l)))
		js, _ := json.Marshal(m)
		if c.note != "" {
			if n := strings.Count(string(js), c.note); n != 1 {
				t.Errorf("%v: %q said %d times, want once", c.l, c.note, n)
			}
		}
		if strings.Contains(string(js), "…") {
			t.Errorf("%v %q: a text is cut: %s", c.l, c.currency, js)
		}
		title := m["title"].(map[string]any)
		for _, line := range strings.Split(title["subtext"].(string), "\n") {
			if n := len([]rune(line)); n > 120 {
				t.Errorf("%v: subtitle line of %d runes: %q", c.l, n, line)
			}
		}
		if c.note != "" && !strings.Contains(title["subtext"].(string), c.note) {
			t.Errorf("%v: the subtitle does not say %q", c.l, c.note)
		}
		axis := m["yAxis"].([]any)[1].(map[string]any)["name"].(string)
		if n := len([]rune(axis)); n > 20 || !strings.Contains(axis, c.unit) {
			t.Errorf("%v: cost axis %q, want at most 20 runes with %q", c.l, axis, c.unit)
		}
		marks := m["series"].([]any)[0].(map[string]any)["markLine"].(map[string]any)["data"].([]any)
		for _, mk := range marks {
			name := mk.(map[string]any)["name"].(string)
			for _, line := range strings.Split(name, "\n") {
				if n := len([]rune(line)); n > 24 {
					t.Errorf("%v: mark label line of %d runes: %q", c.l, n, line)
				}
			}
			if !strings.Contains(name, c.unit) {
				t.Errorf("%v: mark label %q without the unit %q", c.l, name, c.unit)
			}
		}
	}
}

// The timeline speaks of one request, the card of the whole run (walk 35:
// the report's timeline said its gaps were ITL while the card of the same
// run said its event gaps were not): one token per event makes this
// request's gaps its token gaps, said as this request's, with the card's
// scope named; a request whose server counts more tokens than its events
// carry (end of sequence) is not said to have token gaps. The title has no
// course figure number (the notebook adds it, nb.Figure); zh and en.
func TestTimelineSpeaksOfThisRequest(t *testing.T) {
	tl := readTrace(t, "timeline.jsonl")
	a := tl.Attempts[0]
	for _, c := range []struct {
		l            lang.Lang
		title, scope string
		is, notAll   string
	}{
		{lang.ZH, "一次请求的客户端时间轴（", "整次运行", "这里的事件间隔就是它的 token 间隔（ITL）", "未必都是 token 间隔（ITL）"},
		{lang.EN, "Client timeline of one request (", "whole run", "its event gaps here are its token gaps (ITL)", "its gaps need not all be token gaps (ITL)"},
	} {
		m := decoded(t, tracefig.Timeline(&a, charts.WithID("t"), charts.WithLang(c.l)))
		title := m["title"].(map[string]any)
		if got := title["text"].(string); !strings.HasPrefix(got, c.title) {
			t.Errorf("%v title %q, want it to start %q (no figure number)", c.l, got, c.title)
		}
		sub := title["subtext"].(string)
		if !strings.Contains(sub, c.is) || !strings.Contains(sub, c.scope) || strings.Contains(sub, c.notAll) {
			t.Errorf("%v one token per event: subtitle %q", c.l, sub)
		}
		eos := a
		eos.OutputTokens = len(a.Events) + 1 // a token without text
		sub = decoded(t, tracefig.Timeline(&eos, charts.WithID("t"), charts.WithLang(c.l)))["title"].(map[string]any)["subtext"].(string)
		if strings.Contains(sub, c.is) || !strings.Contains(sub, c.notAll) {
			t.Errorf("%v server counts %d tokens for %d events: subtitle %q", c.l, eos.OutputTokens, len(a.Events), sub)
		}
	}
}

// The P95 marks and subtitle print the summary's P95 as the card prints it
// (numfmt.Num, the card's formatter): 1345.76, never 1345.8 beside a
// card's 1345.76 (walk 35f 4).
func TestTTFTDistributionP95AsTheCardPrintsIt(t *testing.T) {
	tr := readTrace(t, "trace.jsonl")
	for _, other := range []metrics.Method{"", metrics.Linear} {
		s := metrics.Summarize(tr, metrics.Options{OtherMethod: other})
		nr, lin := 1345.76, 1290.125
		s.TTFT.P95 = &nr
		if s.TTFTOther != nil {
			s.TTFTOther.P95 = &lin
		}
		for _, l := range []lang.Lang{lang.ZH, lang.EN} {
			js := string(option(t, tracefig.TTFTDistributionOf(tracefig.DigestOf(tr), s, charts.WithID("d"), charts.WithLang(l))))
			want := []string{"1345.76 ms"}
			if s.TTFTOther != nil {
				want = append(want, "1290.125 ms")
			}
			for _, w := range want {
				if n := strings.Count(js, w); n < 2 { // the mark and the subtitle
					t.Errorf("%s, other method %q: %q appears %d times, want the mark and the subtitle", l, other, w, n)
				}
			}
			if strings.Contains(js, "1345.8 ms") || strings.Contains(js, "1290.1 ms") {
				t.Errorf("%s, other method %q: a P95 rounded further than the card's", l, other)
			}
		}
	}
}

// The timeline's "E2E = TTFT + the sum of the gaps + last event to end"
// adds up as printed: every time at the card's precision (walk 35f 4: E2E
// 1079.7 = 393.1 + 686.5 + 0 at one decimal), or, where rounding at that
// precision still leaves the printed parts off their sum, it says so.
func TestTimelineSubtitleAddsUpAsPrinted(t *testing.T) {
	re := regexp.MustCompile(`E2E ([0-9.]+) = TTFT ([0-9.]+) \+ the sum of \d+ event gaps? ([0-9.]+) \+ last event to end ([0-9.]+) ms`)
	for _, c := range []struct {
		events  []float64
		end     float64
		rounded bool
	}{
		{[]float64{393.14, 1079.64}, 1079.68, false},
		{[]float64{100.0004, 200.0008}, 300.0012, true},
	} {
		a := trace.Attempt{ID: "q0", Outcome: trace.OK, HasEnd: true, EndMS: c.end}
		for _, e := range c.events {
			a.Events = append(a.Events, trace.Event{TMS: e, Tokens: 1})
		}
		js := string(option(t, tracefig.Timeline(&a, charts.WithID("t"), charts.WithLang(lang.EN))))
		m := re.FindStringSubmatch(js)
		if m == nil {
			t.Fatalf("no E2E sum in %.600s", js)
		}
		var x [4]float64
		for i := range x {
			x[i], _ = strconv.ParseFloat(m[i+1], 64)
		}
		// Two events, one gap: "1 event gap" (it read "1 event gaps").
		if !strings.Contains(m[0], "the sum of 1 event gap ") {
			t.Errorf("%q: want the sum of 1 event gap", m[0])
		}
		addsUp := math.Abs(x[1]+x[2]+x[3]-x[0]) < 1e-9
		said := strings.Contains(js, "each rounded to 0.001 ms")
		if addsUp == c.rounded || said != c.rounded {
			t.Errorf("%q: adds up as printed %v, says it is rounded %v; want the one or the other", m[0], addsUp, said)
		}
		last := fmt.Sprintf("t₂ = %s ms", strconv.FormatFloat(math.Round(c.events[1]*1000)/1000, 'f', -1, 64))
		if !strings.Contains(js, last) {
			t.Errorf("timeline lacks %q", last)
		}
	}
}
