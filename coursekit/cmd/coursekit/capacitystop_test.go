package main

import (
	"bytes"
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/lang"
)

// A search whose one step is far over the simulator's saturation (4×, so
// it stops early on overload) and then ends: --resolution spans the rates
// below it.
func stoppedEarlySearch(t *testing.T, addr string, args ...string) (capacity.Step, *capacity.Result, string, string, string) {
	t.Helper()
	dir := t.TempDir()
	chart := filepath.Join(dir, "capacity.html")
	all := append([]string{"capacity", "--url", "http://" + addr, "--max-tokens", "16", "--slo-ttft", "60s", "--slo-e2e", "60s", "--timeout", "60s",
		"--start-rate", "125", "--max-rate", "400", "--resolution", "125", "--warmup", "500ms", "--step-duration", "20s", "--step-max-duration", "20s",
		"--out", filepath.Join(dir, "steps"), "--chart", chart}, args...)
	code, stdout, stderr := runCLI(t, all...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	res := &capacity.Result{}
	if strings.Contains(strings.Join(args, " "), "json") {
		if err := json.Unmarshal([]byte(stdout), res); err != nil { // stdout holds the JSON alone
			t.Fatalf("stdout is not the search's JSON (%v):\n%s", err, stdout)
		}
		if len(res.Steps) != 1 || !res.Steps[0].StoppedEarly() || res.Steps[0].InFlight == 0 {
			t.Fatalf("want one step stopped early with attempts cut off: %+v", res.Steps)
		}
		return res.Steps[0], res, stdout, stderr, html.UnescapeString(string(page))
	}
	return capacity.Step{}, nil, stdout, stderr, html.UnescapeString(string(page))
}

// reasonFigures reads an overload reason's figures ("95 %" accepted, so
// that the figures are compared whatever the percent's form).
var reasonFigures = regexp.MustCompile(`overload: (\d+) completions in ([\d.]+) s = [\d.]+/s, 95 ?% \[([\d.]+), ([\d.]+)\], below the offered [\d.]+/s and the window's \d+ arrivals? \(completions fell behind\); offered − completed [-+][\d.]+/s, 95 ?% \[([-+][\d.]+), ([-+][\d.]+)\]; in flight (\d+) → (\d+) \(expected ([\d.]+), (-?[\d.]+) standard errors\)`)

// Walk 35c: a step stopped early gave two sets of evidence (its reason
// from the watch, its JSON load recomputed from the trace: z 2.0 against
// 1.78, not overloaded), its stderr line hid the attempts the stop cut off
// ("463/463 qualified" where the card said 463 / 514), and capacity was
// silent while a step ran. Now the JSON load is the test in the reason,
// figure for figure; every place that prints the step's counts (stderr,
// the text table, the chart's tooltip and page, zh and en) says the
// attempts cut off beside them; stderr has a line as each run starts,
// stdout the JSON alone.
func TestCapacityStoppedEarlyOneEvidence(t *testing.T) {
	t.Parallel()
	addr := startSimCLI(t, "--max-batch", "1", "--decode-step", "2ms", "--decode-per-seq", "0", "--prefill-per-token", "0", "--max-tokens", "16")
	s, res, _, stderr, page := stoppedEarlySearch(t, addr, "--format", "json", "--lang", "en")

	// 1. The reason's figures are the JSON load's.
	if s.Load == nil || !s.Load.Overloaded {
		t.Fatalf("step stopped early with load %+v", s.Load)
	}
	m := reasonFigures.FindStringSubmatch(s.Reason)
	if m == nil {
		t.Fatalf("reason %q: no overload figures", s.Reason)
	}
	f := func(i int) float64 {
		v, err := strconv.ParseFloat(strings.TrimPrefix(m[i], "+"), 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	l := s.Load
	if int64(f(1)) != l.Completions || int64(f(7)) != l.InFlightStart || int64(f(8)) != l.InFlightEnd {
		t.Errorf("reason: %s completions, in flight %s → %s; JSON load: %d, %d → %d", m[1], m[7], m[8], l.Completions, l.InFlightStart, l.InFlightEnd)
	}
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{{"window", f(2), l.WindowS, 0.005}, {"completion low", f(3), l.CompletionLow, 0.01}, {"completion high", f(4), l.CompletionHigh, 0.01},
		{"slope low", f(5), l.SlopeLow, 0.01}, {"slope high", f(6), l.SlopeHigh, 0.01},
		{"expected in flight", f(9), l.ExpectedInFlight, 0.05}, {"growth z", f(10), l.GrowthZ, 0.05}} {
		if math.Abs(c.got-c.want) > c.tol+1e-9 {
			t.Errorf("%s: the reason says %g, the JSON load %g", c.name, c.got, c.want)
		}
	}
	if strings.Contains(s.Reason, "95 %") {
		t.Errorf("reason %q: 95 %%, where the CLI writes 95%%", s.Reason)
	}

	// 2. The attempts cut off, beside the counts wherever they are printed.
	cutEN := cardfmt.CapacityCutOffIn(lang.EN, true, s.InFlight)
	cutZH := cardfmt.CapacityCutOffIn(lang.ZH, true, s.InFlight)
	if !strings.Contains(cutEN, strconv.FormatInt(s.InFlight, 10)+" in flight") {
		t.Fatalf("cut-off phrase %q", cutEN)
	}
	counts := func(q, a int64, sep string) string { return strconv.FormatInt(q, 10) + sep + strconv.FormatInt(a, 10) }
	views := map[string]string{
		"stderr (en)": stderr, "chart (en)": page,
		"text (en)": capacityTextIn(lang.EN, res), "text (zh)": capacityTextIn(lang.ZH, res),
	}
	for name, lg := range map[string]lang.Lang{"chart page (zh)": lang.ZH, "chart page (en)": lang.EN} {
		var b bytes.Buffer
		if err := labfig.WriteCapacityPage(&b, lab.CapacityChart(res), lg); err != nil {
			t.Fatal(err)
		}
		views[name] = html.UnescapeString(b.String())
	}
	for name, v := range views {
		cut, sep := cutEN, " / "
		if strings.Contains(name, "zh") {
			cut = cutZH
		}
		if name == "stderr (en)" {
			sep = "/"
		}
		if !strings.Contains(v, counts(s.Qualified, s.Attempts, sep)+" qualified"+cut) && !strings.Contains(v, counts(s.Qualified, s.Attempts, sep)+" 合格"+cut) {
			t.Errorf("%s: the counts %s lack the attempts cut off %q:\n%s", name, counts(s.Qualified, s.Attempts, sep), cut, v)
		}
	}
	// The chart's tooltip (in the page's options) too.
	if strings.Count(page, cutEN) < 2 {
		t.Errorf("chart (en): %q is not in both the tooltip and the text", cutEN)
	}

	// 3. Progress on stderr: a line as the run starts, in --lang.
	if !strings.Contains(stderr, "coursekit capacity: run 1 of the search starts: 125 req/s, window 20 s (the step's first run)") {
		t.Errorf("stderr lacks the run's start:\n%s", stderr)
	}
}

// The same in Chinese: the stderr step line and run line, the text table
// on stdout and the chart page.
func TestCapacityStoppedEarlyZH(t *testing.T) {
	t.Parallel()
	addr := startSimCLI(t, "--max-batch", "1", "--decode-step", "2ms", "--decode-per-seq", "0", "--prefill-per-token", "0", "--max-tokens", "16")
	_, _, stdout, stderr, page := stoppedEarlySearch(t, addr, "--lang", "zh")
	t.Logf("stderr:\n%s\nstdout:\n%s", stderr, stdout)
	cut := regexp.MustCompile(`(\d+) / (\d+) 合格（另有 (\d+) 次在途，提前停止时被截断，不计入）`)
	for name, v := range map[string]string{"stderr": stderr, "text": stdout, "chart": page} {
		if !cut.MatchString(v) {
			t.Errorf("%s: no counts with the attempts cut off beside them:\n%s", name, v)
		}
	}
	if !strings.Contains(stderr, "容量搜索第 1 次压测开始：125 次/s，窗口 20 s（这一步的第一次）") {
		t.Errorf("stderr lacks the run's start:\n%s", stderr)
	}
	if strings.Contains(stdout, "容量搜索第") {
		t.Errorf("progress on stdout:\n%s", stdout)
	}
}
