package llmperf

import "github.com/llmperf-course/course/coursekit/importer/internal/toolfile"

// ReadSummary reads llmperf's flattened *_summary.json: keys such as
// results_ttft_s_quantiles_p99 and results_number_errors, times in seconds.
func ReadSummary(root *toolfile.Obj) ([]toolfile.Stat, error) {
	var out []toolfile.Stat
	var err error
	for _, c := range []struct {
		key, metric string
		kind        toolfile.SumKind
		scale       float64
	}{
		{"results_num_requests_started", "attempts", toolfile.SumCount, 1},
		{"results_num_completed_requests", "completed", toolfile.SumCount, 1},
		{"results_number_errors", "failed", toolfile.SumCount, 1},
		{"results_error_rate", "error_rate", toolfile.SumValue, 1},
		{"results_mean_output_throughput_token_per_s", "output_throughput", toolfile.SumValue, 1},
	} {
		if out, err = toolfile.AddStats(out, root, c.metric, c.scale, c.kind, [][2]string{{c.key, toolfile.StatName(c.kind)}}); err != nil {
			return nil, err
		}
	}
	// Requests per minute, shown per second like every other tool's rate.
	if st, ok, err := toolfile.SumStat(root, "results_num_completed_requests_per_min", "request_throughput", "value", 1.0/60, toolfile.SumValue); err != nil {
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
		if out, err = toolfile.AddStats(out, root, m.metric, 1000, toolfile.SumTime, keys); err != nil {
			return nil, err
		}
	}
	return out, nil
}
