package lab

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/sim"
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

// LittleRate is the closed loop's arrival rate as Little's law sees it:
// completed cycles over the time they took. Every user starts at the
// window's opening and resends the moment an attempt ends, so the users'
// last attempts are the latest ends, and each user's cycles span from the
// opening to its last end; the rate is users × cycles ÷ the users' summed
// spans. SendRate counts sends in the window instead, which the start-up
// edge inflates (every user sends at t = 0, so a user sends ⌈window ÷ W⌉
// times, up to one cycle more than window ÷ W). ok is false for an open
// loop, or when no attempt ended.
func (r *Run) LittleRate() (perS float64, ok bool) {
	users := r.users()
	if users == 0 {
		return 0, false
	}
	return r.littleRate(users)
}

// CycleRate is LittleRate as a plain number, 0 when there is none: what 07
// compares a learner's λ = U / W with (U users).
func (r *Run) CycleRate() float64 {
	v, _ := r.LittleRate()
	return v
}

// ConfigCycleRate is the closed loop's cycle rate as the simulator's
// config alone predicts it: each of the U users' answers takes max_tokens
// decode steps of a batch of n = min(U, MaxBatch) sequences (DecodeStep +
// (n − 1) × DecodePerSeq), so n answers end every max_tokens steps. It
// leaves out the prefill, the client's and HTTP's overhead and the
// start-up edge, so it is above the measured CycleRate. 0 for an open
// loop or a config without a step time.
func (r *Run) ConfigCycleRate(cfg sim.Config) float64 {
	users := r.users()
	var c struct {
		MaxTokens int `json:"max_tokens"`
	}
	_ = json.Unmarshal(r.Trace.Header.Conditions, &c)
	return configCycleRate(cfg, users, cmp.Or(c.MaxTokens, cfg.DefaultMaxTokens))
}

func configCycleRate(cfg sim.Config, users, maxTokens int) float64 {
	n := users
	if cfg.MaxBatch > 0 && n > cfg.MaxBatch {
		n = cfg.MaxBatch
	}
	step := cfg.DecodeStep + time.Duration(max(n-1, 0))*cfg.DecodePerSeq
	if n == 0 || maxTokens <= 0 || step <= 0 {
		return 0
	}
	return float64(n) / (float64(maxTokens) * step.Seconds())
}

// LittleLines is 07's reading of Little's law for a closed run, in Chinese:
// U ÷ W from the run's mean stay, the cycle rate it predicts, and the
// window's send rate with why it is higher.
func (r *Run) LittleLines() string {
	w, ok := r.MeanStayS()
	rate, ok2 := r.LittleRate()
	if !ok || !ok2 {
		return "这次运行没有结束的闭环尝试，算不出 Little 定律的到达率\n"
	}
	n := r.users()
	var b strings.Builder
	fmt.Fprintf(&b, "Little 定律：%d 个用户 ÷ 负载下的平均停留 W %s s = %s 次/s\n", n, numfmt.Fixed(w, 2), numfmt.Fixed(float64(n)/w, 1))
	fmt.Fprintf(&b, "实测：完成的循环数 ÷ 这些循环占用的时间 = %s 次/s（闭环的到达率由服务的快慢决定）\n", numfmt.Fixed(rate, 1))
	fmt.Fprintf(&b, "窗口里发出的次数 ÷ 窗口长度 = %s 次/s：开窗时 %d 个用户同时发出，窗口边上多算了不到一个循环，所以偏高\n", numfmt.Fixed(r.SendRate(), 1), n)
	return b.String()
}

func (r *Run) littleRate(users int) (perS float64, ok bool) {
	w := r.Trace.Header.Window
	var ends []float64
	for i := range r.Trace.Attempts {
		a := &r.Trace.Attempts[i]
		if a.HasEnd && w.Contains(a.StartMS) {
			ends = append(ends, a.EndMS)
		}
	}
	if len(ends) < users {
		return 0, false
	}
	slices.Sort(ends)
	span := 0.0
	for _, e := range ends[len(ends)-users:] {
		span += e - w.StartMS
	}
	if span <= 0 {
		return 0, false
	}
	return float64(users) * float64(len(ends)) / (span / 1000), true
}

// users is the closed loop's user count from the trace's conditions, 0 for
// an open loop.
func (r *Run) users() int {
	var c struct {
		Loop        string `json:"loop"`
		Concurrency int    `json:"concurrency"`
	}
	if json.Unmarshal(r.Trace.Header.Conditions, &c) != nil || c.Loop != "closed" {
		return 0
	}
	return c.Concurrency
}

