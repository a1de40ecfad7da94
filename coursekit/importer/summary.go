package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// SummaryFiles names, for each tool that writes its summary to a file of
// its own, that file. The other tools (vLLM, guidellm) keep their summary
// in the result file itself.
var SummaryFiles = map[string]string{
	"aiperf":         "profile_export_aiperf.json",
	"genai-perf":     "profile_export_genai_perf.json",
	"llmperf":        "*_summary.json",
	"inference-perf": "summary_lifecycle_metrics.json",
}

// ErrNoSummaryFile is returned (wrapped) for a summary file of a tool whose
// result file already carries its own numbers.
var ErrNoSummaryFile = errors.New("the tool writes no separate summary file: its result file carries its own numbers")

// HasSummary reports whether from writes a separate summary file.
func HasSummary(from string) bool {
	_, ok := SummaryFiles[from]
	return ok
}

// ReadSummary reads the separate summary file of tool from (see
// SummaryFiles) and returns its numbers as Stats with the metric names the
// importers use, times converted to ms by the file's unit fields (or by
// the key's unit for llmperf and inference-perf, which write seconds), the
// JSON key or path in Key, and Derived false. name locates errors; a
// malformed file is an error naming its position. Pass the result as
// Options.Summary to show these numbers beside the card.
func ReadSummary(from string, r io.Reader, name string) ([]Stat, error) {
	var read func(*Obj) ([]Stat, error)
	switch from {
	case "aiperf", "genai-perf":
		read = ReadMetricBlocks
	case "llmperf":
		read = ReadLLMPerfSummary
	case "inference-perf":
		read = ReadInferencePerfSummary
	default:
		if Known(from) {
			return nil, fmt.Errorf("--from %s: %w", from, ErrNoSummaryFile)
		}
		return nil, fmt.Errorf("--from %q: %w (want %s)", from, ErrUnknownTool, strings.Join(Tools, ", "))
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	src := NewSource(name, raw)
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, src.ErrAt(0, "", "the file is empty")
	}
	vals, lines, err := src.Values()
	if err != nil {
		return nil, err
	}
	want := SummaryFiles[from]
	if len(vals) != 1 {
		return nil, src.ErrAt(lines[1], "", fmt.Sprintf("want one JSON object (%s), found more values after it", want))
	}
	// One (usually pretty-printed) object: the JSON path locates an error.
	root, err := src.Object(vals[0], 0, "")
	if err != nil {
		return nil, err
	}
	stats, err := read(root)
	if err != nil {
		return nil, err
	}
	if len(stats) == 0 {
		return nil, src.ErrAt(0, "", fmt.Sprintf("no summary number found: is this %s's %s?", from, want))
	}
	return stats, nil
}

// SumKind says how a summary number is checked.
type SumKind int

const (
	SumTime   SumKind = iota // a duration: ≥ 0; NaN/Infinity kept as NonFinite
	SumSigned                // a signed duration (a schedule lag can be negative)
	SumValue                 // a rate, ratio or percentage: ≥ 0; NaN/Infinity kept
	SumCount                 // a request count: a whole number ≥ 0, never NaN
)

// SumStat reads o[key] as one Stat, multiplied by scale. ok is false when
// the key is absent; null gives a Stat with a nil Value.
func SumStat(o *Obj, key, metric, stat string, scale float64, k SumKind) (Stat, bool, error) {
	raw, ok := o.M[key]
	if !ok {
		return Stat{}, false, nil
	}
	st := Stat{Metric: metric, Stat: stat, Key: JoinPath(o.Path, key)}
	if IsNull(raw) {
		return st, true, nil
	}
	if k == SumCount {
		n, err := o.Src.Count(raw, o.Line, st.Key)
		if err != nil {
			return Stat{}, false, err
		}
		st.Value = Ptr(float64(n))
		return st, true, nil
	}
	v, err := o.Src.Num(raw, o.Line, st.Key)
	if err != nil {
		return Stat{}, false, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		st.NonFinite = strings.Trim(string(bytes.TrimSpace(raw)), `"#`)
		return st, true, nil
	}
	if v < 0 && k != SumSigned {
		return Stat{}, false, o.Err(key, fmt.Sprintf("is negative (%g), want a value ≥ 0", v))
	}
	st.Value = Ptr(Snap(v * scale))
	return st, true, nil
}

// Snap removes unit-conversion noise (0.182 s → 182.00000000000003 ms) by
// keeping 15 significant digits.
func Snap(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	return f
}

// AddStats appends the stats of keys found in o (key → stat name), in order.
func AddStats(out []Stat, o *Obj, metric string, scale float64, k SumKind, keys [][2]string) ([]Stat, error) {
	for _, ks := range keys {
		st, ok, err := SumStat(o, ks[0], metric, ks[1], scale, k)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, st)
		}
	}
	return out, nil
}

