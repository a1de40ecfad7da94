// Package genaiperf imports perf_analyzer's profile_export.json, the
// per-request file GenAI-Perf parses. Its summary file has AIPerf's layout
// and is read by aiperf.ReadSummary.
package genaiperf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/llmperf-course/course/coursekit/importer/internal/toolfile"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Import reads perf_analyzer's profile_export.json, the file
// GenAI-Perf parses: every request with its send time and every response
// timestamp (ns, wall clock), grouped by experiment.
func Import(s *toolfile.Source, opt toolfile.Options) (*toolfile.Result, error) {
	root, exps, err := readExperiments(s)
	if err != nil {
		return nil, err
	}
	k, err := toolfile.PickRun(s, len(exps), opt, "experiments", 0)
	if err != nil {
		return nil, err
	}
	exp, err := s.Object(exps[k], 0, fmt.Sprintf("experiments[%d]", k))
	if err != nil {
		return nil, err
	}
	reqs, err := exp.Array("requests")
	if err != nil {
		return nil, err
	}
	res := &toolfile.Result{}
	res.Report.Run, res.Report.Runs = k+1, len(exps)
	res.Report.PercentileMethod = "linear (numpy default)"
	rows, noBodies, err := readRows(s, exp, reqs, res)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, exp.Err("requests", "is empty: no attempts to import")
	}
	x, winMS := buildAttempts(res, rows)
	res.Header = trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: winMS}}
	addStats(res, x, winMS)
	res.Conds = conditions(k, len(exps), noBodies, settings(root, exp))
	return res, nil
}

// readExperiments reads profile_export.json's one object and its
// experiments to pick from.
func readExperiments(s *toolfile.Source) (*toolfile.Obj, []json.RawMessage, error) {
	root, err := s.OneObject("profile_export.json")
	if err != nil {
		return nil, nil, err
	}
	exps, err := root.Array("experiments")
	if err != nil {
		return nil, nil, err
	}
	return root, exps, nil
}

// row is one request: its timestamp, the responses that carried output
// (the events) and the last response, in wall-clock ns.
type row struct {
	start  int64
	events []int64
	end    int64
	hasEnd bool
}

// readRows reads every request of the experiment; noBodies counts those
// without response_outputs (every response is then an event).
func readRows(s *toolfile.Source, exp *toolfile.Obj, reqs []json.RawMessage, res *toolfile.Result) ([]row, int, error) {
	rows := make([]row, len(reqs))
	noBodies := 0
	for i, rq := range reqs {
		ro, err := s.Object(rq, 0, fmt.Sprintf("%s.requests[%d]", exp.Path, i))
		if err != nil {
			return nil, 0, err
		}
		r, bodies, err := readRow(s, ro)
		if err != nil {
			return nil, 0, err
		}
		if !bodies {
			noBodies++
		}
		rows[i] = r
		res.Paths = append(res.Paths, ro.Path)
	}
	return rows, noBodies, nil
}

// readRow reads one request: its timestamp and responses, in arrival
// order, each an event when its body carries output.
func readRow(s *toolfile.Source, ro *toolfile.Obj) (r row, bodies bool, err error) {
	tsRaw, ok := ro.Get("timestamp")
	if !ok || toolfile.IsNull(tsRaw) {
		return r, false, ro.Err("timestamp", "missing")
	}
	st, err := s.Nanos(tsRaw, 0, toolfile.JoinPath(ro.Path, "timestamp"))
	if err != nil {
		return r, false, err
	}
	rts, err := ro.Array("response_timestamps")
	if err != nil {
		return r, false, err
	}
	var outs []json.RawMessage
	if ro.Has("response_outputs") {
		if outs, err = ro.Array("response_outputs"); err != nil {
			return r, false, err
		}
		if len(outs) != len(rts) {
			return r, false, ro.Err("response_outputs", fmt.Sprintf("has %s but response_timestamps has %d", lang.N(lang.EN, len(outs), "entry", "entries"), len(rts)))
		}
	}
	r = row{start: st}
	prev := st
	for j, t := range rts {
		p := fmt.Sprintf("%s.response_timestamps[%d]", ro.Path, j)
		ts, err := s.Nanos(t, 0, p)
		if err != nil {
			return r, false, err
		}
		if ts < prev {
			return r, false, s.ErrAt(0, p, fmt.Sprintf("%d is before the previous time %d: responses must be in arrival order, after the request timestamp", ts, prev))
		}
		prev = ts
		r.end, r.hasEnd = ts, true
		if outs == nil {
			r.events = append(r.events, ts)
			continue
		}
		has, err := carriesOutput(outs[j])
		if err != nil {
			return r, false, s.ErrAt(0, fmt.Sprintf("%s.response_outputs[%d]", ro.Path, j), err.Error())
		}
		if has {
			r.events = append(r.events, ts)
		}
	}
	return r, outs != nil, nil
}

