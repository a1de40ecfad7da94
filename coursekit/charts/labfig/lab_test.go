package labfig_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// seriesPoints reads series i's [x, y] values; a gap ("-") reads as nil.
func seriesPoints(t testing.TB, m map[string]any, i int) [][2]any {
	t.Helper()
	var out [][2]any
	for _, d := range m["series"].([]any)[i].(map[string]any)["data"].([]any) {
		v := d.(map[string]any)["value"].([]any)
		p := [2]any{v[0], v[1]}
		if p[1] == "-" {
			p[1] = nil
		}
		out = append(out, p)
	}
	return out
}

func seriesNames(m map[string]any) []string {
	var names []string
	for _, s := range m["series"].([]any) {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	return names
}

func TestBins(t *testing.T) {
	tr := labTrace()
	bins := labfig.Bins(tr, 1000, cardopts.Flags{})
	if len(bins) != 3 {
		t.Fatalf("%d bins, want 3", len(bins))
	}
	for i, want := range []struct {
		attempts, failures int64
		p95                float64
	}{{2, 0, 200}, {2, 1, 800}, {2, 1, -1}} {
		b := bins[i]
		if b.FromMS != float64(i)*1000 || b.ToMS != float64(i+1)*1000 || b.WindowS != 1 {
			t.Errorf("bin %d: [%v, %v) %v s", i, b.FromMS, b.ToMS, b.WindowS)
		}
		if b.Attempts != want.attempts || b.Failures != want.failures {
			t.Errorf("bin %d: %d attempts, %d failures; want %d, %d", i, b.Attempts, b.Failures, want.attempts, want.failures)
		}
		switch {
		case want.p95 < 0 && b.TTFT.P95 != nil:
			t.Errorf("bin %d: P95 %v, want missing (no success)", i, *b.TTFT.P95)
		case want.p95 >= 0 && (b.TTFT.P95 == nil || *b.TTFT.P95 != want.p95):
			t.Errorf("bin %d: P95 %v, want %v", i, b.TTFT.P95, want.p95)
		}
	}
	// The bins add up to the whole window's card.
	all := metrics.Summarize(tr, metrics.Options{})
	var n int64
	for _, b := range bins {
		n += b.Attempts
	}
	if n != all.Attempts {
		t.Errorf("bins hold %d attempts, the window %d", n, all.Attempts)
	}
	// A window that is not a multiple of the bin ends in a shorter bin
	// (half-open: the attempt sent at 2500 ms is outside).
	tr.Header.Window.EndMS = 2500
	bins = labfig.Bins(tr, 1000, cardopts.Flags{})
	if len(bins) != 3 || bins[2].WindowS != 0.5 || bins[2].Attempts != 0 {
		t.Errorf("short last bin: %d bins, last %v s with %d attempts", len(bins), bins[len(bins)-1].WindowS, bins[len(bins)-1].Attempts)
	}
	if labfig.Bins(tr, 0, cardopts.Flags{}) != nil {
		t.Error("binMS 0 should give no bins")
	}
	tr.Header.Window.EndMS = 0
	if labfig.Bins(tr, 1000, cardopts.Flags{}) != nil {
		t.Error("an empty window should give no bins")
	}
}

func TestLabSendRate(t *testing.T) {
	open := labRun("开环")
	closed := labRun("闭环")
	closed.Trace.Attempts = closed.Trace.Attempts[:2] // two sends, both in the first second
	m := decoded(t, labfig.SendRate([]labfig.Run{closed, open}, 1000, 18, charts.WithID("rate")))
	if got := seriesNames(m); strings.Join(got, ",") != "闭环,开环" {
		t.Errorf("series %v", got)
	}
	// Per-second send rates, plus the closing point at the window end.
	want := [][2]any{{0.0, 2.0}, {1.0, 2.0}, {2.0, 2.0}, {3.0, 2.0}}
	if got := seriesPoints(t, m, 1); !equalPoints(got, want) {
		t.Errorf("open loop rates %v, want %v", got, want)
	}
	want = [][2]any{{0.0, 2.0}, {1.0, 0.0}, {2.0, 0.0}, {3.0, 0.0}}
	if got := seriesPoints(t, m, 0); !equalPoints(got, want) {
		t.Errorf("closed loop rates %v, want %v", got, want)
	}
	js := string(option(t, labfig.SendRate([]labfig.Run{closed, open}, 1000, 18, charts.WithID("rate"))))
	for _, s := range []string{"计划：18 次/s", "闭环：窗口内 2 次 / 3 s = 0.667 次/s", "开环：窗口内 6 次 / 3 s = 2 次/s"} {
		if !strings.Contains(js, s) {
			t.Errorf("send-rate chart lacks %q", s)
		}
	}
}

func TestLabQueue(t *testing.T) {
	m := decoded(t, labfig.Queue([]labfig.Run{labRun("开环")}, charts.WithID("q")))
	want := [][2]any{{0.0, 0.0}, {1.0, 3.0}, {2.0, 7.0}, {3.2, 2.0}}
	if got := seriesPoints(t, m, 0); !equalPoints(got, want) {
		t.Errorf("queue %v, want %v", got, want)
	}
	js, _ := json.Marshal(m)
	for _, s := range []string{"最高 7 个请求在排队（2 s 时）", "窗口结束，不再发新请求", "sim_queue_depth"} {
		if !strings.Contains(string(js), s) {
			t.Errorf("queue chart lacks %q", s)
		}
	}
	// Two runs on the same window share one mark; different windows get one each.
	a, b := labRun("甲"), labRun("乙")
	js = option(t, labfig.Queue([]labfig.Run{a, b}, charts.WithID("q")))
	if n := strings.Count(string(js), "窗口结束"); n != 1 {
		t.Errorf("same window: %d window-end marks, want 1", n)
	}
	b.Trace.Header.Window.EndMS = 2000
	js = option(t, labfig.Queue([]labfig.Run{a, b}, charts.WithID("q")))
	if !strings.Contains(string(js), "甲 窗口结束") || !strings.Contains(string(js), "乙 窗口结束") {
		t.Error("different windows: each run's end should be marked")
	}
	// No gauges: said, not drawn as zeros.
	r := labRun("空")
	r.Gauges = nil
	if js := string(option(t, labfig.Queue([]labfig.Run{r}, charts.WithID("q")))); !strings.Contains(js, "空：没有读数") {
		t.Error("a run without gauges is not called out")
	}
}

// A failure without a first output is drawn where the client gave up,
// never at TTFT 0; one that failed after its first output at its TTFT;
// an attempt in flight is not drawn.
func TestLabTTFTPlacesFailures(t *testing.T) {
	m := decoded(t, labfig.TTFT([]labfig.Run{labRun("开环")}, 2000, charts.WithID("ttft")))
	names := seriesNames(m)
	if strings.Join(names, ",") != "开环 · 完整成功,开环 · 失败（有首字）,开环 · 失败（无首字，画在放弃时刻）" {
		t.Fatalf("series %v", names)
	}
	if got, want := seriesPoints(t, m, 0), [][2]any{{0.0, 100.0}, {0.2, 200.0}, {1.0, 800.0}, {3.1, 50.0}}; !equalPoints(got, want) {
		t.Errorf("successes %v, want %v", got, want)
	}
	if got, want := seriesPoints(t, m, 1), [][2]any{{2.5, 300.0}}; !equalPoints(got, want) {
		t.Errorf("failures with a first output %v, want %v", got, want)
	}
	if got, want := seriesPoints(t, m, 2), [][2]any{{1.5, 2000.0}}; !equalPoints(got, want) {
		t.Errorf("failures without a first output %v, want %v", got, want)
	}
	js, _ := json.Marshal(m)
	for _, s := range []string{"超时 2 s", "TTFT 缺失", "失败 2/6（33.3%）；2 次尝试没有首字（TTFT 缺失，不是 0）", "成功 TTFT P95 800 ms（n = 3）"} {
		if !strings.Contains(string(js), s) {
			t.Errorf("TTFT chart lacks %q", s)
		}
	}
}

func TestLabBusyVsTTFT(t *testing.T) {
	m := decoded(t, labfig.BusyVsTTFT(labRun("开环"), 1000, charts.WithID("busy")))
	names := seriesNames(m)
	if len(names) != 3 || !strings.HasPrefix(names[0], "成功 TTFT P95") || !strings.HasPrefix(names[1], "设备忙碌率") || !strings.HasPrefix(names[2], "失败占比") {
		t.Fatalf("series %v", names)
	}
	// P95 per slice at the slice's middle; a slice with no success is a gap, not 0.
	if got, want := seriesPoints(t, m, 0), [][2]any{{0.5, 200.0}, {1.5, 800.0}, {2.5, nil}}; !equalPoints(got, want) {
		t.Errorf("P95 %v, want %v", got, want)
	}
	if got, want := seriesPoints(t, m, 1), [][2]any{{0.0, 20.0}, {1.0, 97.0}, {2.0, 100.0}, {3.2, 90.0}}; !equalPoints(got, want) {
		t.Errorf("busy %v, want %v", got, want)
	}
	if got, want := seriesPoints(t, m, 2), [][2]any{{0.5, 0.0}, {1.5, 50.0}, {2.5, 50.0}}; !equalPoints(got, want) {
		t.Errorf("failure share %v, want %v", got, want)
	}
	js, _ := json.Marshal(m)
	// The busy range covers the readings inside the window only (3.2 s is after it).
	for _, s := range []string{"窗口内设备忙碌率 20%–100%", "各段成功 TTFT P95 从 200 ms 到 800 ms，另有 1 段没有完整成功（P95 缺失，不画）", "全窗口失败 2/6（33.3%）", "sim_device_busy_ratio"} {
		if !strings.Contains(string(js), s) {
			t.Errorf("busy chart lacks %q", s)
		}
	}
	// A right axis in percent next to the left one in ms.
	if ys := m["yAxis"].([]any); len(ys) != 2 || ys[1].(map[string]any)["max"] != 100.0 {
		t.Errorf("y axes %v", ys)
	}
}

// Run names come from the notebook: escaped like any other label, and the
// chart ids can be fixed.
func TestLabChartsEscapeAndID(t *testing.T) {
	r := labRun(evil)
	for id, c := range map[string]chart{
		"rate":  labfig.SendRate([]labfig.Run{r}, 1000, 5, charts.WithID("rate")),
		"queue": labfig.Queue([]labfig.Run{r}, charts.WithID("queue")),
		"ttft":  labfig.TTFT([]labfig.Run{r}, 2000, charts.WithID("ttft")),
		"busy":  labfig.BusyVsTTFT(r, 1000, charts.WithID("busy")),
	} {
		snip := c.RenderSnippet()
		if !strings.Contains(snip.Element, `id="`+id+`"`) || !strings.Contains(snip.Element, "width:100%") {
			t.Errorf("%s: element %s", id, snip.Element)
		}
		if strings.Contains(snip.Option, "<img") || strings.Contains(snip.Option, "</script") {
			t.Errorf("%s: run name not escaped", id)
		}
		if !strings.Contains(snip.Option, "‹/script›") {
			t.Errorf("%s: run name missing", id)
		}
	}
}

func equalPoints(a, b [][2]any) bool {
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

// With no attempt missing its TTFT, the TTFT chart's subtitle says "缺失
// TTFT：无", never "0 次尝试没有首字（TTFT 缺失，不是 0）".
func TestLabTTFTNoneMissing(t *testing.T) {
	r := labRun("开环")
	r.Trace.Attempts = slices.DeleteFunc(r.Trace.Attempts, func(a trace.Attempt) bool { return len(a.Events) == 0 })
	js, _ := json.Marshal(decoded(t, labfig.TTFT([]labfig.Run{r}, 2000, charts.WithID("ttft"))))
	if s := string(js); !strings.Contains(s, "缺失 TTFT：无") || strings.Contains(s, "0 次尝试没有首字") {
		t.Errorf("TTFT chart with no missing TTFT: want 缺失 TTFT：无:\n%s", s)
	}
}
