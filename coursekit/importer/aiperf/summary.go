package aiperf

import (
	"fmt"

	"github.com/llmperf-course/course/coursekit/importer/internal/toolfile"
)

// blockSpec is one metric block of AIPerf's and GenAI-Perf's summary.
type blockSpec struct {
	tags   []string // the long tag, then the short one
	metric string
	kind   toolfile.SumKind // SumTime: a distribution in a time unit; else one avg
}

// metricBlocks are the blocks of profile_export_aiperf.json and
// profile_export_genai_perf.json (AIPerf kept GenAI-Perf's layout) that the
// card can be compared with, in the order the importers list them.
var metricBlocks = []blockSpec{
	{[]string{"request_count"}, "completed", toolfile.SumCount},
	{[]string{"error_request_count"}, "failed", toolfile.SumCount},
	{[]string{"benchmark_duration"}, "duration_s", toolfile.SumTime},
	{[]string{"request_throughput"}, "request_throughput", toolfile.SumValue},
	{[]string{"goodput", "request_goodput"}, "request_goodput", toolfile.SumValue},
	{[]string{"output_token_throughput"}, "output_throughput", toolfile.SumValue},
	{[]string{"time_to_first_token", "ttft"}, "ttft_ms", toolfile.SumTime},
	{[]string{"inter_token_latency", "itl"}, "itl_ms", toolfile.SumTime},
	{[]string{"request_latency"}, "e2e_ms", toolfile.SumTime},
	{[]string{"inter_chunk_latency", "icl"}, MetricInterChunk, toolfile.SumTime},
}

// distKeys are the distribution stats shown, as the tools name them.
var distKeys = [][2]string{{"avg", "mean"}, {"std", "std"}, {"p50", "p50"}, {"p90", "p90"}, {"p95", "p95"}, {"p99", "p99"}}

// ReadSummary reads profile_export_aiperf.json (or GenAI-Perf's
// profile_export_genai_perf.json, whose layout AIPerf kept):
// {"<tag>": {"unit": U, "avg": V, "p50": V, ...}}.
func ReadSummary(root *toolfile.Obj) ([]toolfile.Stat, error) {
	var out []toolfile.Stat
	for _, b := range metricBlocks {
		var blk *toolfile.Obj
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
		if b.kind != toolfile.SumTime {
			if out, err = toolfile.AddStats(out, blk, b.metric, 1, b.kind, [][2]string{{"avg", toolfile.StatName(b.kind)}}); err != nil {
				return nil, err
			}
			continue
		}
		if _, ok := blk.Get("unit"); !ok {
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
			if out, err = toolfile.AddStats(out, blk, b.metric, scale/1000, toolfile.SumTime, [][2]string{{"avg", "value"}}); err != nil {
				return nil, err
			}
			continue
		}
		if out, err = toolfile.AddStats(out, blk, b.metric, scale, toolfile.SumTime, distKeys); err != nil {
			return nil, err
		}
	}
	return out, nil
}