// samples are GenAI-Perf's numbers, recomputed its way.
type samples struct{ ttfts, lats []float64 }

// buildAttempts puts every row on a clock from the first request, with
// its outcome, and returns the window: first request to last response,
// widened to hold a last request without one.
func buildAttempts(res *toolfile.Result, rows []row) (samples, float64) {
	minStart, maxEnd := int64(math.MaxInt64), int64(0)
	for _, r := range rows {
		minStart = min(minStart, r.start)
		maxEnd = max(maxEnd, r.end)
	}
	var x samples
	for i, r := range rows {
		a := trace.Attempt{ID: fmt.Sprintf("r%d", i), StartMS: float64(r.start-minStart) / 1e6, HasEnd: true}
		for _, t := range r.events {
			a.Events = append(a.Events, trace.Event{TMS: float64(t-minStart) / 1e6, Tokens: 1})
		}
		a.EndMS = a.StartMS
		if r.hasEnd {
			a.EndMS = float64(r.end-minStart) / 1e6
		}
		switch {
		case len(a.Events) > 0:
			a.Outcome = trace.OK
			x.ttfts = append(x.ttfts, a.Events[0].TMS-a.StartMS)
			x.lats = append(x.lats, a.EndMS-a.StartMS)
		case r.hasEnd:
			a.Outcome = trace.EmptyOutput
			a.Error = "responses arrived but none carried output (GenAI-Perf skips such requests)"
		default:
			a.Outcome = trace.StreamError
			a.Error = "no response recorded (perf_analyzer keeps no error text)"
		}
		res.Attempts = append(res.Attempts, a)
	}
	winMS := float64(maxEnd-minStart) / 1e6
	for _, a := range res.Attempts {
		if a.StartMS >= winMS {
			winMS = a.StartMS + 1e-3 // a failure sent last with no response must stay inside
		}
	}
	return x, winMS
}

// settings are the experiment's mode and the file's version, service kind
// and endpoint, as the tool recorded them.
func settings(root, exp *toolfile.Obj) map[string]any {
	mode := map[string]any{}
	if exp.Has("experiment") {
		if e, err := exp.Sub("experiment"); err == nil {
			for key, v := range e.M {
				var x any
				if json.Unmarshal(v, &x) == nil {
					mode[key] = x
				}
			}
		}
	}
	for _, key := range []string{"version", "service_kind", "endpoint"} {
		if v, err := root.Str(key); err == nil && v != "" {
			mode[key] = v
		}
	}
	return mode
}