// StatName is the Stat of a single number: count for a request count.
func StatName(k SumKind) string {
	if k == SumCount {
		return "count"
	}
	return "value"
}

// blockSpec is one metric block of AIPerf's and GenAI-Perf's summary.
type blockSpec struct {
	tags   []string // the long tag, then the short one
	metric string
	kind   SumKind // SumTime: a distribution in a time unit; else one avg
}

// metricBlocks are the blocks of profile_export_aiperf.json and
// profile_export_genai_perf.json (AIPerf kept GenAI-Perf's layout) that the
// card can be compared with, in the order the importers list them.
var metricBlocks = []blockSpec{
	{[]string{"request_count"}, "completed", SumCount},
	{[]string{"error_request_count"}, "failed", SumCount},
	{[]string{"benchmark_duration"}, "duration_s", SumTime},
	{[]string{"request_throughput"}, "request_throughput", SumValue},
	{[]string{"goodput", "request_goodput"}, "request_goodput", SumValue},
	{[]string{"output_token_throughput"}, "output_throughput", SumValue},
	{[]string{"time_to_first_token", "ttft"}, "ttft_ms", SumTime},
	{[]string{"inter_token_latency", "itl"}, "itl_ms", SumTime},
	{[]string{"request_latency"}, "e2e_ms", SumTime},
	{[]string{"inter_chunk_latency", "icl"}, MetricInterChunk, SumTime},
}

// distKeys are the distribution stats shown, as the tools name them.
var distKeys = [][2]string{{"avg", "mean"}, {"std", "std"}, {"p50", "p50"}, {"p90", "p90"}, {"p95", "p95"}, {"p99", "p99"}}