// Report is the run in three lines of Chinese: how much it sent, how many
// failed, and the TTFT and E2E of its complete successes; a fourth says
// what its prompts could reuse of the engine's cache, for an engine run
// whose conditions say it in words (withPrefixReuse).
func (r *Run) Report(sloMS float64) string {
	s := r.Summary(sloMS)
	var b strings.Builder
	fmt.Fprintf(&b, "%s：窗口 %s s 内发出 %d 次，即 %s 次/s\n", r.Label, cardfmt.Num(s.WindowS), s.Attempts, numfmt.OneDecimal(r.SendRate()))
	fmt.Fprintf(&b, "  完整成功 %d 次；失败率 %s\n", s.CompleteSuccess, cardfmt.RatioText(s.FailureRate))
	fmt.Fprintf(&b, "  成功 TTFT：P50 %s，P95 %s（%s，n = %d）；E2E P50 %s\n", msText(s.TTFT.P50), msText(s.TTFT.P95), cardfmt.MethodName(s.TTFT.Method), s.TTFT.N, msText(s.E2E.P50))
	var c struct {
		PrefixReuse string `json:"prefix_reuse"`
	}
	if r.Engine != nil && json.Unmarshal(r.Trace.Header.Conditions, &c) == nil && c.PrefixReuse != "" {
		fmt.Fprintf(&b, "  前缀复用（conditions.prefix_reuse）：%s\n", c.PrefixReuse)
	}
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

// QueueFirstSecond is the deepest queue sampled in the window's first
// second: where 07 sees whether the open loop's queue grows.
func (r *Run) QueueFirstSecond() int {
	w := r.Trace.Header.Window
	return r.MaxQueue(w.StartMS, w.StartMS+1000)
}

// QueueLastSecond is the deepest queue sampled in the window's last second.
func (r *Run) QueueLastSecond() int {
	w := r.Trace.Header.Window
	return r.MaxQueue(w.EndMS-1000, w.EndMS)
}

// QueueWholeWindow is the deepest queue sampled anywhere in the window.
func (r *Run) QueueWholeWindow() int {
	w := r.Trace.Header.Window
	return r.MaxQueue(w.StartMS, w.EndMS)
}

// Timeouts counts the run's attempts that timed out (the card's outcome
// count, window as the card has it).
func (r *Run) Timeouts() int {
	return r.Summary().Outcomes[trace.Timeout.String()]
}

// MetricsText is MetricLines as text to print, a line each.
func (r *Run) MetricsText(names ...string) string {
	lines := r.MetricLines(names...)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// RateWithThink is the closed loop's rate λ = U / (W + Z) had each of its
// U users thought thinkS seconds between attempts, with W held at this
// run's mean stay: 07's exercise on think time. 0 for an open loop or when
// no attempt ended.
func (r *Run) RateWithThink(thinkS float64) float64 {
	w, ok := r.MeanStayS()
	if u := r.users(); ok && u > 0 && w+thinkS > 0 {
		return float64(u) / (w + thinkS)
	}
	return 0
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

// QualityFails is how many attempts of the run missed the qualified count
// at the TTFT SLO because their answer failed the quality check: 08's
// exercise reads it by name, not by indexing the summary's conditions.
func (r *Run) QualityFails(sloMS float64) int64 {
	return r.Summary(sloMS).Conditions[0].NotQualified.QualityFail
}

// StayText is the run's mean stay W in Chinese, or why there is none (no
// attempt ended), so that a cell prints it without a (value, ok) branch.
func (r *Run) StayText() string {
	w, ok := r.MeanStayS()
	if !ok {
		return "没有一次尝试结束，没有平均停留 W"
	}
	return "平均停留 W = " + numfmt.Fixed(w, 2) + " s"
}

// IdleRateLine is 07's usual conversion from an idle run, in Chinese: the
// closed loop's users over the idle run's mean stay, beside the open
// loop's planned rate. It is the figure 07 warns about (it assumes latency
// does not grow with load), printed so that the prediction can be set
// against it.
func (r *Run) IdleRateLine(users int, plannedPerS float64) string {
	w, ok := r.MeanStayS()
	if !ok || w <= 0 {
		return "换算不了：空载运行里没有一次尝试结束，没有平均停留 W\n"
	}
	return fmt.Sprintf("换算：%d 个用户 ÷ 空载的平均停留 W %s s = %s 次/s，计划的开环负载是 %s 次/s\n",
		users, numfmt.Fixed(w, 2), numfmt.Fixed(float64(users)/w, 1), numfmt.Exact(plannedPerS))
}

// BusyRangeLine is the busy ratio's range over the window (WindowBusy) in
// Chinese, with whether every attempt sent was recorded.
func (r *Run) BusyRangeLine() string {
	all := "否"
	if r.Sent == r.Recorded {
		all = "是"
	}
	lo, hi, ok := r.WindowBusy()
	if !ok {
		return fmt.Sprintf("窗口里没有设备忙碌率的读数（发出 %d 次，全部记录：%s）\n", r.Sent, all)
	}
	return fmt.Sprintf("设备忙碌率的读数在 %s%%–%s%% 之间（发出 %d 次，全部记录：%s）\n", numfmt.Fixed(lo*100, 0), numfmt.Fixed(hi*100, 0), r.Sent, all)
}

// FailureSplitLine is FailureSplit in one line of Chinese: the window's
// failures, those after the first output and those without any, and what
// each reading makes of the latter (the card: missing; vLLM's ttfts: 0.0).
func FailureSplitLine(t *trace.Trace) string {
	before, after := FailureSplit(t)
	return fmt.Sprintf("窗口内失败 %d 次：拿到首字之后才失败的 %d 次，一个输出都没拿到的 %d 次（课程卡记为缺失，vLLM 的 ttfts 里是 0.0）\n", before+after, after, before)
}
