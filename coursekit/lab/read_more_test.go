package lab

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/trace"
)

// 07 asks for the queue in the window's first and last second and over the
// whole window by name, not by arithmetic on the trace header.
func TestQueueBySecondOfTheWindow(t *testing.T) {
	r := unitRun(t) // window 0–10000 ms; queue 0 at 100 ms, 3 at 1000 ms, 7 at 5000 ms
	r.Gauges = append(r.Gauges, labfig.Gauge{TMS: 999, QueueDepth: 2}, labfig.Gauge{TMS: 9500, QueueDepth: 5}, labfig.Gauge{TMS: 10000, QueueDepth: 9})
	if got := r.QueueFirstSecond(); got != 2 {
		t.Errorf("first second [0, 1000): %d, want 2 (the 3 at 1000 ms is the next second)", got)
	}
	if got := r.QueueLastSecond(); got != 5 {
		t.Errorf("last second [9000, 10000): %d, want 5 (the 9 at 10000 ms is after the window)", got)
	}
	if got := r.QueueWholeWindow(); got != 7 {
		t.Errorf("whole window: %d, want 7", got)
	}
}

func TestTimeoutsCountsOnlyTimeouts(t *testing.T) {
	// The unit's trace has one timeout (R9) and one connection error (R10).
	if got := unitRun(t).Timeouts(); got != 1 {
		t.Errorf("Timeouts = %d, want 1", got)
	}
}

func TestMetricsTextPrintsTheNamedSeries(t *testing.T) {
	r := unitRun(t)
	r.Metrics = "# HELP sim_queue_depth q\nsim_queue_depth 3\nsim_device_busy_ratio 0.98\nsim_queue_depth_max 9\n"
	if got, want := r.MetricsText("sim_device_busy_ratio", "sim_queue_depth"), "sim_queue_depth 3\nsim_device_busy_ratio 0.98\n"; got != want {
		t.Errorf("MetricsText = %q, want %q (scrape order, no help lines, no other series)", got, want)
	}
	if got := r.MetricsText("absent"); got != "" {
		t.Errorf("no such series: %q, want nothing", got)
	}
}

// With think time each user's cycle is W + Z: U / (W + Z), W the run's own.
func TestRateWithThinkIsUOverWPlusZ(t *testing.T) {
	r := unitRun(t)
	if got := r.RateWithThink(0.5); got != 0 {
		t.Errorf("an open-loop run has no closed-loop rate: %v", got)
	}
	r.Trace.Header.Conditions = json.RawMessage(`{"loop":"closed","concurrency":4}`)
	w, ok := r.MeanStayS()
	if !ok {
		t.Fatal("no mean stay on the unit's trace")
	}
	if got, want := r.RateWithThink(0.5), 4/(w+0.5); math.Abs(got-want) > 1e-12 {
		t.Errorf("RateWithThink(0.5) = %v, want 4 / (%v + 0.5) = %v", got, w, want)
	}
	if got, want := r.RateWithThink(0), 4/w; math.Abs(got-want) > 1e-12 {
		t.Errorf("RateWithThink(0) = %v, want U / W = %v", got, want)
	}
}

// 07 and 08 print and compare these by name, with no (value, ok) branch,
// no conversion and no index into a summary's conditions in their cells.
func TestReadingsByNameForLearnerCells(t *testing.T) {
	r := unitRun(t)
	if got := r.QualityFails(1000); got != 1 || got != r.Summary(1000).Conditions[0].NotQualified.QualityFail {
		t.Errorf("QualityFails(1000) = %d, want 1 (R5, the summary's count)", got)
	}
	w, _ := r.MeanStayS()
	if got, want := r.StayText(), "平均停留 W = "+numfmt.Fixed(w, 2)+" s"; got != want {
		t.Errorf("StayText = %q, want %q", got, want)
	}
	line := r.IdleRateLine(4, 12)
	for _, want := range []string{"4 个用户 ÷ 空载的平均停留 W " + numfmt.Fixed(w, 2) + " s = " + numfmt.Fixed(4/w, 1) + " 次/s", "计划的开环负载是 12 次/s"} {
		if !strings.Contains(line, want) {
			t.Errorf("IdleRateLine = %q; want %q in it", line, want)
		}
	}
	r.Gauges = []labfig.Gauge{{TMS: 300, Busy: 0.2}, {TMS: 900, Busy: 0.6}}
	r.Sent, r.Recorded = 5, 5
	if got, want := r.BusyRangeLine(), "设备忙碌率的读数在 20%–60% 之间（发出 5 次，全部记录：是）\n"; got != want {
		t.Errorf("BusyRangeLine = %q, want %q", got, want)
	}
	empty := &Run{Trace: &trace.Trace{}}
	if got := empty.StayText(); !strings.Contains(got, "没有") {
		t.Errorf("no attempt ended: StayText = %q; say there is no W", got)
	}
	if got := empty.IdleRateLine(4, 12); !strings.Contains(got, "没有") {
		t.Errorf("no attempt ended: IdleRateLine = %q; say there is no W", got)
	}
}