// addStats adds GenAI-Perf's numbers recomputed its way (numpy linear,
// requests without output skipped) and what the file cannot give.
func addStats(res *toolfile.Result, x samples, winMS float64) {
	res.Report.Stats = append(res.Report.Stats,
		toolfile.Stat{Metric: "completed", Stat: "count", Value: toolfile.Ptr(float64(len(x.ttfts))), Key: "requests with a non-empty response", Derived: true},
		toolfile.Stat{Metric: "duration_s", Stat: "value", Value: toolfile.Ptr(winMS / 1000), Key: "benchmark_duration = max(last response) - min(request timestamp)", Derived: true})
	lv := []string{"p50", "p90", "p99"}
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("ttft_ms", "time_to_first_token", x.ttfts, lv)...)
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("e2e_ms", "request_latency", x.lats, lv)...)
	res.DerivedNote = func(name string) toolfile.Note {
		return toolfile.NewNote(lang.Msg{
			"%s 里没有汇总（GenAI-Perf 把汇总写在另一个文件，默认 profile_export_genai_perf.json，见 --summary）：工具的数字按 GenAI-Perf 的算法重算（numpy 线性插值，跳过没有输出的请求）",
			"%s holds no summary (GenAI-Perf writes it to another file, profile_export_genai_perf.json by default: see --summary): the tool's numbers are recomputed GenAI-Perf's way (numpy linear, requests without output skipped)"}, name)
	}
	res.ToolOK = len(x.ttfts)
	res.Report.Notes = append(res.Report.Notes,
		toolfile.NewNote(lang.Msg{
			"GenAI-Perf 的 inter_token_latency 要用它客户端分词器数出的输出长度，profile_export.json 里没有：trace 只有逐事件间隔",
			"GenAI-Perf's inter_token_latency needs its client tokenizer's output length, which profile_export.json does not hold: the trace has per-event gaps only"}))
}

// conditions are the header's conditions of experiment k of runs.
func conditions(k, runs, noBodies int, mode map[string]any) toolfile.Conditions {
	lossy := []string{
		"output token counts are not recorded (GenAI-Perf tokenizes client-side): events carry tokens = 1 as a placeholder and TPOT is unavailable",
		"perf_analyzer records no error text or HTTP status: a request whose responses carry no output is empty_output (it could not tell an error inside the stream), and one with no response recorded is a stream_error",
	}
	if noBodies > 0 {
		lossy = append(lossy, fmt.Sprintf("%s no response_outputs: every response timestamp is taken as an event", lang.N(lang.EN, noBodies, "request has", "requests have")))
	}
	return toolfile.Conditions{
		Source: "perf_analyzer profile_export.json (GenAI-Perf)", Layout: "experiments[].requests[]", Run: k + 1, Runs: runs,
		Clock:        "wall-clock ns (request timestamp, response_timestamps), converted to ms from the first request",
		Window:       "GenAI-Perf benchmark_duration: first request timestamp to last response timestamp",
		ITLSemantics: "per_token_amortized",
		EventTimes:   "measured: one event per response whose body carries output (per event); [DONE], usage-only and empty chunks end the stream but are not events; GenAI-Perf's own inter_token_latency is a per-request average per token",
		EventTokens:  "unknown: tokens = 1 per event as a placeholder",
		Failures:     "a request whose responses arrived without output is empty_output; one with no response recorded is a stream_error (the file keeps no error text)",
		Quality:      toolfile.QualityNull,
		Lossy:        lossy,
		Tool:         mode,
	}
}

// carriesOutput reports whether one SSE response body carries generated
// output. GenAI-Perf skips empty responses and the [DONE] marker; a chunk
// with choices but no text (the usage-only final chunk, a role-only
// opening) is not an output either. A body that is not OpenAI JSON counts
// when it is non-empty, since other service kinds have other shapes.
func carriesOutput(raw json.RawMessage) (bool, error) {
	var ro struct {
		Response *string `json:"response"`
	}
	if err := json.Unmarshal(raw, &ro); err != nil || ro.Response == nil {
		return false, fmt.Errorf(`want {"response": "..."}, got %s`, toolfile.Kind(raw))
	}
	body := strings.TrimSpace(*ro.Response)
	body = strings.TrimSpace(strings.TrimPrefix(body, "data:"))
	if body == "" || body == "[DONE]" {
		return false, nil
	}
	var chunk struct {
		Choices []struct {
			Text  *string `json:"text"`
			Delta *struct {
				Content   *string `json:"content"`
				Reasoning *string `json:"reasoning_content"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if !bytes.HasPrefix([]byte(body), []byte("{")) || json.Unmarshal([]byte(body), &chunk) != nil {
		return true, nil
	}
	for _, c := range chunk.Choices {
		if c.Text != nil && *c.Text != "" {
			return true, nil
		}
		if c.Delta != nil && (c.Delta.Content != nil && *c.Delta.Content != "" || c.Delta.Reasoning != nil && *c.Delta.Reasoning != "") {
			return true, nil
		}
	}
	return false, nil
}
