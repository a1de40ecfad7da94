package lab

import (
	"fmt"
	"time"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/sim"
)

// Open vs closed loop in the lab (notebook 07): the same nominal load sent
// by users who wait and by a schedule that does not, against a simulator
// small enough to be overloaded within seconds. The engine's settings and
// the tables live here, so that the notebook's cells hold the experiment.

// LoopLabServer is notebook 07's simulated engine: at most 4 sequences in
// a decode step, 10 ms a step with one sequence and 2 ms more for each
// further one, 32-token answers, and a busy gauge over the last 0.5 s, as
// a GPU-utilisation panel reads it. It serves fewer than 8 answers a
// second (SimSaturation), so 12 a second overloads it and 6 do not.
func LoopLabServer() sim.Config {
	return sim.Config{
		MaxBatch:         4,
		DecodeStep:       10 * time.Millisecond,
		DecodePerSeq:     2 * time.Millisecond,
		DefaultMaxTokens: 32,
		Seed:             7,
		BusyWindow:       500 * time.Millisecond,
	}
}

// BusyTable is the runs side by side, one row each, for nb.Table: what a
// dashboard shows (the busy gauge's range over the window, the deepest
// queue) beside what the users met (the TTFT P95 of complete successes,
// the failure rate over every attempt).
func BusyTable(runs ...*Run) [][]string {
	rows := [][]string{{"运行", "窗口内设备忙碌率", "最多排队", "成功 TTFT P95", "失败率"}}
	for _, r := range runs {
		w := r.Trace.Header.Window
		busy := "没有读数"
		if lo, hi, ok := r.WindowBusy(); ok {
			busy = numfmt.Fixed(lo*100, 0) + "%–" + numfmt.Fixed(hi*100, 0) + "%"
		}
		s := r.Summary()
		rows = append(rows, []string{r.Label, busy, fmt.Sprintf("%d 个", r.MaxQueue(w.StartMS, w.EndMS)),
			fmt.Sprintf("%s（n = %d）", msText(s.TTFT.P95), s.TTFT.N), cardfmt.RatioText(s.FailureRate)})
	}
	return rows
}

// VLLMTable reads one run three ways, for nb.Table: as vLLM's benchmark
// summarises it (completed requests only, linear interpolation), as the
// percentiles of its ttfts column taken as they stand (failures with no
// first chunk as 0.0, a common misreading), and as the course's card
// (every attempt in the denominators, nearest rank).
func VLLMTable(r *Run) [][]string {
	v := metrics.VLLMSummarize(r.Trace)
	c := r.Summary()
	perS := func(n float64) string {
		if c.WindowS == 0 {
			return "缺失"
		}
		return numfmt.Fixed(n/c.WindowS, 1)
	}
	return [][]string{
		{"指标", "vLLM 口径（只用成功，线性插值）", "直接对 ttfts 列取分位（线性插值）", "课程卡（保留失败，最近秩）"},
		{"样本", fmt.Sprintf("completed = %d", v.Completed), fmt.Sprintf("%d 个值", v.TTFTColumn.N), fmt.Sprintf("尝试 %d 次，完整成功 %d 次", c.Attempts, c.CompleteSuccess)},
		{"失败", fmt.Sprintf("failed = %d，不进分位数", v.Failed), "混在样本里：有首字的照记，没首字的是 0.0", cardfmt.RatioText(c.FailureRate)},
		{"TTFT P50", msText(v.TTFT.P50), msText(v.TTFTColumn.P50), msText(c.TTFT.P50)},
		{"TTFT P95", msText(v.TTFT.P95), msText(v.TTFTColumn.P95), msText(c.TTFT.P95)},
		{"TTFT P99", msText(v.TTFT.P99), msText(v.TTFTColumn.P99), msText(c.TTFT.P99)},
		{"每秒", fmt.Sprintf("completed / duration = %d / %s s = %s 次/s", v.Completed, numfmt.Fixed(v.DurationS, 2), numfmt.Fixed(v.RequestThroughput, 2)), "",
			fmt.Sprintf("窗口 %s s：尝试 %s 次/s，完整成功 %s 次/s", cardfmt.Num(c.WindowS), perS(float64(c.Attempts)), perS(float64(c.CompleteSuccess)))},
	}
}
