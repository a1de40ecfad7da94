package labfig_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/web"
)

func fp(v float64) *float64 { return &v }

// capacitySearch is four steps, in the order a search visits them (grow,
// then bisect), with a model name from a hostile server.
func capacitySearch() labfig.CapacitySearch {
	return labfig.CapacitySearch{
		Target: 0.9, SLOTTFTMS: 1000, Model: evil + "{a}__f__x__f__", MaxRateMeeting: fp(40), ElapsedS: 61.24,
		Steps: []labfig.CapacityStep{
			{Rate: 20, Attempts: 40, Qualified: 40, Attainment: fp(1), CILow: fp(0.9124), CIHigh: fp(1), Verdict: "meets", WindowS: 2, GoodputPerS: 20, P95TTFTMS: fp(120.44), BusyMean: fp(0.31)},
			{Rate: 80, Attempts: 50, Qualified: 15, Attainment: fp(0.3), CILow: fp(0.1908), CIHigh: fp(0.4387), Verdict: "fails", StoppedEarly: true, WindowS: 1.5, GoodputPerS: 10, P95TTFTMS: fp(2400), BusyMean: fp(0.995)},
			{Rate: 40, Attempts: 80, Qualified: 78, Attainment: fp(0.975), CILow: fp(0.9134), CIHigh: fp(0.9931), Verdict: "meets", WindowS: 2, Extended: 1, GoodputPerS: 39, P95TTFTMS: fp(300)},
			{Rate: 60, Attempts: 0, Verdict: "undecided", WindowS: 2},
		},
	}
}

// The attainment figure: steps by rate, each point its attainment in %
// coloured and labelled by its verdict, each Wilson interval a box around
// its rate (on a series of the midpoints that draws nothing), the target
// and the answer as lines, and the busy share with gaps where the server
// gave none.
func TestCapacityAttainment(t *testing.T) {
	m := decoded(t, labfig.CapacityAttainment(capacitySearch(), charts.WithID("c")))
	if got := strings.Join(seriesNames(m), ","); got != "95% Wilson 区间,联合合格率,设备忙碌率" {
		t.Fatalf("series %s", got)
	}
	want := map[int][][2]any{
		0: {{20.0, 95.62}, {40.0, 95.33}, {60.0, nil}, {80.0, 31.48}},
		1: {{20.0, 100.0}, {40.0, 97.5}, {60.0, nil}, {80.0, 30.0}},
		2: {{20.0, 31.0}, {40.0, nil}, {60.0, nil}, {80.0, 99.5}},
	}
	for i, w := range want {
		if got := seriesPoints(t, m, i); !equalPoints(got, w) {
			t.Errorf("series %d: %v, want %v", i, got, w)
		}
	}
	series := m["series"].([]any)
	// Boxes 0.6 % of the highest rate (80) either side: ±0.48.
	var boxes [][4]float64
	for _, b := range series[0].(map[string]any)["markArea"].(map[string]any)["data"].([]any) {
		lo, hi := b.([]any)[0].(map[string]any)["coord"].([]any), b.([]any)[1].(map[string]any)["coord"].([]any)
		boxes = append(boxes, [4]float64{lo[0].(float64), lo[1].(float64), hi[0].(float64), hi[1].(float64)})
	}
	wantBoxes := [][4]float64{{19.52, 91.24, 20.48, 100}, {39.52, 91.34, 40.48, 99.31}, {79.52, 19.08, 80.48, 43.87}}
	if len(boxes) != len(wantBoxes) {
		t.Fatalf("interval boxes %v, want %v", boxes, wantBoxes)
	}
	for i, b := range boxes {
		for j := range b {
			if math.Abs(b[j]-wantBoxes[i][j]) > 1e-9 {
				t.Errorf("box %d: %v, want %v", i, b, wantBoxes[i])
				break
			}
		}
	}
	// No permanent label on any point (labels of close steps overlapped
	// each other and the target's): the colour is the verdict, explained
	// once in the subtitle, and the tooltip says the rest.
	att := series[1].(map[string]any)
	for i, w := range []struct{ color, symbol string }{{"#3ba272", "circle"}, {"#3ba272", "circle"}, {"#e0a000", "circle"}, {"#d93b3b", "circle"}} {
		d := att["data"].([]any)[i].(map[string]any)
		if l, ok := d["label"].(map[string]any); ok && l["show"] == true {
			t.Errorf("point %d has a shown label %v", i, l)
		}
		if c := d["itemStyle"].(map[string]any)["color"]; c != w.color {
			t.Errorf("point %d colour %v, want %s", i, c, w.color)
		}
		if sym := d["symbol"]; sym != w.symbol {
			t.Errorf("point %d symbol %v, want %s", i, sym, w.symbol)
		}
	}
	if tip := att["data"].([]any)[3].(map[string]any)["tooltip"].(map[string]any)["formatter"].(string); !strings.Contains(tip, "→ 不达标") || !strings.Contains(tip, "提前停止") {
		t.Errorf("overloaded step's tooltip %q lacks its verdict and the early stop", tip)
	}
	// The key names the verdicts drawn (60 req/s, without attempts, is
	// not), and no triangle when no step was late.
	sub := m["title"].(map[string]any)["subtext"].(string)
	if !strings.Contains(strings.ReplaceAll(sub, "\n", ""), "点的颜色是判定：绿色 达标，红色 不达标（悬停看每一步的详情）") || strings.Contains(sub, "三角形") {
		t.Errorf("subtitle key: %q", sub)
	}
	tip := att["data"].([]any)[1].(map[string]any)["tooltip"].(map[string]any)["formatter"]
	if tip != "40 次/s：78 / 80 合格 = 97.5%，95% Wilson 区间 [91.3%，99.3%] → 达标（窗口 2 s，延长一次）" {
		t.Errorf("tooltip %v", tip)
	}
	marks := att["markLine"].(map[string]any)["data"].([]any)
	if len(marks) != 2 || marks[0].(map[string]any)["yAxis"] != 90.0 || marks[1].(map[string]any)["xAxis"] != 40.0 {
		t.Errorf("mark lines %v, want the target at 90 and the answer at 40", marks)
	}
	// No busy reading anywhere: no busy series.
	r := capacitySearch()
	for i := range r.Steps {
		r.Steps[i].BusyMean = nil
	}
	if got := strings.Join(seriesNames(decoded(t, labfig.CapacityAttainment(r))), ","); got != "95% Wilson 区间,联合合格率" {
		t.Errorf("without busy readings: series %s", got)
	}
}

