package lab

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/sim"
)

// Quality in the lab (notebook 08): the same load twice, against a
// simulator that answers arith questions right, then one that gets a
// fraction of them wrong. The server's busy gauge and the TTFT hardly move;
// the quality pass rate and the goodput drop. Every number is read from the
// run's trace (metrics.Summarize) or from its sampled gauges.

// WithWrongAnswers is the lab with a simulator that answers the given
// fraction of arith questions wrong on purpose (sim.Config.WrongAnswerRate,
// seeded: the same runs give the same wrong answers).
func (l Lab) WithWrongAnswers(rate float64) Lab {
	l.Server.WrongAnswerRate = rate
	return l
}

// QualityLabServer is notebook 08's simulated engine: at most 4 sequences
// in a decode step, 60 ms a step with one sequence and 5 ms more for each
// further one, and a busy gauge over the last 0.5 s. seed picks which
// questions a WithWrongAnswers run answers wrong.
func QualityLabServer(seed uint64) sim.Config {
	return sim.Config{
		MaxBatch:     4,
		DecodeStep:   60 * time.Millisecond,
		DecodePerSeq: 5 * time.Millisecond,
		Seed:         seed,
		BusyWindow:   500 * time.Millisecond,
	}
}

// WithOverloadWrongAnswers is the lab with a simulator that answers the
// given fraction of the arith questions that arrive while every batch slot
// is taken wrong (sim.Config.OverloadWrongAnswerRate): a server that
// answers worse under overload.
func (l Lab) WithOverloadWrongAnswers(rate float64) Lab {
	l.Server.OverloadWrongAnswerRate = rate
	return l
}

// ArithLoad is an open-loop load of the built-in arith questions, each
// answer judged during the run: ratePerS Poisson arrivals (seeded) for
// window, each attempt bounded by timeout.
func ArithLoad(ratePerS float64, window, timeout time.Duration, seed uint64) loadgen.Config {
	return loadgen.Config{Rate: ratePerS, Arrival: loadgen.Poisson, Duration: window, Timeout: timeout,
		MaxTokens: 8, Seed: seed, Dataset: dataset.Arith(seed, dataset.ArithSize)}
}

// Goodput is the run's goodput under a TTFT SLO: jointly qualified
// attempts per second of the window.
func (r *Run) Goodput(sloMS float64) float64 {
	return r.Summary(sloMS).Conditions[0].GoodputPerS
}

// GoodputShare is run b's goodput as a fraction of run a's, under the
// same SLO; ok is false when a's goodput is 0.
func GoodputShare(a, b *Run, sloMS float64) (share float64, ok bool) {
	ga := a.Goodput(sloMS)
	if ga == 0 {
		return 0, false
	}
	return b.Goodput(sloMS) / ga, true
}

// BusyApart is how far apart two runs' mean busy readings are, as a share
// (0.1 = 10 points), and false when either has no reading: 08 asks whether
// it exceeds 10 points.
func BusyApart(a, b *Run) (float64, bool) {
	x, okA := a.MeanBusy()
	y, okB := b.MeanBusy()
	return math.Abs(x - y), okA && okB
}

// MeanBusy is the average busy-gauge reading over the run's window, from
// GaugeSettleMS after it opens; ok is false without a reading.
func (r *Run) MeanBusy() (float64, bool) {
	w := r.Trace.Header.Window
	sum, n := 0.0, 0
	for _, g := range r.Gauges {
		if g.TMS >= w.StartMS+GaugeSettleMS && g.TMS < w.EndMS {
			sum, n = sum+g.Busy, n+1
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// ChangedBy reports whether b differs from a by more than frac of a (both
// must be known): "does this number move?" asked with a tolerance, since
// timings on a shared machine are never exactly the same twice.
func ChangedBy(a, b *float64, frac float64) bool {
	if a == nil || b == nil {
		return a != b
	}
	return math.Abs(*b-*a) > frac*math.Abs(*a)
}

// QualityReport is the run in four lines of Chinese: load, latency and
// busy gauge, quality, goodput.
func (r *Run) QualityReport(sloMS float64) string {
	s := r.Summary(sloMS)
	c := s.Conditions[0]
	var b strings.Builder
	fmt.Fprintf(&b, "%s：窗口 %s s 内发出 %d 次，完整成功 %d 次，失败率 %s\n", r.Label, cardfmt.Num(s.WindowS), s.Attempts, s.CompleteSuccess, cardfmt.RatioText(s.FailureRate))
	busy := "没有读数"
	if v, ok := r.MeanBusy(); ok {
		busy = numfmt.Pct(v)
	}
	fmt.Fprintf(&b, "  成功 TTFT：P50 %s，P95 %s（%s，n = %d）；窗口内设备忙碌率平均 %s\n", msText(s.TTFT.P50), msText(s.TTFT.P95), cardfmt.MethodName(s.TTFT.Method), s.TTFT.N, busy)
	fmt.Fprintf(&b, "  质量通过率：%s；未评分的完整成功 %d 次\n", cardfmt.RatioText(s.QualityPassRate), s.UnratedSuccesses)
	fmt.Fprintf(&b, "  goodput（TTFT ≤ %s ms）：%s\n", cardfmt.Num(sloMS), cardfmt.GoodputTextIn(lang.ZH, c))
	return b.String()
}

// goodputCell is a condition's goodput to one decimal, or unknown when
// nothing was rated.
func goodputCell(c metrics.Condition) string {
	if c.Unknown != "" {
		return cardfmt.UnknownUnrated.In(lang.ZH)
	}
	return numfmt.OneDecimal(c.GoodputPerS) + " 次/s"
}

// QualityTable is the runs side by side, one row each, for nb.Table: what
// a dashboard shows (busy gauge, TTFT) beside what only a judge can tell
// (quality pass rate, goodput), with the complete successes and the
// failure rate 08 compares first.
func QualityTable(sloMS float64, runs ...*Run) [][]string {
	rows := [][]string{{"运行", "设备忙碌率（窗口平均）", "成功 TTFT P95", "完整成功", "失败率", "质量通过率", "goodput"}}
	for _, r := range runs {
		s := r.Summary(sloMS)
		busy := "没有读数"
		if v, ok := r.MeanBusy(); ok {
			busy = numfmt.Pct(v)
		}
		rows = append(rows, []string{r.Label, busy, msText(s.TTFT.P95) + fmt.Sprintf("（n = %d）", s.TTFT.N),
			fmt.Sprintf("%d / %d", s.CompleteSuccess, s.Attempts), cardfmt.RatioText(s.FailureRate), cardfmt.RatioText(s.QualityPassRate),
			goodputCell(s.Conditions[0])})
	}
	return rows
}
