package inferenceperf

import "github.com/llmperf-course/course/coursekit/importer/internal/toolfile"

// ReadSummary reads summary_lifecycle_metrics.json (or a
// stage_N_lifecycle_metrics.json): distributions in seconds with keys mean,
// median, pNN (np.percentile, linear) over successes only.
func ReadSummary(root *toolfile.Obj) ([]toolfile.Stat, error) {
	succ, err := root.Sub("successes")
	if err != nil {
		return nil, err
	}
	fail, err := root.Sub("failures")
	if err != nil {
		return nil, err
	}
	for _, o := range []*toolfile.Obj{succ, fail} {
		if _, ok := o.Get("count"); !ok {
			return nil, o.Err("count", "missing")
		}
	}
	var out []toolfile.Stat
	ls, err := root.OptSub("load_summary")
	if err != nil {
		return nil, err
	}
	if ls != nil {
		if out, err = toolfile.AddStats(out, ls, "attempts", 1, toolfile.SumCount, [][2]string{{"count", "count"}}); err != nil {
			return nil, err
		}
	}
	if out, err = toolfile.AddStats(out, succ, "completed", 1, toolfile.SumCount, [][2]string{{"count", "count"}}); err != nil {
		return nil, err
	}
	if out, err = toolfile.AddStats(out, fail, "failed", 1, toolfile.SumCount, [][2]string{{"count", "count"}}); err != nil {
		return nil, err
	}
	if out, err = toolfile.AddStats(out, root, "duration_s", 1, toolfile.SumTime, [][2]string{{"benchmark_time_seconds", "value"}}); err != nil {
		return nil, err
	}
	if tp, err := succ.OptSub("throughput"); err != nil {
		return nil, err
	} else if tp != nil {
		if out, err = toolfile.AddStats(out, tp, "request_throughput", 1, toolfile.SumValue, [][2]string{{"requests_per_sec", "value"}}); err != nil {
			return nil, err
		}
		if out, err = toolfile.AddStats(out, tp, "output_throughput", 1, toolfile.SumValue, [][2]string{{"output_tokens_per_sec", "value"}}); err != nil {
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
		if out, err = toolfile.AddStats(out, gm, "request_goodput", 1, toolfile.SumValue, [][2]string{{"request_goodput", "value"}}); err != nil {
			return nil, err
		}
		if out, err = toolfile.AddStats(out, gm, "goodput_percentage", 1, toolfile.SumValue, [][2]string{{"goodput_percentage", "value"}}); err != nil {
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
			if out, err = toolfile.AddStats(out, d, m.metric, 1000, toolfile.SumTime, dist); err != nil {
				return nil, err
			}
		}
	}
	if ls != nil {
		if sd, err := ls.OptSub("schedule_delay"); err != nil {
			return nil, err
		} else if sd != nil {
			if out, err = toolfile.AddStats(out, sd, "schedule_lag_ms", 1000, toolfile.SumSigned, [][2]string{{"mean", "mean"}, {"median", "median"}, {"p99", "p99"}, {"max", "max"}}); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