// The load figure: goodput and the offered rate on the left axis, P95
// TTFT on the right with the SLO as a line.
func TestCapacityLoad(t *testing.T) {
	m := decoded(t, labfig.CapacityLoad(capacitySearch(), charts.WithID("l")))
	if got := strings.Join(seriesNames(m), ","); got != "goodput（合格次/s）,提供的速率,P95 TTFT（ms）" {
		t.Fatalf("series %s", got)
	}
	for i, w := range [][][2]any{
		{{20.0, 20.0}, {40.0, 39.0}, {60.0, nil}, {80.0, 10.0}}, // 60: no attempt, no goodput (not 0)
		{{20.0, 20.0}, {40.0, 40.0}, {60.0, 60.0}, {80.0, 80.0}},
		{{20.0, 120.4}, {40.0, 300.0}, {60.0, nil}, {80.0, 2400.0}},
	} {
		if got := seriesPoints(t, m, i); !equalPoints(got, w) {
			t.Errorf("series %d: %v, want %v", i, got, w)
		}
	}
	for _, c := range []struct {
		lg   lang.Lang
		want string
	}{
		{lang.ZH, "60 次/s（尚无定论）：窗口里没有尝试，没有 goodput，不画点（缺失不是 0）"},
		{lang.EN, "60 req/s (undecided): no attempt in the window, so no goodput and no point drawn (missing is not 0)"},
	} {
		lm := decoded(t, labfig.CapacityLoad(capacitySearch(), charts.WithID("l"), charts.WithLang(c.lg)))
		sub := strings.ReplaceAll(lm["title"].(map[string]any)["subtext"].(string), "\n", "")
		if !strings.Contains(sub, c.want) {
			t.Errorf("%s load subtitle %q lacks %q", c.lg, sub, c.want)
		}
	}
	// An interrupted step is named so; with every step attempted, no such line.
	r := capacitySearch()
	r.Steps[3].Verdict = "interrupted"
	if sub := decoded(t, labfig.CapacityLoad(r, charts.WithLang(lang.EN)))["title"].(map[string]any)["subtext"].(string); !strings.Contains(sub, "60 req/s (interrupted)") {
		t.Errorf("interrupted step not named: %q", sub)
	}
	r.Steps = r.Steps[:3]
	if sub := decoded(t, labfig.CapacityLoad(r))["title"].(map[string]any)["subtext"].(string); strings.Contains(sub, "没有尝试") {
		t.Errorf("every step attempted, yet: %q", sub)
	}
	p95 := m["series"].([]any)[2].(map[string]any)
	if p95["yAxisIndex"] != 1.0 {
		t.Errorf("P95 on axis %v, want the right one", p95["yAxisIndex"])
	}
	if marks := p95["markLine"].(map[string]any)["data"].([]any); marks[0].(map[string]any)["yAxis"] != 1000.0 {
		t.Errorf("SLO line %v", marks)
	}
}

