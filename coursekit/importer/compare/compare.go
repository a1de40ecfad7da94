// Package compare prints a benchmark tool's own numbers beside the card
// recomputed from the imported trace, one row per number with the reason
// the two can differ (failures dropped, linear percentiles, per-request ITL
// averages), as `coursekit import` shows it on stderr.
package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/importer"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// ours holds the recomputed samples of the in-window complete successes,
// the same samples the card reads.
type ours struct {
	card    *metrics.Summary
	samples map[string][]float64 // ttft_ms, e2e_ms, itl_ms (per event), tpot_ms, schedule_lag_ms, ttft_any_ms; sorted
	// okSpanMS is the first send to the last end of the in-window complete
	// successes (0 without any): the span a tool that leaves failed
	// records out of its duration measures.
	okSpanMS float64
	// eventGaps is whether any attempt of the trace, whatever its outcome
	// or start, has two events or more: whether the file held per-event
	// times at all (guidellm's and llmperf's hold only the first token's).
	eventGaps bool
}

// ttftAny is the TTFT of the in-window complete successes and of the
// failures (cancelled and unfinished left out) that got a first event:
// guidellm 0.8.1's "total" TTFT, recomputed from the trace.
const ttftAny = "ttft_any_ms"

func recompute(tr *trace.Trace, card *metrics.Summary) ours {
	o := ours{card: card, samples: map[string][]float64{}}
	first, last := math.Inf(1), math.Inf(-1)
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		o.eventGaps = o.eventGaps || len(a.Events) > 1
		// The lag behind the schedule concerns every send, failures included.
		var m struct {
			Scheduled *float64 `json:"scheduled_ms"`
		}
		if len(a.Meta) > 0 && json.Unmarshal(a.Meta, &m) == nil && m.Scheduled != nil {
			o.samples["schedule_lag_ms"] = append(o.samples["schedule_lag_ms"], a.StartMS-*m.Scheduled)
		}
		if !tr.Header.Window.Contains(a.StartMS) {
			continue
		}
		if t, ok := a.TTFT(); ok && a.Outcome != trace.Cancelled && a.Outcome != trace.InFlight {
			o.samples[ttftAny] = append(o.samples[ttftAny], t)
		}
		if a.Outcome != trace.OK {
			continue
		}
		ttft, _ := a.TTFT()
		e2e, _ := a.E2E()
		first, last = min(first, a.StartMS), max(last, a.StartMS+e2e)
		o.samples["ttft_ms"] = append(o.samples["ttft_ms"], ttft)
		o.samples["e2e_ms"] = append(o.samples["e2e_ms"], e2e)
		o.samples["itl_ms"] = a.EventIntervals(o.samples["itl_ms"])
		if t, ok := a.TPOT(); ok {
			o.samples["tpot_ms"] = append(o.samples["tpot_ms"], t)
		}
	}
	for _, x := range o.samples {
		sort.Float64s(x)
	}
	if last > first {
		o.okSpanMS = last - first
	}
	return o
}

// value computes stat (mean, median, std, pNN) of our samples of metric
// under method m; ok is false when we have no such sample.
func (o ours) value(metric, stat string, level float64, hasLevel bool, m metrics.Method) (float64, bool) {
	x := o.samples[metric]
	if len(x) == 0 {
		return 0, false
	}
	switch {
	case hasLevel:
		return metrics.Quantile(x, level, m)
	case stat == "mean":
		t := 0.0
		for _, v := range x {
			t += v
		}
		return t / float64(len(x)), true
	case stat == "std": // population, as numpy's np.std
		mu, _ := o.value(metric, "mean", 0, false, m)
		t := 0.0
		for _, v := range x {
			t += (v - mu) * (v - mu)
		}
		return math.Sqrt(t / float64(len(x))), true
	case stat == "min":
		return x[0], true
	case stat == "max":
		return x[len(x)-1], true
	}
	return 0, false
}

// fmtNum is a number as the card writes it, at most three decimals
// (numfmt.Num).
func fmtNum(v float64) string { return numfmt.Num(v) }