// ReadMetricBlocks reads {"<tag>": {"unit": U, "avg": V, "p50": V, ...}}.
func ReadMetricBlocks(root *Obj) ([]Stat, error) {
	var out []Stat
	for _, b := range metricBlocks {
		var blk *Obj
		for _, tag := range b.tags {
			if root.Has(tag) {
				var err error
				if blk, err = root.Sub(tag); err != nil {
					return nil, err
				}
				break
			}
		}
		if blk == nil {
			continue
		}
		var err error
		if b.kind != SumTime {
			if out, err = AddStats(out, blk, b.metric, 1, b.kind, [][2]string{{"avg", StatName(b.kind)}}); err != nil {
				return nil, err
			}
			continue
		}
		if _, ok := blk.M["unit"]; !ok {
			return nil, blk.Err("unit", "missing: the unit says whether the values are ns, ms or s")
		}
		unit, err := blk.Str("unit")
		if err != nil {
			return nil, err
		}
		scale, ok := timeUnits[unit]
		if !ok {
			return nil, blk.Err("unit", fmt.Sprintf("%q is not a time unit (want ns, us, ms or s)", unit))
		}
		if b.metric == "duration_s" {
			if out, err = AddStats(out, blk, b.metric, scale/1000, SumTime, [][2]string{{"avg", "value"}}); err != nil {
				return nil, err
			}
			continue
		}
		if out, err = AddStats(out, blk, b.metric, scale, SumTime, distKeys); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReadLLMPerfSummary reads llmperf's flattened *_summary.json: keys such as
// results_ttft_s_quantiles_p99 and results_number_errors, times in seconds.
func ReadLLMPerfSummary(root *Obj) ([]Stat, error) {
	var out []Stat
	var err error
	for _, c := range []struct {
		key, metric string
		kind        SumKind
		scale       float64
	}{
		{"results_num_requests_started", "attempts", SumCount, 1},
		{"results_num_completed_requests", "completed", SumCount, 1},
		{"results_number_errors", "failed", SumCount, 1},
		{"results_error_rate", "error_rate", SumValue, 1},
		{"results_mean_output_throughput_token_per_s", "output_throughput", SumValue, 1},
	} {
		if out, err = AddStats(out, root, c.metric, c.scale, c.kind, [][2]string{{c.key, StatName(c.kind)}}); err != nil {
			return nil, err
		}
	}
	// Requests per minute, shown per second like every other tool's rate.
	if st, ok, err := SumStat(root, "results_num_completed_requests_per_min", "request_throughput", "value", 1.0/60, SumValue); err != nil {
		return nil, err
	} else if ok {
		st.Key += " (÷ 60)"
		out = append(out, st)
	}
	for _, m := range []struct{ key, metric string }{
		{"ttft_s", "ttft_ms"}, {"end_to_end_latency_s", "e2e_ms"}, {"inter_token_latency_s", "llmperf_itl_ms (invalid)"},
	} {
		p := "results_" + m.key + "_"
		keys := [][2]string{{p + "mean", "mean"}, {p + "quantiles_p50", "p50"}, {p + "quantiles_p90", "p90"}, {p + "quantiles_p95", "p95"}, {p + "quantiles_p99", "p99"}}
		if out, err = AddStats(out, root, m.metric, 1000, SumTime, keys); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReadInferencePerfSummary reads summary_lifecycle_metrics.json (or a
// stage_N_lifecycle_metrics.json): distributions in seconds with keys mean,
// median, pNN (np.percentile, linear) over successes only.
func ReadInferencePerfSummary(root *Obj) ([]Stat, error) {
	succ, err := root.Sub("successes")
	if err != nil {
		return nil, err
	}
	fail, err := root.Sub("failures")
	if err != nil {
		return nil, err
	}
	for _, o := range []*Obj{succ, fail} {
		if _, ok := o.M["count"]; !ok {
			return nil, o.Err("count", "missing")
		}
	}
	var out []Stat
	ls, err := root.OptSub("load_summary")
	if err != nil {
		return nil, err
	}
	if ls != nil {
		if out, err = AddStats(out, ls, "attempts", 1, SumCount, [][2]string{{"count", "count"}}); err != nil {
			return nil, err
		}
	}
	if out, err = AddStats(out, succ, "completed", 1, SumCount, [][2]string{{"count", "count"}}); err != nil {
		return nil, err
	}
	if out, err = AddStats(out, fail, "failed", 1, SumCount, [][2]string{{"count", "count"}}); err != nil {
		return nil, err
	}
	if out, err = AddStats(out, root, "duration_s", 1, SumTime, [][2]string{{"benchmark_time_seconds", "value"}}); err != nil {
		return nil, err
	}
	if tp, err := succ.OptSub("throughput"); err != nil {
		return nil, err
	} else if tp != nil {
		if out, err = AddStats(out, tp, "request_throughput", 1, SumValue, [][2]string{{"requests_per_sec", "value"}}); err != nil {
			return nil, err
		}
		if out, err = AddStats(out, tp, "output_throughput", 1, SumValue, [][2]string{{"output_tokens_per_sec", "value"}}); err != nil {
			return nil, err
		}
	}
	// goodput_metrics sits under successes in current versions.
	gm, err := succ.OptSub("goodput_metrics")
	if err == nil && gm == nil {
		gm, err = root.OptSub("goodput_metrics")
	}
	if err != nil {
		return nil, err
	}
	if gm != nil {
		if out, err = AddStats(out, gm, "request_goodput", 1, SumValue, [][2]string{{"request_goodput", "value"}}); err != nil {
			return nil, err
		}
		if out, err = AddStats(out, gm, "goodput_percentage", 1, SumValue, [][2]string{{"goodput_percentage", "value"}}); err != nil {
			return nil, err
		}
	}
	dist := [][2]string{{"mean", "mean"}, {"median", "median"}, {"p90", "p90"}, {"p95", "p95"}, {"p99", "p99"}}
	if lat, err := succ.OptSub("latency"); err != nil {
		return nil, err
	} else if lat != nil {
		for _, m := range []struct{ key, metric string }{
			{"time_to_first_token", "ttft_ms"}, {"inter_token_latency", "itl_ms"},
			{"request_latency", "e2e_ms"}, {"time_per_output_token", "tpot_ms"},
		} {
			d, err := lat.OptSub(m.key) // null when the tool had no sample
			if err != nil {
				return nil, err
			}
			if d == nil {
				continue
			}
			if out, err = AddStats(out, d, m.metric, 1000, SumTime, dist); err != nil {
				return nil, err
			}
		}
	}
	if ls != nil {
		if sd, err := ls.OptSub("schedule_delay"); err != nil {
			return nil, err
		} else if sd != nil {
			if out, err = AddStats(out, sd, "schedule_lag_ms", 1000, SumSigned, [][2]string{{"mean", "mean"}, {"median", "median"}, {"p99", "p99"}, {"max", "max"}}); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// UseSummary puts the summary's numbers in the Report and checks its
// request counts against the rows: a summary of another run or stage must
// not pass for this one's.
func (res *Result) UseSummary(stats []Stat, name string) {
	rep := &res.Report
	rep.Stats = stats
	rep.Summary = baseName(name)
	rows := map[string]int{"attempts": rep.Attempts, "completed": res.ToolOK, "failed": rep.Attempts - res.ToolOK}
	var diffs []string
	for _, s := range stats {
		want, ok := rows[s.Metric]
		if !ok || s.Stat != "count" || s.Value == nil || *s.Value == float64(want) {
			continue
		}
		diffs = append(diffs, fmt.Sprintf("%s = %g (%s) but the rows give %d", s.Metric, *s.Value, s.Key, want))
	}
	if len(diffs) > 0 {
		rep.Notes = append([]string{fmt.Sprintf("COUNT MISMATCH: %s says %s. The summary is probably of another run or stage than the rows: its numbers are shown as written, the card is computed from the rows",
			rep.Summary, strings.Join(diffs, "; "))}, rep.Notes...)
		return
	}
	rep.Notes = append([]string{fmt.Sprintf("the tool's numbers are read from %s; its request counts agree with the rows", rep.Summary)}, rep.Notes...)
}