// The page is offline and a hostile model name reaches it only escaped.
func TestCapacityPageEscapes(t *testing.T) {
	var page bytes.Buffer
	if err := labfig.WriteCapacityPage(&page, capacitySearch(), lang.ZH); err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(page.String(), web.InlineEChartsScript(), "<script></script>", 1)
	if body == page.String() {
		t.Fatal("page does not inline ECharts")
	}
	r := capacitySearch()
	r.Latency = metrics.LatencySLO{E2EMS: 3000, TPOTMS: 40}
	page.Reset()
	if err := labfig.WriteCapacityPage(&page, r, lang.ZH); err != nil {
		t.Fatal(err)
	}
	body = strings.Replace(page.String(), web.InlineEChartsScript(), "<script></script>", 1)
	if !strings.Contains(body, "联合合格（完整成功 ∧ TTFT ≤ 1 s ∧ E2E ≤ 3 s ∧ TPOT ≤ 40 ms/token；逐次判定；未评质量：只按时延判定）") {
		t.Errorf("the rule is not shown whole:\n%.2000s", body)
	}
	for _, bad := range []string{"<img", "onerror=alert(1)>", "{a}", "__f__"} {
		if strings.Contains(body, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if strings.Count(body, "</script>") != strings.Count(body, "<script") {
		t.Errorf("%d </script> for %d <script", strings.Count(body, "</script>"), strings.Count(body, "<script"))
	}
	for _, want := range []string{"‹/script›‹img src=x onerror=alert(1)›", "结论：达标的最高速率 40 次/s（联合合格 97.5%，区间 [91.3%，99.3%]）", "共 4 步，用时 61.2 s", "80 次/s：15 / 50 合格，不达标；设备忙碌率 99.5%", `id="capacity_attainment"`, `id="capacity_load"`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if scriptSrc.MatchString(body) {
		t.Error("page loads a script from a src")
	}
	for name, c := range map[string]web.Chart{"attainment": labfig.CapacityAttainment(capacitySearch()), "load": labfig.CapacityLoad(capacitySearch())} {
		out, err := web.NotebookOutput(c)
		if err != nil {
			t.Fatal(err)
		}
		if raw := out.Data[web.MIMEType].(string); strings.Contains(raw, "function") {
			t.Errorf("%s: option mentions a function", name)
		}
	}
}

// capacity --lang en --chart: the page, both figures (titles, axes,
// legends, marks, labels, tooltips) and the steps' lines are English,
// from the same zh/en pairs as the Chinese page; only the inlined ECharts
// library is left out of the check. A search that met every step up to
// its limit says "≥" in both.
func TestCapacityPageEnglish(t *testing.T) {
	r := capacitySearch()
	r.Latency, r.Judged = metrics.LatencySLO{E2EMS: 3000}, true
	r.Model = "smollm2"
	var page bytes.Buffer
	if err := labfig.WriteCapacityPage(&page, r, lang.EN); err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(page.String(), web.InlineEChartsScript(), "", 1)
	if i, c := lang.FirstCJK(body); i >= 0 {
		t.Errorf("%q in the English capacity page: …%s…", c, body[max(0, i-200):min(len(body), i+100)])
	}
	for _, want := range []string{`<html lang="en">`, "Capacity search", "Answer: the highest rate that meets the target is 40 req/s (qualified 97.5%, interval [91.3%, 99.3%])",
		"complete success ∧ quality pass ∧ TTFT ≤ 1 s ∧ E2E ≤ 3 s", "80 req/s: 15 / 50 qualified, fails; device busy share 99.5%", "→ fails (window 1.5 s, not extended); the queue kept growing, stopped early", "offered rate (req/s, open-loop Poisson)", "target 90%", "answer 40 req/s"} {
		if !strings.Contains(body, want) {
			t.Errorf("English capacity page lacks %q", want)
		}
	}
	r.AtLeast = true
	page.Reset()
	if err := labfig.WriteCapacityPage(&page, r, lang.EN); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "capacity ≥ 40 req/s (the search's limit; no rate failed)") || !strings.Contains(page.String(), "answer ≥ 40 req/s (the search's limit)") {
		t.Error("an answer bounded by the search's limit does not say ≥ in English")
	}
}

// A model name with bidi overrides and isolates (U+202E, U+2066) reaches the capacity chart's
// subtitle and the steps' tooltips escaped, never raw: they would reorder what follows.
func TestCapacityChartTextHasNoRawBidi(t *testing.T) {
	r := capacitySearch()
	r.Model = "m\u202eevil\u2066x"
	for name, c := range map[string]web.Chart{"attainment": labfig.CapacityAttainment(r), "load": labfig.CapacityLoad(r)} {
		html := web.ChartHTML(c.RenderSnippet())
		if strings.ContainsAny(html, "\u202e\u2066") {
			t.Errorf("%s chart keeps a bidi character raw", name)
		}
	}
	var page bytes.Buffer
	if err := labfig.WriteCapacityPage(&page, r, lang.ZH); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(page.String(), "\u202e\u2066") {
		t.Error("capacity page keeps a bidi character raw")
	}
}

// A step during which the client was late (its wake-up lag over the bound,
// or its send lag P99 over metrics.SendLagBoundMS, as the search's summary
// recorded them) says so on the chart, as a triangle explained once in the
// subtitle and in the point's tooltip, and in the page's step lines, in the
// page's language; a step on time does not.
func TestCapacityChartSaysTheClientWasLate(t *testing.T) {
	r := capacitySearch()
	r.Model = "m"
	r.Steps[0].ClientLag = &metrics.ClientLag{Attempts: 40, OverBound: 6, BoundMS: metrics.ClientLagBoundMS, MaxMS: 131.2}
	r.Steps[1].SendLagP99MS = fp(metrics.SendLagBoundMS + 40)
	r.Steps[2].ClientLag = &metrics.ClientLag{Attempts: 80, BoundMS: metrics.ClientLagBoundMS, MaxMS: 1}
	for _, c := range []struct {
		lg         lang.Lang
		wake, send string
		label      string
	}{
		{lang.ZH, "客户端唤醒延迟超过 5 ms 的尝试 6 次（最大 131.2 ms）", "发送延迟 P99", "三角形"},
		{lang.EN, "client wake-up lag over 5 ms in 6 attempts (at most 131.2 ms)", "send lag P99", "triangle"},
	} {
		var page bytes.Buffer
		if err := labfig.WriteCapacityPage(&page, r, c.lg); err != nil {
			t.Fatal(err)
		}
		body := strings.Replace(page.String(), web.InlineEChartsScript(), "", 1)
		for _, want := range []string{c.wake, c.send, c.label} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: the capacity page lacks %q", c.lg, want)
			}
		}
		if n := strings.Count(body, c.wake); n < 2 {
			t.Errorf("%s: the wake-up lag appears %d times, want the tooltip and the step line", c.lg, n)
		}
		m := decoded(t, labfig.CapacityAttainment(r, charts.WithID("c"), charts.WithLang(c.lg)))
		var late []int
		for i, p := range m["series"].([]any)[1].(map[string]any)["data"].([]any) {
			if p.(map[string]any)["symbol"] == "triangle" {
				late = append(late, i)
				if tip := fmt.Sprint(p.(map[string]any)["tooltip"]); !strings.Contains(tip, c.send) && !strings.Contains(tip, c.wake) {
					t.Errorf("%s: late point %d's tooltip %s says nothing of the lateness", c.lg, i, tip)
				} else if n := strings.Count(tip, lateHead[c.lg]); n != 1 {
					// Walk 35k: "客户端迟到：客户端迟到：".
					t.Errorf("%s: late point %d's tooltip names the lateness %d times, want once: %s", c.lg, i, n, tip)
				}
			}
		}
		// By rate: 20 (late wake-up), 40 (on time), 60, 80 (late send).
		if fmt.Sprint(late) != "[0 3]" {
			t.Errorf("%s: triangles at points %v, want the 2 late steps [0 3]", c.lg, late)
		}
		if sub := m["title"].(map[string]any)["subtext"].(string); strings.Count(sub, c.label) != 1 {
			t.Errorf("%s: subtitle %q explains the triangle %d times, want once", c.lg, sub, strings.Count(sub, c.label))
		}
	}
}

// lateHead is how a step's lateness names itself in each language
// (cardfmt.CapacityLatenessIn).
var lateHead = map[lang.Lang]string{lang.ZH: "客户端迟到", lang.EN: "client late"}
