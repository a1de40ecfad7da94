package capacity

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// stopFigures reads the figures of an overload reason ("overload: D
// completions in T s = …/s, 95% [lo, hi], …; in flight a → b (expected E,
// Z standard errors)"), "95 %" accepted so that the figures are compared
// whatever the percent's form.
var stopFigures = regexp.MustCompile(`overload: (\d+) completions in ([\d.]+) s = [\d.]+/s, 95 ?% \[([\d.]+), ([\d.]+)\], below the offered [\d.]+/s and the window's \d+ arrivals? \(completions fell behind\); offered − completed [-+][\d.]+/s, 95 ?% \[([-+][\d.]+), ([-+][\d.]+)\]; in flight (\d+) → (\d+) \(expected ([\d.]+), (-?[\d.]+) standard errors\)`)

// A step stopped early gives one set of evidence (walk 35c, item 1): the
// figures of its reason are those of its JSON load, read back from the
// JSON, not a second test recomputed from the trace after the stop. Before,
// the reason said in flight 3 → 51, 2.0 standard errors and the load 1.78
// standard errors, not overloaded.
func TestStoppedEarlyReasonIsItsLoad(t *testing.T) {
	s, _ := stoppedStep(t)
	if !s.StoppedEarly() {
		t.Fatalf("four times the saturation for 20 s: %s (%s), want stopped early on overload", s.Verdict, s.Reason)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Load *struct {
			WindowS     float64 `json:"window_s"`
			Completions int64   `json:"completions"`
			Start       int64   `json:"inflight_start"`
			End         int64   `json:"inflight_end"`
			Low         float64 `json:"completion_ci_low"`
			High        float64 `json:"completion_ci_high"`
			SlopeLow    float64 `json:"inflight_slope_ci_low"`
			SlopeHigh   float64 `json:"inflight_slope_ci_high"`
			Expected    float64 `json:"inflight_expected"`
			Z           float64 `json:"inflight_growth_z"`
			Overloaded  bool    `json:"overloaded"`
		} `json:"load"`
	}
	if err := json.Unmarshal(b, &j); err != nil || j.Load == nil {
		t.Fatalf("the step's JSON %s: load %v (%v)", b, j.Load, err)
	}
	checkStopFigures(t, s.Reason, j.Load.Completions, j.Load.Start, j.Load.End, j.Load.WindowS,
		[]float64{j.Load.Low, j.Load.High, j.Load.SlopeLow, j.Load.SlopeHigh}, j.Load.Expected, j.Load.Z)
	if !j.Load.Overloaded {
		t.Errorf("a step stopped early on overload, its load not overloaded: %s", b)
	}
	// One form of the percent across capacity's text, as the card's (95%).
	if strings.Contains(s.Reason, "95 %") {
		t.Errorf("reason %q writes 95 %%, the rest of the CLI 95%%", s.Reason)
	}
}

// checkStopFigures compares the figures of reason with a load's: counts
// exactly, the rest within the printed precision (bounds to two decimals,
// rounded outwards, and the expected level and z to one).
func checkStopFigures(t *testing.T, reason string, completions, start, end int64, windowS float64, bounds []float64, expected, z float64) {
	t.Helper()
	m := stopFigures.FindStringSubmatch(reason)
	if m == nil {
		t.Fatalf("reason %q: no overload figures", reason)
	}
	f := func(i int) float64 {
		v, err := strconv.ParseFloat(strings.TrimPrefix(m[i], "+"), 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if int64(f(1)) != completions || int64(f(7)) != start || int64(f(8)) != end {
		t.Errorf("reason: %s completions, in flight %s → %s; load: %d, %d → %d", m[1], m[7], m[8], completions, start, end)
	}
	near := func(name string, got, want, tol float64) {
		if math.Abs(got-want) > tol+1e-9 {
			t.Errorf("%s: the reason says %g, the load %g", name, got, want)
		}
	}
	near("window", f(2), windowS, 0.005)
	for i, name := range []string{"completion low", "completion high", "slope low", "slope high"} {
		near(name, f(3+i), bounds[i], 0.01)
	}
	near("expected in flight", f(9), expected, 0.05)
	near("growth z", f(10), z, 0.05)
}
