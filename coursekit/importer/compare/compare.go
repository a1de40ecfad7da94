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

// whyDiffers says in a few words why the tool's number and ours can differ.
func whyDiffers(tool string, rep *importer.Report, st importer.Stat, hasLevel bool) string {
	metric := st.Metric
	switch {
	case metric == importer.GuidellmTotalFirstToken:
		return "guidellm's total: successes + errored requests that got a first token, the others left out; ours: the same attempts (the card's TTFT is over complete successes)"
	case metric == importer.GuidellmTotalZero:
		return "the tool counts failures' TTFT as 0; ours: missing"
	case metric == importer.GuidellmTotal:
		return "the block's count matches neither the successes + errored with a first token nor every request"
	case metric == importer.MetricInterChunk && hasLevel:
		return "the same per-event gaps: numpy linear vs nearest-rank"
	case metric == importer.MetricInterChunk:
		return "the same per-event gaps"
	case tool == "aiperf" && (metric == "completed" || metric == "failed"):
		return "AIPerf 0.13 counts a stream with a malformed SSE message as a success (vLLM, guidellm, coursekit bench fail it)"
	case strings.HasPrefix(metric, "guidellm_tpot"):
		return "guidellm's TPOT includes TTFT; not comparable"
	case strings.Contains(metric, "invalid"):
		return "llmperf's ITL includes TTFT over chunk count; not an ITL"
	case metric == "itl_ms" && tool == "inference-perf":
		return "tool: per token, 0 inside a chunk; ours: per event"
	case metric == "schedule_lag_ms":
		return "start − scheduled over every send, failures included; ours from meta.scheduled_ms"
	case metric == "goodput_percentage":
		return "tool: good / successes; ours: failures in the denominator"
	case metric == "tpot_ms" && tool == "inference-perf":
		return "tool: (last − first token)/(N − 1), client token count"
	case metric == "itl_ms" && tool != "vllm":
		return "tool: per-request average per token; ours: per event"
	case tool == "guidellm" && metric == "failed":
		return "the run's errored only; ours: listed errored + incomplete (cancelled)"
	case tool == "guidellm" && (metric == "completed" || metric == "attempts"):
		return "the run's totals; the trace holds the listed (maybe sampled) requests"
	case metric == "request_goodput":
		return "tool's SLOs are not in the file; ours: the card's first condition, failures count"
	case st.Stat == "std" && tool == "aiperf":
		return "both population std (as np.std), over the same successes"
	case hasLevel && strings.HasPrefix(rep.PercentileMethod, "linear"):
		return "linear interpolation vs nearest-rank (same successes)"
	case hasLevel:
		return "inverse CDF vs nearest-rank"
	}
	return ""
}

