package lab

import (
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Reading a run: every number below comes from the run's summary
// (coursekit/cardopts, as `coursekit card` reads a trace), or from the
// gauges as sampled.

// Summary is the run's card under the unit's definitions (nearest-rank,
// failures in every denominator) and the given TTFT SLOs.
func (r *Run) Summary(sloMS ...float64) *metrics.Summary {
	return cardopts.MustSummarize(r.Trace, cardopts.TTFT(sloMS...))
}

// SendRate is attempts sent per second of the window.
func (r *Run) SendRate() float64 {
	s := r.Summary()
	if s.WindowS == 0 {
		return 0
	}
	return float64(s.Attempts) / s.WindowS
}

// MeanStayS is the run's W for Little's law, in seconds: the mean time an
// attempt spent in the system (metrics.MeanStay), failures included. ok
// is false when no attempt ended.
func (r *Run) MeanStayS() (s float64, ok bool) {
	ms, n := metrics.MeanStay(r.Trace)
	return ms / 1000, n > 0
}

// Report is the run in three lines of Chinese: how much it sent, how many
// failed, and the TTFT and E2E of its complete successes.
func (r *Run) Report(sloMS float64) string {
	s := r.Summary(sloMS)
	var b strings.Builder
	fmt.Fprintf(&b, "%s：窗口 %s s 内发出 %d 次，即 %s 次/s\n", r.Label, cardfmt.Num(s.WindowS), s.Attempts, numfmt.OneDecimal(r.SendRate()))
	fmt.Fprintf(&b, "  完整成功 %d 次；失败率 %s\n", s.CompleteSuccess, cardfmt.RatioText(s.FailureRate))
	fmt.Fprintf(&b, "  成功 TTFT：P50 %s，P95 %s（%s，n = %d）；E2E P50 %s\n", msText(s.TTFT.P50), msText(s.TTFT.P95), cardfmt.MethodName(s.TTFT.Method), s.TTFT.N, msText(s.E2E.P50))
	return b.String()
}

// Gauge reads one of the sampled gauges.
type Gauge func(labfig.Gauge) float64

// The gauges a run samples.
var (
	Busy      Gauge = func(g labfig.Gauge) float64 { return g.Busy }
	Queue     Gauge = func(g labfig.Gauge) float64 { return float64(g.QueueDepth) }
	BatchSize Gauge = func(g labfig.Gauge) float64 { return float64(g.BatchSize) }
)

// GaugeRange is the lowest and highest reading of a gauge sampled in
// [fromMS, toMS) on the trace's clock; ok is false when no sample fell in it.
func (r *Run) GaugeRange(g Gauge, fromMS, toMS float64) (lo, hi float64, ok bool) {
	for _, x := range r.Gauges {
		if x.TMS < fromMS || x.TMS >= toMS {
			continue
		}
		v := g(x)
		if !ok {
			lo, hi, ok = v, v, true
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, ok
}

// GaugeSettleMS is how long after the window opens the busy ratio means
// anything: it averages over the server's BusyWindow, which starts empty.
const GaugeSettleMS = 200

// WindowBusy is the busy ratio's range over the run's window, from
// GaugeSettleMS after it opens.
func (r *Run) WindowBusy() (lo, hi float64, ok bool) {
	w := r.Trace.Header.Window
	return r.GaugeRange(Busy, w.StartMS+GaugeSettleMS, w.EndMS)
}

// MaxQueue is the deepest queue sampled in [fromMS, toMS).
func (r *Run) MaxQueue(fromMS, toMS float64) int {
	_, hi, _ := r.GaugeRange(Queue, fromMS, toMS)
	return int(hi)
}

// MetricLines are the lines of the /metrics scrape for the named series
// (e.g. "sim_device_busy_ratio"), in scrape order: what a dashboard read.
func (r *Run) MetricLines(names ...string) []string {
	var out []string
	for _, line := range strings.Split(r.Metrics, "\n") {
		for _, n := range names {
			if strings.HasPrefix(line, n+" ") || strings.HasPrefix(line, n+"{") {
				out = append(out, line)
			}
		}
	}
	return out
}

// FailureSplit counts the in-window failures that ended before any output
// arrived (their TTFT is missing) and those that ended after the first
// output (their TTFT is known but the answer never completed).
func FailureSplit(t *trace.Trace) (beforeFirst, afterFirst int) {
	for i := range t.Attempts {
		a := &t.Attempts[i]
		if a.Outcome == trace.OK || a.Outcome == trace.InFlight || !t.Header.Window.Contains(a.StartMS) {
			continue
		}
		if len(a.Events) == 0 {
			beforeFirst++
		} else {
			afterFirst++
		}
	}
	return beforeFirst, afterFirst
}

func msText(v *float64) string {
	if v == nil {
		return "缺失"
	}
	return numfmt.MS(*v) + " " + numfmt.UnitMS
}