// colNum is a measured value in the table's tool and ours columns: exactly
// three decimals, the card's precision, so both sides of a row read at one
// precision (70.746 beside 70.750, never 70.75: walk 35f 4). A count stays
// whole (fmtNum) and a number that is not finite reads as fmtNum has it.
func colNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmtNum(v)
	}
	return numfmt.Fixed(v, 3)
}

// whyDiffers says in a few words why the tool's number and ours can differ.
func whyDiffers(tool string, rep *importer.Report, st importer.Stat, hasLevel bool) lang.Msg {
	metric := st.Metric
	switch {
	case metric == importer.GuidellmTotalFirstToken:
		return lang.Msg{"guidellm 的 total：成功 + 收到首个输出的出错请求，其余不计；我们：同一批尝试（指标口径卡的 TTFT 只含完整成功）", "guidellm's total: successes + errored requests that got a first token, the others left out; ours: the same attempts (the card's TTFT is over complete successes)"}
	case metric == importer.GuidellmTotalZero:
		return lang.Msg{"工具把失败的 TTFT 记为 0；我们：缺失", "the tool counts failures' TTFT as 0; ours: missing"}
	case metric == importer.GuidellmTotal:
		return lang.Msg{"这一块的个数既不等于成功 + 收到首个输出的出错请求，也不等于全部请求", "the block's count matches neither the successes + errored with a first token nor every request"}
	case metric == importer.MetricInterChunk && hasLevel:
		return lang.Msg{"同样的逐事件间隔：numpy 线性插值 vs 最近秩", "the same per-event gaps: numpy linear vs nearest-rank"}
	case metric == importer.MetricInterChunk:
		return lang.Msg{"同样的逐事件间隔", "the same per-event gaps"}
	case tool == "aiperf" && (metric == "completed" || metric == "failed"):
		return lang.Msg{"AIPerf 0.13 把含畸形 SSE 消息的流算作成功（vLLM、guidellm、coursekit bench 判它失败）", "AIPerf 0.13 counts a stream with a malformed SSE message as a success (vLLM, guidellm, coursekit bench fail it)"}
	case strings.HasPrefix(metric, "guidellm_tpot"):
		return lang.Msg{"guidellm 的 TPOT 含 TTFT；不可比", "guidellm's TPOT includes TTFT; not comparable"}
	case strings.Contains(metric, "invalid"):
		return lang.Msg{"llmperf 的 ITL 是含 TTFT 的时间除以块数；不是 ITL", "llmperf's ITL includes TTFT over chunk count; not an ITL"}
	case metric == "itl_ms" && tool == "inference-perf":
		return lang.Msg{"工具：逐 token，同一块内为 0；我们：逐事件", "tool: per token, 0 inside a chunk; ours: per event"}
	case metric == "schedule_lag_ms":
		return lang.Msg{"实际发送 − 计划发送，覆盖每次发送（含失败）；我们取自 meta.scheduled_ms", "start − scheduled over every send, failures included; ours from meta.scheduled_ms"}
	case metric == "goodput_percentage":
		return lang.Msg{"工具：合格 / 成功；我们：失败也在分母里", "tool: good / successes; ours: failures in the denominator"}
	case metric == "tpot_ms" && tool == "inference-perf":
		return lang.Msg{"工具：（末 token − 首 token）/（N − 1），客户端计的 token 数", "tool: (last − first token)/(N − 1), client token count"}
	case metric == "itl_ms" && tool != "vllm":
		return lang.Msg{"工具：每个请求内逐 token 的平均；我们：逐事件", "tool: per-request average per token; ours: per event"}
	case tool == "guidellm" && metric == "failed":
		return lang.Msg{"只含该次运行的 errored；我们：列出的 errored + incomplete（取消）", "the run's errored only; ours: listed errored + incomplete (cancelled)"}
	case tool == "guidellm" && (metric == "completed" || metric == "attempts"):
		return lang.Msg{"该次运行的总数；trace 只含列出的（可能是抽样的）请求", "the run's totals; the trace holds the listed (maybe sampled) requests"}
	case metric == "request_goodput":
		return lang.Msg{"文件里没有工具的 SLO；我们：指标口径卡的第一个条件，失败也计入", "tool's SLOs are not in the file; ours: the card's first condition, failures count"}
	case st.Stat == "std" && tool == "aiperf":
		return lang.Msg{"两者都是总体标准差（同 np.std），基于同一批成功", "both population std (as np.std), over the same successes"}
	case hasLevel && strings.HasPrefix(rep.PercentileMethod, "linear"):
		return lang.Msg{"线性插值 vs 最近秩（同一批成功）", "linear interpolation vs nearest-rank (same successes)"}
	case hasLevel:
		return lang.Msg{"逆 CDF vs 最近秩", "inverse CDF vs nearest-rank"}
	}
	return noNote
}

