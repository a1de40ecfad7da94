package importer

import (
	"encoding/json"
	"fmt"

	"github.com/llmperf-course/course/coursekit/trace"
)

// importLLMPerf reads llmperf's *_individual_responses.json: a JSON array
// with one object per request and no send times at all. The trace can
// therefore hold each attempt's TTFT and E2E, but not when it was sent.
func importLLMPerf(s *source, _ Options) (*result, error) {
	vals, lines, err := s.values()
	if err != nil {
		return nil, err
	}
	if len(vals) != 1 {
		return nil, s.errAt(lines[1], "", "want one JSON array (individual_responses.json), found more values after it")
	}
	rowsRaw, err := s.array(vals[0], lines[0], "")
	if err != nil {
		return nil, err
	}
	if len(rowsRaw) == 0 {
		return nil, s.errAt(lines[0], "", "the array is empty: no attempts to import")
	}
	res := &result{}
	res.report.Run, res.report.Runs = 1, 1
	res.report.PercentileMethod = "linear (pandas quantile)"
	var ttfts, e2es, itls []float64
	maxE2E := 0.0
	errorsN := 0
	for i, raw := range rowsRaw {
		o, err := s.object(raw, 0, fmt.Sprintf("[%d]", i))
		if err != nil {
			return nil, err
		}
		ttft, err := o.num("ttft_s")
		if err != nil {
			return nil, err
		}
		if err := s.checkTime(ttft, 0, joinPath(o.path, "ttft_s")); err != nil {
			return nil, err
		}
		e2e, err := o.num("end_to_end_latency_s")
		if err != nil {
			return nil, err
		}
		if err := s.checkTime(e2e, 0, joinPath(o.path, "end_to_end_latency_s")); err != nil {
			return nil, err
		}
		itl, err := o.optNum("inter_token_latency_s")
		if err != nil {
			return nil, err
		}
		a := trace.Attempt{ID: fmt.Sprintf("r%d", i), HasEnd: true}
		for _, f := range []struct {
			key string
			dst *int
		}{{"number_output_tokens", &a.OutputTokens}, {"number_input_tokens", &a.InputTokens}} {
			if o.has(f.key) {
				if *f.dst, err = s.count(o.m[f.key], 0, joinPath(o.path, f.key)); err != nil {
					return nil, err
				}
			}
		}
		failed := o.has("error_code")
		if failed {
			errorsN++
			code, err := s.num(o.m["error_code"], 0, joinPath(o.path, "error_code"))
			if err != nil {
				return nil, err
			}
			msg, err := o.str("error_msg")
			if err != nil {
				return nil, err
			}
			st := 0
			if code >= 100 && code <= 999 && code == float64(int(code)) {
				st = int(code)
			}
			a.Outcome, a.HTTPStatus = classify(st, msg)
			a.Error = fmt.Sprintf("error_code %g: %s", code, msg)
		} else {
			if ttft <= 0 {
				return nil, o.err("ttft_s", "is 0 on a row without error_code: a success has a first token")
			}
			a.Outcome = trace.OK
		}
		if ttft > 0 {
			if e2e < ttft {
				return nil, o.err("end_to_end_latency_s", fmt.Sprintf("%g s is before ttft_s %g s", e2e, ttft))
			}
			a.Events = []trace.Event{{TMS: ttft * 1000, Tokens: 1}}
		}
		a.EndMS = e2e * 1000
		if len(a.Events) > 0 && a.EndMS < a.Events[0].TMS {
			a.EndMS = a.Events[0].TMS
		}
		maxE2E = max(maxE2E, a.EndMS)
		meta := map[string]any{"row": i}
		if itl != nil {
			meta["llmperf_inter_token_latency_s"] = *itl
		}
		a.Meta, _ = json.Marshal(meta)
		if !failed {
			ttfts = append(ttfts, ttft*1000)
			e2es = append(e2es, e2e*1000)
			if itl != nil {
				itls = append(itls, *itl*1000)
			}
		}
		res.attempts = append(res.attempts, a)
		res.paths = append(res.paths, o.path)
	}
	win := maxE2E
	if win <= 0 {
		win = 1
	}
	res.header = trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: win}}
	n := len(rowsRaw)
	res.report.Stats = append(res.report.Stats,
		Stat{Metric: "attempts", Stat: "count", Value: ptr(float64(n)), Key: "num_requests_started", Derived: true},
		Stat{Metric: "completed", Stat: "count", Value: ptr(float64(n - errorsN)), Key: "num_completed_requests", Derived: true},
		Stat{Metric: "failed", Stat: "count", Value: ptr(float64(errorsN)), Key: "number_errors", Derived: true},
		Stat{Metric: "error_rate", Stat: "value", Value: ptr(float64(errorsN) / float64(n)), Key: "error_rate = errors / started", Derived: true})
	lv := []string{"p50", "p90", "p99"}
	res.report.Stats = append(res.report.Stats, derivedStats("ttft_ms", "ttft_s", ttfts, lv)...)
	res.report.Stats = append(res.report.Stats, derivedStats("e2e_ms", "end_to_end_latency_s", e2es, lv)...)
	res.report.Stats = append(res.report.Stats, derivedStats("llmperf_itl_ms (invalid)", "inter_token_latency_s", itls, lv)...)
	res.derivedNote = "individual_responses.json holds no summary (that is *_summary.json, see --summary): the tool's numbers are recomputed llmperf's way (rows without error_code, pandas linear)"
	res.toolOK = n - errorsN
	res.report.Notes = append(res.report.Notes,
		"llmperf has no send times: every attempt starts at 0 ms and the window is a placeholder (the longest E2E); per-second rates such as goodput are not meaningful",
		"llmperf's inter_token_latency_s includes TTFT and is divided by a chunk count: it is not an inter-token latency (kept in each attempt's meta)")
	res.conds = conditions{
		Source: "llmperf individual_responses.json", Layout: "array of per-request rows", Run: 1, Runs: 1,
		Clock:        "llmperf time.monotonic() durations only; no send times: every attempt starts at 0 ms",
		Window:       "placeholder: [0, longest E2E); llmperf records neither send times nor the run's wall time per request, so rates per second are not meaningful",
		ITLSemantics: "invalid",
		EventTimes:   "first token only (start + ttft_s); end = start + end_to_end_latency_s",
		EventTokens:  "the single event carries tokens = 1; number_output_tokens is llmperf's re-tokenised count (a fixed Llama tokenizer for every model)",
		Failures:     "a row with error_code is a failure; its 0 ttft_s is missing (no events); HTTP status codes → http_error, -1 → from the message (timeout, connect), else stream_error",
		Quality:      qualityNull,
		Lossy: []string{
			"no send times: arrival process, concurrency and the window are lost",
			"no per-chunk times: per-event ITL is not recoverable; llmperf's own ITL is invalid (includes TTFT)",
		},
	}
	return res, nil
}
