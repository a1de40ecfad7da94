// Package llmperf imports llmperf's *_individual_responses.json and reads
// its *_summary.json.
package llmperf

import (
	"encoding/json"
	"fmt"

	"github.com/llmperf-course/course/coursekit/importer/internal/toolfile"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Import reads llmperf's *_individual_responses.json: a JSON array
// with one object per request and no send times at all. The trace can
// therefore hold each attempt's TTFT and E2E, but not when it was sent.
func Import(s *toolfile.Source, _ toolfile.Options) (*toolfile.Result, error) {
	rowsRaw, err := readRows(s)
	if err != nil {
		return nil, err
	}
	res := &toolfile.Result{}
	res.Report.Run, res.Report.Runs = 1, 1
	res.Report.PercentileMethod = "linear (pandas quantile)"
	var x samples
	for i, raw := range rowsRaw {
		o, err := s.Object(raw, 0, fmt.Sprintf("[%d]", i))
		if err != nil {
			return nil, err
		}
		a, err := readRow(s, o, i, &x)
		if err != nil {
			return nil, err
		}
		res.Attempts = append(res.Attempts, a)
		res.Paths = append(res.Paths, o.Path)
	}
	build(res, len(rowsRaw), x)
	return res, nil
}

// readRows reads individual_responses.json's one array of rows.
func readRows(s *toolfile.Source) ([]json.RawMessage, error) {
	return s.OneArray("individual_responses.json")
}

// samples are llmperf's numbers of the rows without error_code, as it
// computes them, and what the window needs.
type samples struct {
	ttfts, e2es, itls []float64
	maxE2E            float64
	errors            int
}

// readRow reads row i into an attempt starting at 0: its first token, its
// end, its tokens, its outcome; llmperf's own ITL goes in meta.
func readRow(s *toolfile.Source, o *toolfile.Obj, i int, x *samples) (trace.Attempt, error) {
	a := trace.Attempt{ID: fmt.Sprintf("r%d", i), HasEnd: true}
	ttft, err := o.Num("ttft_s")
	if err != nil {
		return a, err
	}
	if err := s.CheckTime(ttft, 0, toolfile.JoinPath(o.Path, "ttft_s")); err != nil {
		return a, err
	}
	e2e, err := o.Num("end_to_end_latency_s")
	if err != nil {
		return a, err
	}
	if err := s.CheckTime(e2e, 0, toolfile.JoinPath(o.Path, "end_to_end_latency_s")); err != nil {
		return a, err
	}
	itl, err := o.OptNum("inter_token_latency_s")
	if err != nil {
		return a, err
	}
	for _, f := range []struct {
		key string
		dst *int
	}{{"number_output_tokens", &a.OutputTokens}, {"number_input_tokens", &a.InputTokens}} {
		if o.Has(f.key) {
			if *f.dst, err = s.Count(o.Raw(f.key), 0, toolfile.JoinPath(o.Path, f.key)); err != nil {
				return a, err
			}
		}
	}
	failed := o.Has("error_code")
	if err := readOutcome(s, o, &a, failed, ttft); err != nil {
		return a, err
	}
	if failed {
		x.errors++
	}
	if ttft > 0 {
		if e2e < ttft {
			return a, o.Err("end_to_end_latency_s", fmt.Sprintf("%g s is before ttft_s %g s", e2e, ttft))
		}
		a.Events = []trace.Event{{TMS: ttft * 1000, Tokens: 1}}
	}
	a.EndMS = e2e * 1000
	if len(a.Events) > 0 && a.EndMS < a.Events[0].TMS {
		a.EndMS = a.Events[0].TMS
	}
	x.maxE2E = max(x.maxE2E, a.EndMS)
	meta := map[string]any{"row": i}
	if itl != nil {
		meta["llmperf_inter_token_latency_s"] = *itl
	}
	a.Meta, _ = json.Marshal(meta)
	if !failed {
		x.ttfts = append(x.ttfts, ttft*1000)
		x.e2es = append(x.e2es, e2e*1000)
		if itl != nil {
			x.itls = append(x.itls, *itl*1000)
		}
	}
	return a, nil
}

// readOutcome reads how a row ended: its error_code and message, or a
// success, which must have a first token.
func readOutcome(s *toolfile.Source, o *toolfile.Obj, a *trace.Attempt, failed bool, ttft float64) error {
	if !failed {
		if ttft <= 0 {
			return o.Err("ttft_s", "is 0 on a row without error_code: a success has a first token")
		}
		a.Outcome = trace.OK
		return nil
	}
	code, err := s.Num(o.Raw("error_code"), 0, toolfile.JoinPath(o.Path, "error_code"))
	if err != nil {
		return err
	}
	msg, err := o.Str("error_msg")
	if err != nil {
		return err
	}
	st := 0
	if code >= 100 && code <= 999 && code == float64(int(code)) {
		st = int(code)
	}
	a.Outcome, a.HTTPStatus = toolfile.Classify(st, msg)
	a.Error = fmt.Sprintf("error_code %g: %s", code, msg)
	return nil
}

// build adds the placeholder window, llmperf's numbers recomputed its way,
// the notes and the conditions.
func build(res *toolfile.Result, n int, x samples) {
	win := x.maxE2E
	if win <= 0 {
		win = 1
	}
	res.Header = trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: win}}
	res.Report.Stats = append(res.Report.Stats,
		toolfile.Stat{Metric: "attempts", Stat: "count", Value: toolfile.Ptr(float64(n)), Key: "num_requests_started", Derived: true},
		toolfile.Stat{Metric: "completed", Stat: "count", Value: toolfile.Ptr(float64(n - x.errors)), Key: "num_completed_requests", Derived: true},
		toolfile.Stat{Metric: "failed", Stat: "count", Value: toolfile.Ptr(float64(x.errors)), Key: "number_errors", Derived: true},
		toolfile.Stat{Metric: "error_rate", Stat: "value", Value: toolfile.Ptr(float64(x.errors) / float64(n)), Key: "error_rate = errors / started", Derived: true})
	lv := []string{"p50", "p90", "p99"}
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("ttft_ms", "ttft_s", x.ttfts, lv)...)
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("e2e_ms", "end_to_end_latency_s", x.e2es, lv)...)
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("llmperf_itl_ms (invalid)", "inter_token_latency_s", x.itls, lv)...)
	res.DerivedNote = func(name string) toolfile.Note {
		return toolfile.NewNote(lang.Msg{
			"%s 里没有汇总（llmperf 把汇总写在另一个文件 *_summary.json，见 --summary）：工具的数字按 llmperf 的算法重算（不含 error_code 的行，pandas 线性插值）",
			"%s holds no summary (llmperf writes it to another file, *_summary.json: see --summary): the tool's numbers are recomputed llmperf's way (rows without error_code, pandas linear)"}, name)
	}
	res.ToolOK = n - x.errors
	res.Report.Notes = append(res.Report.Notes,
		toolfile.NewNote(lang.Msg{
			"llmperf 不记录发送时刻：每次尝试都从 0 ms 开始，窗口只是占位（最长的 E2E）；goodput 这类每秒速率没有意义",
			"llmperf has no send times: every attempt starts at 0 ms and the window is a placeholder (the longest E2E); per-second rates such as goodput are not meaningful"}),
		toolfile.NewNote(lang.Msg{
			"llmperf 的 inter_token_latency_s 含 TTFT，而且除以的是块数：它不是 token 间时延（原值留在每次尝试的 meta 里）",
			"llmperf's inter_token_latency_s includes TTFT and is divided by a chunk count: it is not an inter-token latency (kept in each attempt's meta)"}))
	res.Conds = toolfile.Conditions{
		Source: "llmperf individual_responses.json", Layout: "array of per-request rows", Run: 1, Runs: 1,
		Clock:        "llmperf time.monotonic() durations only; no send times: every attempt starts at 0 ms",
		Window:       "placeholder: [0, longest E2E); llmperf records neither send times nor the run's wall time per request, so rates per second are not meaningful",
		ITLSemantics: "invalid",
		EventTimes:   "first token only (start + ttft_s); end = start + end_to_end_latency_s",
		EventTokens:  "the single event carries tokens = 1; number_output_tokens is llmperf's re-tokenised count (a fixed Llama tokenizer for every model)",
		Failures:     "a row with error_code is a failure; its 0 ttft_s is missing (no events); HTTP status codes → http_error, -1 → from the message (timeout, connect), else stream_error",
		Quality:      toolfile.QualityNull,
		Lossy: []string{
			"no send times: arrival process, concurrency and the window are lost",
			"no per-chunk times: per-event ITL is not recoverable; llmperf's own ITL is invalid (includes TTFT)",
		},
	}
}