// noNote is the zero Msg: no note on this row.
var noNote lang.Msg

// Write prints the comparison of rep's numbers with card, the summary of
// tr (coursekit/cardopts), and the samples of tr that a tool's mean or
// standard deviation needs: src names the tool's file and dest where the
// trace went ("stdout" or a path).
func Write(w io.Writer, l lang.Lang, rep *importer.Report, tr *trace.Trace, card *metrics.Summary, src, dest string) {
	o := recompute(tr, card)
	c := o.card
	fmt.Fprint(w, l.F(lang.Msg{"coursekit import：%s，布局 %s，第 %d / %d 次运行：%s 次尝试（%d 次失败）写到 %s\n", "coursekit import: %s, layout %s, run %d of %d: %s (%d failed) written to %s\n"},
		rep.Tool, Shown(l, rep.Layout), rep.Run, rep.Runs, lang.N(l, rep.Attempts, "attempt", "attempts"), rep.Failures, dest))
	if rep.Summary != "" {
		fmt.Fprint(w, l.F(lang.Msg{"\n%s 自己的数字（来自 %s）与从 trace 重算的指标口径卡并排\n", "\n%s's own numbers (from %s) beside the card recomputed from the trace\n"}, rep.Tool, rep.Summary))
	} else {
		fmt.Fprint(w, l.F(lang.Msg{"\n%s 自己的数字与从 trace 重算的指标口径卡并排\n", "\n%s's own numbers beside the card recomputed from the trace\n"}, rep.Tool))
	}
	fmt.Fprint(w, l.F(lang.Msg{"（我们：失败留在分母里，时延只算完整成功，ITL 逐事件；工具的分位数：%s）\n\n", "(ours: failures kept in the denominators, latency over complete successes, ITL per event; tool percentiles: %s)\n\n"}, Shown(l, rep.PercentileMethod)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, l.F(lang.Msg{"指标\t统计量\t%s\t我们（最近秩）\t我们（线性插值）\t为什么不同\n", "metric\tstat\t%s\tours nearest-rank\tours linear\twhy they differ\n"}, rep.Tool))
	row := func(metric, stat, tool, nr, lin, why string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", metric, stat, tool, nr, lin, why)
	}
	// A cell's explanation too long for its column goes under the table,
	// marked [n] in the cell (walk 35g F8: a sentence in a cell widened
	// the column to about 150 characters); the cell keeps its numbers.
	var footnotes []string
	foot := func(cell, metric, note string) string {
		if note == "" {
			return cell
		}
		footnotes = append(footnotes, l.F(lang.Msg{"[%d] %s，我们（最近秩）：%s", "[%d] %s, ours nearest-rank: %s"}, len(footnotes)+1, metric, note))
		return fmt.Sprintf("%s [%d]", cell, len(footnotes))
	}
	fr := "—"
	if c.FailureRate.Value != nil {
		fr = fmt.Sprintf("%d/%d = %s%%", c.Failures, c.Attempts, fmtNum(*c.FailureRate.Value*100))
	}
	row("attempts", "count", "—", fmt.Sprint(c.Attempts), "", l.S(lang.Msg{"我们：文件的每一行，含失败", "ours: every row of the file, failures included"}))
	row(l.S(lang.Msg{"失败率", "failure rate"}), "value", "—", fr, "", "")
	row(l.S(lang.Msg{"TTFT 缺失", "ttft missing"}), "count", "—", fmt.Sprint(c.TTFTMissing), "", l.S(lang.Msg{"失败记的 0.0 TTFT 是缺失，不是 0", "a failure's 0.0 TTFT is missing, not 0"}))
	for _, st := range rep.Stats {
		toolV := "null"
		switch {
		case st.NonFinite != "":
			toolV = st.NonFinite
		case st.Value != nil && st.Stat == "count":
			toolV = fmtNum(*st.Value)
		case st.Value != nil:
			toolV = colNum(*st.Value)
		}
		if st.Derived {
			toolV += "*"
		}
		level, hasLevel := st.Level()
		why := whyDiffers(rep.Tool, rep, st, hasLevel).In(l)
		nr, lin := "", ""
		switch st.Metric {
		case "completed":
			nr = fmt.Sprint(c.CompleteSuccess)
		case "failed":
			nr = fmt.Sprint(c.Failures)
		case "attempts":
			nr = fmt.Sprint(c.Attempts)
		case "duration_s":
			nr = colNum(c.WindowS)
			why = durationWhy(l, rep, st, o)
		case "request_throughput":
			if v := c.Throughput.CompleteSuccesses.Value; v != nil {
				nr = colNum(*v)
			}
			why = throughputWhy(l, rep, st, lang.Msg{"完整成功数", "complete successes"})
		case "output_throughput":
			if v := c.Throughput.OutputTokens.Value; v != nil {
				nr = colNum(*v)
			}
			why = throughputWhy(l, rep, st, lang.Msg{"完整成功的输出 token 数", "output tokens of complete successes"})
		case "error_rate":
			if c.FailureRate.Value != nil {
				nr = colNum(*c.FailureRate.Value)
			}
		case "request_goodput":
			nr = foot(goodputRow(l, c, true))
		case "goodput_percentage":
			nr = foot(goodputRow(l, c, false))
		case "ttft_ms", "e2e_ms", "itl_ms", "tpot_ms", "schedule_lag_ms", importer.GuidellmTotalZero, importer.GuidellmTotal, importer.MetricInterChunk, importer.GuidellmTotalFirstToken:
			metric := strings.Fields(st.Metric)[0]
			if st.Metric == importer.GuidellmTotalFirstToken {
				metric = ttftAny
			}
			if v, ok := o.value(metric, st.Stat, level, hasLevel, metrics.NearestRank); ok {
				nr = colNum(v)
			} else {
				nr = "—"
			}
			if hasLevel {
				if v, ok := o.value(metric, st.Stat, level, hasLevel, metrics.Linear); ok {
					lin = colNum(v)
				}
			}
			if metric == "itl_ms" {
				nr += l.F(lang.Msg{"（n=%s 个事件）", " (n=%s)"}, lang.N(l, len(o.samples["itl_ms"]), "event", "events"))
				if st.Metric == "itl_ms" && len(o.samples["itl_ms"]) == 0 && !o.eventGaps {
					// Not a difference of method: there is nothing of ours to set beside the tool's number.
					why = l.S(lang.Msg{"文件里没有逐事件的时间（每个请求至多一个事件），所以没有我们的 ITL 可比", "the file has no per-event times (at most one event per request), so there is no ITL of ours to compare"})
				}
			}
			if metric == ttftAny {
				nr += fmt.Sprintf(" (n=%d)", len(o.samples[ttftAny]))
			}
		}
		if sameCount(st, nr) {
			// The counts agree: no reason to give for a difference there is not.
			why = l.S(lang.Msg{"个数相同", "the same count"})
		}
		row(Shown(l, st.Metric), st.Stat, toolV, nr, lin, why)
	}
	tw.Flush()
	if len(footnotes) > 0 {
		fmt.Fprintln(w)
		for _, f := range footnotes {
			fmt.Fprintln(w, f)
		}
	}
	if hasDerived(rep) {
		fmt.Fprintln(w, l.S(lang.Msg{"\n* 文件里没有汇总：按工具自己的算法从它的逐行记录算出", "\n* the file holds no summary: computed the tool's way from its own rows"}))
	}
	if len(rep.Notes) > 0 {
		fmt.Fprintln(w, l.S(lang.Msg{"\n导入说明：", "\nnotes:"}))
		for _, n := range rep.Notes {
			fmt.Fprintf(w, "  - %s\n", n.In(l))
		}
	}
	fmt.Fprint(w, l.F(lang.Msg{"\n%s 的 ITL 含义：%s。trace 装不下的信息列在它头部的 conditions.lossy 里。\n", "\nITL semantics of %s: %s. What the trace cannot hold is listed under conditions.lossy in its header.\n"}, rep.Tool, rep.ITLSemantics))
	if dest == "stdout" {
		dest = "TRACE"
	}
	fmt.Fprint(w, l.F(lang.Msg{"%s 的完整指标口径卡：coursekit card %s\n", "full card of %s: coursekit card %s\n"}, src, dest))
}

// sameCount says whether a count row's tool number equals ours (nr, as
// printed): the reasons a count can differ do not apply to it then.
func sameCount(st importer.Stat, nr string) bool {
	switch st.Metric {
	case "completed", "failed", "attempts":
	default:
		return false
	}
	return st.Stat == "count" && st.Value != nil && nr != "" && nr == fmtNum(*st.Value)
}

func hasDerived(rep *importer.Report) bool {
	for _, s := range rep.Stats {
		if s.Derived {
			return true
		}
	}
	return false
}

// goodputRow is the card's first condition as the comparison shows it
// beside a tool's goodput: per second of the window (perS) or as a share
// of the attempts. It is the card's own count under the card's rule, so
// that import and card never judge differently; unknown when the card
// cannot tell which successes qualify (quality unrated, no latency SLO).
// The cell holds the condition and the numbers; note (for under the
// table) the rule, or why the count is unknown; metric is the row's.
func goodputRow(l lang.Lang, c *metrics.Summary, perS bool) (cell, metric, note string) {
	metric = "goodput_percentage"
	if perS {
		metric = "request_goodput"
	}
	if len(c.Conditions) == 0 {
		return "", metric, ""
	}
	k := c.Conditions[0]
	name := cardfmt.CondName(k)
	if k.Unknown != "" {
		return name + l.S(lang.Msg{"：合格数未知", ": qualified unknown"}), metric,
			l.S(lang.Msg{"质量未评分；--slo-e2e 或其他时延 SLO 只按时延判定，--dataset 评质量", "quality unrated; --slo-e2e or another latency SLO judges on latency alone, --dataset judges quality"})
	}
	rule := l.F(lang.Msg{"合格规则：%s", "qualified means %s"}, cardfmt.RuleIn(l, k))
	if perS {
		return l.F(lang.Msg{"%s：合格 %d/%s s = %s 次/s", "%s: qualified %d/%s s = %s/s"}, name, k.Qualified, fmtNum(c.WindowS), fmtNum(k.GoodputPerS)), metric, rule
	}
	if c.Attempts == 0 {
		return "", metric, ""
	}
	return l.F(lang.Msg{"%s：合格 %d/%s 次尝试 = %s%%", "%s: qualified %d/%s = %s%%"}, name, k.Qualified, lang.N(l, c.Attempts, "attempt", "attempts"), fmtNum(float64(k.Qualified)/float64(c.Attempts)*100)), metric, rule
}

// durationWhy says what the tool's duration and ours (the trace window,
// the denominator of every rate) each measure. AIPerf's benchmark_duration
// is its last response − first request over the records without an error;
// the window runs from the first send to the last end of every record,
// failures included: the two agree when ours is taken over the successes
// alone, which the note shows.
func durationWhy(l lang.Lang, rep *importer.Report, st importer.Stat, o ours) string {
	window := lang.Msg{"我们：trace 的窗口，所有记录（含失败）的首次发送 → 最后结束（每个速率的分母）", "ours: the trace window, first send → last end over every record, failures included (the denominator of every rate)"}
	if rep.Tool != "aiperf" || st.Derived {
		return l.S(window)
	}
	why := l.S(lang.Msg{"工具：无错误记录的最后响应 − 最早请求；", "tool: last response − first request over the records without an error; "}) + l.S(window)
	if o.okSpanMS > 0 {
		why += l.F(lang.Msg{"；我们只算成功时：%s s", "; ours over the successes alone: %s s"}, fmtNum(o.okSpanMS/1000))
	}
	return why
}

// throughputWhy says what a tool's rate and ours count, per what second:
// what is counted (of) over the window; the tool's own duration is
// implied by its completed count when the file gives one (completed /
// rate), as the tool does not write it.
func throughputWhy(l lang.Lang, rep *importer.Report, st importer.Stat, of lang.Msg) string {
	why := l.F(lang.Msg{"我们：%s / 窗口秒数（duration_s 行）", "ours: %s / window second (the duration_s row)"}, l.S(of))
	if st.Metric != "request_throughput" || st.Value == nil || *st.Value <= 0 {
		return why
	}
	for _, c := range rep.Stats {
		if c.Metric == "completed" && c.Stat == "count" && c.Value != nil && *c.Value > 0 {
			return l.F(lang.Msg{"工具：completed / 它自己的时长，这个时长由此反推为 %s 次 / %s 次/s = %s s，不是它的 duration_s；%s", "tool: completed / its own duration, which this implies is %s completed / %s /s = %s s, not its duration_s; %s"}, fmtNum(*c.Value), fmtNum(*st.Value), fmtNum(*c.Value / *st.Value), why)
		}
	}
	return why
}

// shown are the importers' English descriptions that the comparison prints
// (a Report's layout and percentile method, a Stat's metric where it is
// more than the tool's key), each with its Chinese: the Report's JSON and
// the trace header keep the English, the text under --lang zh is Chinese.
var shown = map[string]lang.Msg{
	// layouts
	"records (metadata, metrics, error)":                 {"逐行记录（metadata、metrics、error）", "records (metadata, metrics, error)"},
	"array of per-request rows":                          {"逐请求一行的数组", "array of per-request rows"},
	"array of RequestLifecycleMetric":                    {"RequestLifecycleMetric 数组", "array of RequestLifecycleMetric"},
	"v0.3 (no metadata.version)":                         {"v0.3（没有 metadata.version）", "v0.3 (no metadata.version)"},
	"current (vllm bench serve)":                         {"当前格式（vllm bench serve）", "current (vllm bench serve)"},
	`old (benchmark_serving.py: "request_goodput:" key)`: {`旧格式（benchmark_serving.py："request_goodput:" 键）`, `old (benchmark_serving.py: "request_goodput:" key)`},
	`old (no "failed" field)`:                            {`旧格式（没有 "failed" 字段）`, `old (no "failed" field)`},
	// percentile methods
	"linear (numpy default)":   {"线性插值（numpy 默认）", "linear (numpy default)"},
	"linear (np.percentile)":   {"线性插值（np.percentile）", "linear (np.percentile)"},
	"linear (pandas quantile)": {"线性插值（pandas quantile）", "linear (pandas quantile)"},
	"linear (numpy default), inter_chunk_latency included (checked against AIPerf 0.13)": {"线性插值（numpy 默认），含 inter_chunk_latency（已对照 AIPerf 0.13 核对）", "linear (numpy default), inter_chunk_latency included (checked against AIPerf 0.13)"},
	"inverse empirical CDF (nearest-rank style, token-weighted for ITL/TPOT)":            {"经验分布的逆 CDF（最近秩式，ITL/TPOT 按 token 加权）", "inverse empirical CDF (nearest-rank style, token-weighted for ITL/TPOT)"},
	// metrics
	importer.GuidellmTotalFirstToken: {"ttft_ms（total：成功 + 收到首个输出的出错请求）", "ttft_ms (total: successes + errored with a first token)"},
	importer.GuidellmTotalZero:       {"ttft_ms（total：每个请求，没有首个输出的记为 0）", "ttft_ms (total: every request, no first token as 0)"},
	importer.GuidellmTotal:           {"ttft_ms（total：请求不明）", "ttft_ms (total: requests unknown)"},
	importer.MetricInterChunk:        {"itl_ms（inter_chunk_latency，逐事件）", "itl_ms (inter_chunk_latency, per event)"},
}

// Shown is s, an importer's description, as the comparison prints it in l:
// its Chinese under zh when it has one (Known says whether it does), else s
// as it is (a key such as ttft_ms, a path such as experiments[].requests[],
// metadata.version 2 (v0.4+)).
func Shown(l lang.Lang, s string) string {
	if m, ok := shown[s]; ok {
		return m.In(l)
	}
	return s
}

// Known reports whether s has a Chinese for Shown.
func Known(s string) bool {
	_, ok := shown[s]
	return ok
}