// Write prints the comparison of rep's numbers with card, the summary of
// tr (coursekit/cardopts), and the samples of tr that a tool's mean or
// standard deviation needs: src names the tool's file and dest where the
// trace went ("stdout" or a path).
func Write(w io.Writer, rep *importer.Report, tr *trace.Trace, card *metrics.Summary, src, dest string) {
	o := recompute(tr, card)
	c := o.card
	fmt.Fprintf(w, "coursekit import: %s, layout %s, run %d of %d: %d attempts (%d failed) written to %s\n",
		rep.Tool, rep.Layout, rep.Run, rep.Runs, rep.Attempts, rep.Failures, dest)
	if rep.Summary != "" {
		fmt.Fprintf(w, "\n%s's own numbers (from %s) beside the card recomputed from the trace\n", rep.Tool, rep.Summary)
	} else {
		fmt.Fprintf(w, "\n%s's own numbers beside the card recomputed from the trace\n", rep.Tool)
	}
	fmt.Fprintf(w, "(ours: failures kept in the denominators, latency over complete successes, ITL per event; tool percentiles: %s)\n\n", rep.PercentileMethod)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "metric\tstat\t%s\tours nearest-rank\tours linear\twhy they differ\n", rep.Tool)
	row := func(metric, stat, tool, nr, lin, why string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", metric, stat, tool, nr, lin, why)
	}
	fr := "—"
	if c.FailureRate.Value != nil {
		fr = fmt.Sprintf("%d/%d = %s%%", c.Failures, c.Attempts, fmtNum(*c.FailureRate.Value*100))
	}
	row("attempts", "count", "—", fmt.Sprint(c.Attempts), "", "ours: every row of the file, failures included")
	row("failure rate", "value", "—", fr, "", "")
	row("ttft missing", "count", "—", fmt.Sprint(c.TTFTMissing), "", "a failure's 0.0 TTFT is missing, not 0")
	for _, st := range rep.Stats {
		toolV := "null"
		switch {
		case st.NonFinite != "":
			toolV = st.NonFinite
		case st.Value != nil:
			toolV = fmtNum(*st.Value)
		}
		if st.Derived {
			toolV += "*"
		}
		level, hasLevel := st.Level()
		why := whyDiffers(rep.Tool, rep, st, hasLevel)
		nr, lin := "", ""
		switch st.Metric {
		case "completed":
			nr = fmt.Sprint(c.CompleteSuccess)
		case "failed":
			nr = fmt.Sprint(c.Failures)
		case "attempts":
			nr = fmt.Sprint(c.Attempts)
		case "duration_s":
			nr = fmtNum(c.WindowS)
			why = durationWhy(rep, st, o)
		case "request_throughput":
			if v := c.Throughput.CompleteSuccesses.Value; v != nil {
				nr = fmtNum(*v)
			}
			why = throughputWhy(rep, st, "complete successes")
		case "output_throughput":
			if v := c.Throughput.OutputTokens.Value; v != nil {
				nr = fmtNum(*v)
			}
			why = throughputWhy(rep, st, "output tokens of complete successes")
		case "error_rate":
			if c.FailureRate.Value != nil {
				nr = fmtNum(*c.FailureRate.Value)
			}
		case "request_goodput":
			nr = goodputRow(c, true)
		case "goodput_percentage":
			nr = goodputRow(c, false)
		case "ttft_ms", "e2e_ms", "itl_ms", "tpot_ms", "schedule_lag_ms", importer.GuidellmTotalZero, importer.GuidellmTotal, importer.MetricInterChunk, importer.GuidellmTotalFirstToken:
			metric := strings.Fields(st.Metric)[0]
			if st.Metric == importer.GuidellmTotalFirstToken {
				metric = ttftAny
			}
			if v, ok := o.value(metric, st.Stat, level, hasLevel, metrics.NearestRank); ok {
				nr = fmtNum(v)
			} else {
				nr = "—"
			}
			if hasLevel {
				if v, ok := o.value(metric, st.Stat, level, hasLevel, metrics.Linear); ok {
					lin = fmtNum(v)
				}
			}
			if metric == "itl_ms" {
				nr += fmt.Sprintf(" (n=%d events)", len(o.samples["itl_ms"]))
			}
			if metric == ttftAny {
				nr += fmt.Sprintf(" (n=%d)", len(o.samples[ttftAny]))
			}
		}
		if sameCount(st, nr) {
			// The counts agree: no reason to give for a difference there is not.
			why = "the same count"
		}
		row(st.Metric, st.Stat, toolV, nr, lin, why)
	}
	tw.Flush()
	if hasDerived(rep) {
		fmt.Fprintln(w, "\n* the file holds no summary: computed the tool's way from its own rows")
	}
	if len(rep.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, n := range rep.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
	fmt.Fprintf(w, "\nITL semantics of %s: %s. What the trace cannot hold is listed under conditions.lossy in its header.\n", rep.Tool, rep.ITLSemantics)
	if dest == "stdout" {
		dest = "TRACE"
	}
	fmt.Fprintf(w, "full card of %s: coursekit card %s\n", src, dest)
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
func goodputRow(c *metrics.Summary, perS bool) string {
	if len(c.Conditions) == 0 {
		return ""
	}
	k := c.Conditions[0]
	name := cardfmt.CondName(k)
	if k.Unknown != "" {
		return name + ": qualified unknown (quality unrated; --slo-e2e or another latency SLO judges on latency alone, --dataset judges quality)"
	}
	rule := cardfmt.RuleIn(lang.EN, k)
	if perS {
		return fmt.Sprintf("%s: qualified %d/%s s = %s/s (%s)", name, k.Qualified, fmtNum(c.WindowS), fmtNum(k.GoodputPerS), rule)
	}
	if c.Attempts == 0 {
		return ""
	}
	return fmt.Sprintf("%s: qualified %d/%d attempts = %s%% (%s)", name, k.Qualified, c.Attempts, fmtNum(float64(k.Qualified)/float64(c.Attempts)*100), rule)
}

// durationWhy says what the tool's duration and ours (the trace window,
// the denominator of every rate) each measure. AIPerf's benchmark_duration
// is its last response − first request over the records without an error;
// the window runs from the first send to the last end of every record,
// failures included: the two agree when ours is taken over the successes
// alone, which the note shows.
func durationWhy(rep *importer.Report, st importer.Stat, o ours) string {
	if rep.Tool != "aiperf" || st.Derived {
		return "ours: the trace window, first send → last end over every record, failures included (the denominator of every rate)"
	}
	why := "tool: last response − first request over the records without an error; ours: the trace window, first send → last end over every record, failures included (the denominator of every rate)"
	if o.okSpanMS > 0 {
		why += "; ours over the successes alone: " + fmtNum(o.okSpanMS/1000) + " s"
	}
	return why
}

// throughputWhy says what a tool's rate and ours count, per what second:
// what is counted (of) over the window; the tool's own duration is
// implied by its completed count when the file gives one (completed /
// rate), as the tool does not write it.
func throughputWhy(rep *importer.Report, st importer.Stat, of string) string {
	why := "ours: " + of + " / window second (the duration_s row)"
	if st.Metric != "request_throughput" || st.Value == nil || *st.Value <= 0 {
		return why
	}
	for _, c := range rep.Stats {
		if c.Metric == "completed" && c.Stat == "count" && c.Value != nil && *c.Value > 0 {
			return fmt.Sprintf("tool: completed / its own duration (%s / %s = %s s, not its duration_s); %s", fmtNum(*c.Value), fmtNum(*st.Value), fmtNum(*c.Value / *st.Value), why)
		}
	}
	return why
}
