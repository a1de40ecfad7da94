// Package vllm imports the result files of `vllm bench serve` (and of the
// older benchmark_serving.py), which carry their own summary numbers.
package vllm

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/llmperf-course/course/coursekit/importer/internal/toolfile"
	"github.com/llmperf-course/course/coursekit/trace"
)

// vllmStatKey matches vLLM's summary keys such as p99_ttft_ms or mean_itl_ms.
var vllmStatKey = regexp.MustCompile(`^(mean|median|std|p[0-9]+(?:\.[0-9]+)?)_(ttft|tpot|itl|e2el|client_queue_time|e2el_including_client_queue)_ms$`)

var vllmMetric = map[string]string{"ttft": "ttft_ms", "tpot": "tpot_ms", "itl": "itl_ms", "e2el": "e2e_ms",
	"client_queue_time": "client_queue_ms", "e2el_including_client_queue": "e2e_incl_client_queue_ms"}

// endSlackS is how far a recorded latency may fall before the last
// reconstructed event (ttft + Σ itl) and still be taken as equal: the file
// rounds each value separately.
const endSlackS = 1e-3

// Import reads a `vllm bench serve` / benchmark_serving.py result: one
// JSON object, or JSON Lines with one run per line (--append-result).
func Import(s *toolfile.Source, opt toolfile.Options) (*toolfile.Result, error) {
	vals, lines, err := s.Values()
	if err != nil {
		return nil, err
	}
	ln := 0
	if len(vals) > 1 {
		ln = lines[1] // the second run is where "one result" stops being true
	}
	k, err := toolfile.PickRun(s, len(vals), opt, "JSON objects, one per --append-result run", ln)
	if err != nil {
		return nil, err
	}
	o, err := s.Object(vals[k], lines[k], "")
	if err != nil {
		return nil, err
	}
	res := &toolfile.Result{}
	res.Report.Run, res.Report.Runs = k+1, len(vals)
	res.Report.PercentileMethod = "linear (numpy default)"
	if len(vals) == 1 {
		// One object: its JSON path locates an error; the line it starts on
		// would only mislead in a pretty-printed file.
		o.Line = 0
	}

	// Schema variant.
	layout := "current (vllm bench serve)"
	goodKey := "request_goodput"
	if _, ok := o.M["request_goodput:"]; ok {
		goodKey = "request_goodput:"
		layout = "old (benchmark_serving.py: \"request_goodput:\" key)"
	}
	_, hasFailed := o.M["failed"]
	if !hasFailed && goodKey == "request_goodput" {
		layout = "old (no \"failed\" field)"
	}

	// Per-request arrays: ttfts fixes the attempt count.
	if !o.Has("ttfts") {
		return nil, o.Err("ttfts", "missing: the file has no per-request arrays (saved without --save-detailed); attempts cannot be derived from num_prompts or counts, so there is nothing honest to import")
	}
	ttfts, err := o.Array("ttfts")
	if err != nil {
		return nil, err
	}
	n := len(ttfts)
	arr := func(key string, required bool) ([]json.RawMessage, error) {
		if !o.Has(key) {
			if required {
				return nil, o.Err(key, "missing: needed to rebuild the stream events")
			}
			return nil, nil
		}
		a, err := o.Array(key)
		if err != nil {
			return nil, err
		}
		if len(a) != n {
			return nil, o.Err(key, fmt.Sprintf("has %d entries but ttfts has %d: the per-request arrays must be parallel", len(a), n))
		}
		return a, nil
	}
	itls, err := arr("itls", true)
	if err != nil {
		return nil, err
	}
	errs, err := arr("errors", false)
	if err != nil {
		return nil, err
	}
	outLens, err := arr("output_lens", false)
	if err != nil {
		return nil, err
	}
	inLens, err := arr("input_lens", false)
	if err != nil {
		return nil, err
	}
	lats, err := arr("latencies", false)
	if err != nil {
		return nil, err
	}
	starts, err := arr("start_times", false)
	if err != nil {
		return nil, err
	}
	queues, err := arr("queue_times", false)
	if err != nil {
		return nil, err
	}

	dur, err := o.Num("duration")
	if err != nil {
		return nil, err
	}
	if err := s.CheckTime(dur, o.Line, toolfile.JoinPath(o.Path, "duration")); err != nil {
		return nil, err
	}
	if dur == 0 {
		return nil, o.Err("duration", "is 0: the run has no window")
	}

	// Start times: perf_counter seconds with an arbitrary origin.
	startS := make([]float64, n)
	origin := math.Inf(1)
	for i := range starts {
		v, err := s.Time(starts[i], o.Line, toolfile.JoinPath(o.Path, fmt.Sprintf("start_times[%d]", i)))
		if err != nil {
			return nil, err
		}
		startS[i] = v
		origin = min(origin, v)
	}
	if starts == nil {
		origin = 0
	}

	ambiguous, chatOpen, success := 0, 0, 0
	var lossy []string
	for i := range n {
		at := func(key string) string { return toolfile.JoinPath(o.Path, fmt.Sprintf("%s[%d]", key, i)) }
		ttft, err := s.Time(ttfts[i], o.Line, at("ttfts"))
		if err != nil {
			return nil, err
		}
		gapsRaw, err := s.Array(itls[i], o.Line, at("itls"))
		if err != nil {
			return nil, err
		}
		gaps := make([]float64, len(gapsRaw))
		for j := range gapsRaw {
			g, err := s.Time(gapsRaw[j], o.Line, toolfile.JoinPath(at("itls"), fmt.Sprintf("[%d]", j)))
			if err != nil {
				return nil, err
			}
			gaps[j] = g * 1000
		}
		errText := ""
		if errs != nil {
			v := errs[i]
			if !toolfile.IsNull(v) {
				if err := json.Unmarshal(v, &errText); err != nil {
					return nil, s.ErrAt(o.Line, at("errors"), "want a string, got "+toolfile.Kind(v))
				}
			}
		}
		outTok, inTok := 0, 0
		if outLens != nil {
			if outTok, err = s.Count(outLens[i], o.Line, at("output_lens")); err != nil {
				return nil, err
			}
		}
		if inLens != nil {
			if inTok, err = s.Count(inLens[i], o.Line, at("input_lens")); err != nil {
				return nil, err
			}
		}
		lat := 0.0
		if lats != nil {
			if lat, err = s.Time(lats[i], o.Line, at("latencies")); err != nil {
				return nil, err
			}
		}
		if queues != nil {
			if _, err := s.Time(queues[i], o.Line, at("queue_times")); err != nil {
				return nil, err
			}
		}

		a := trace.Attempt{ID: fmt.Sprintf("r%d", i), StartMS: (startS[i] - origin) * 1000, HasEnd: true,
			InputTokens: inTok, OutputTokens: outTok}
		if starts == nil {
			a.StartMS = 0
		}
		ok := errText == "" && ttft > 0
		if ttft > 0 {
			a.Events = toolfile.EventsFrom(a.StartMS, ttft*1000, gaps, outTok)
			if outTok > 0 && len(a.Events) > outTok {
				chatOpen++
			}
		} else if len(gaps) > 0 {
			return nil, s.ErrAt(o.Line, at("itls"), fmt.Sprintf("has %d gaps but ttfts[%d] is 0.0 (no first chunk): gaps need a first event", len(gaps), i))
		}
		last := a.StartMS
		if len(a.Events) > 0 {
			last = a.Events[len(a.Events)-1].TMS
		}
		a.EndMS = last
		if ok {
			success++
			a.Outcome = trace.OK
			if lats != nil {
				end := a.StartMS + lat*1000
				switch {
				case end >= last:
					a.EndMS = end
				case last-end > endSlackS*1000:
					return nil, s.ErrAt(o.Line, at("latencies"), fmt.Sprintf("%g s ends before the last event at ttft + Σ itls = %g s", lat, (last-a.StartMS)/1000))
				}
			}
		} else {
			if errText == "" {
				ambiguous++
				errText = "vLLM recorded no error text (ttft 0.0): most likely an HTTP error with an empty reason"
				a.Outcome = trace.HTTPError
			} else {
				a.Outcome, a.HTTPStatus = toolfile.Classify(0, errText)
			}
			a.Error = errText
		}
		meta := map[string]any{"row": i}
		if ttft == 0 && !ok {
			meta["ttft_placeholder"] = 0.0
		}
		a.Meta, _ = json.Marshal(meta)
		res.Attempts = append(res.Attempts, a)
		res.Paths = append(res.Paths, at("ttfts"))
	}

	// The tool's own summary, in file order as far as Go maps allow: fixed keys first.
	st := &res.Report.Stats
	addNum := func(key, metric, stat string) error {
		if _, ok := o.M[key]; !ok {
			return nil
		}
		v, err := o.OptNum(key)
		if err != nil {
			return err
		}
		x := toolfile.Stat{Metric: metric, Stat: stat, Value: v, Key: key}
		if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
			x.NonFinite = strings.Trim(string(o.M[key]), `"#`)
			x.Value = nil
		}
		*st = append(*st, x)
		return nil
	}
	for _, k := range []struct{ key, metric, stat string }{
		{"num_prompts", "num_prompts", "count"}, {"completed", "completed", "count"}, {"failed", "failed", "count"},
		{"duration", "duration_s", "value"}, {"request_throughput", "request_throughput", "value"},
		{goodKey, "request_goodput", "value"}, {"output_throughput", "output_throughput", "value"},
		{"max_concurrent_requests", "max_concurrent_requests", "value"},
	} {
		if err := addNum(k.key, k.metric, k.stat); err != nil {
			return nil, err
		}
	}
	var statKeys []string
	for key := range o.M {
		if vllmStatKey.MatchString(key) {
			statKeys = append(statKeys, key)
		}
	}
	sortStatKeys(statKeys)
	for _, key := range statKeys {
		m := vllmStatKey.FindStringSubmatch(key)
		if err := addNum(key, vllmMetric[m[2]], m[1]); err != nil {
			return nil, err
		}
	}

	// Cross-checks: never errors, but said out loud.
	if c, _ := o.OptNum("completed"); c != nil && int(*c) != success {
		res.Report.Notes = append(res.Report.Notes, fmt.Sprintf("vLLM says completed = %g, but %d rows have no error and a first chunk", *c, success))
	}
	if f, _ := o.OptNum("failed"); f != nil && int(*f) != n-success {
		res.Report.Notes = append(res.Report.Notes, fmt.Sprintf("vLLM says failed = %g, but %d rows are failures here", *f, n-success))
	}
	if np, _ := o.OptNum("num_prompts"); np != nil && int(*np) != n {
		res.Report.Notes = append(res.Report.Notes, fmt.Sprintf("num_prompts = %g but the per-request arrays hold %d attempts: the arrays are used", *np, n))
	}
	if ambiguous > 0 {
		res.Report.Notes = append(res.Report.Notes, fmt.Sprintf("%d failed rows have an empty error text: imported as http_error (vLLM writes response.reason, which can be empty)", ambiguous))
	}
	if chatOpen > 0 {
		res.Report.Notes = append(res.Report.Notes, fmt.Sprintf("%d requests have more streamed events than output tokens (e.g. the chat role-only opening chunk vLLM counts as the first token)", chatOpen))
	}

	clock := "vLLM perf_counter seconds (relative, arbitrary origin), converted to ms from the first start_times value"
	window := fmt.Sprintf("vLLM duration = %g s (dispatch of the first request to completion of all, failures included), placed from the first start_times value; the tool's own start is a little earlier and is not recorded", dur)
	if starts == nil {
		clock = "none recorded: the file has no start_times, so every attempt starts at 0 ms; only per-attempt times (TTFT, ITL, E2E) are measured"
		window = fmt.Sprintf("vLLM duration = %g s from 0; arrival times are unknown", dur)
		lossy = append(lossy, "no start_times: arrival times and concurrency are lost; every attempt starts at 0 ms")
		res.Report.Notes = append(res.Report.Notes, "no start_times (older layout): every attempt starts at 0 ms")
	}
	if lats == nil {
		lossy = append(lossy, "no latencies: a success's end is its last event (start + ttft + Σ itls), the same point current vLLM calls latency")
	}
	if errs == nil {
		lossy = append(lossy, "no errors array: a row is a failure when its ttft is 0.0")
	}
	if outLens == nil {
		lossy = append(lossy, "no output_lens: output token counts unknown, TPOT unavailable")
	}
	lossy = append(lossy,
		"failed attempts' end times are not recorded: end_ms is the start (or the last partial event)",
		"goodput SLOs given to vLLM are not recorded in the file")
	res.Header = trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: dur * 1000}}
	for i := range res.Attempts {
		if !res.Header.Window.Contains(res.Attempts[i].StartMS) {
			res.Report.Notes = append(res.Report.Notes, fmt.Sprintf("attempt r%d starts at %g ms, after the %g s window: the card counts it outside the window", i, res.Attempts[i].StartMS, dur))
		}
	}
	tool := map[string]any{}
	for _, k := range []string{"backend", "model_id", "tokenizer_id", "num_prompts", "request_rate", "burstiness", "max_concurrency", "date", "label"} {
		if v, ok := o.M[k]; ok {
			var x any
			if json.Unmarshal(v, &x) == nil {
				if str, isStr := x.(string); isStr && strings.HasPrefix(str, "#") {
					x = strings.TrimPrefix(str, "#") // a sanitised bare Infinity/NaN, e.g. burstiness inf
				}
				tool[k] = x
			}
		}
	}
	res.Conds = toolfile.Conditions{
		Source: "vllm bench serve result JSON", Layout: layout, Run: k + 1, Runs: len(vals),
		Clock: clock, Window: window,
		ITLSemantics: "per_event",
		EventTimes:   "reconstructed as start + ttft + cumulative itls (one vLLM ITL sample per SSE message)",
		EventTokens:  "vLLM records no per-message token count: output_lens is spread evenly over the events (≥ 1 each); only the sum is measured, so use TPOT for per-token",
		Failures:     "a row is a failure when errors[i] is non-empty or ttfts[i] is 0.0; a 0.0 TTFT is missing (no events); outcome from the error text: reason phrase → http_error, timeout → timeout, connector error → connect_error, anything else → stream_error with the text",
		Quality:      toolfile.QualityNull,
		Lossy:        lossy,
		Tool:         tool,
	}
	return res, nil
}

// sortStatKeys orders summary keys by metric, then mean, median, std, pNN.
func sortStatKeys(keys []string) {
	order := map[string]int{"ttft": 0, "tpot": 1, "itl": 2, "e2el": 3, "client_queue_time": 4, "e2el_including_client_queue": 5}
	rank := func(k string) (int, int, float64) {
		m := vllmStatKey.FindStringSubmatch(k)
		switch m[1] {
		case "mean":
			return order[m[2]], 0, 0
		case "median":
			return order[m[2]], 1, 0
		case "std":
			return order[m[2]], 2, 0
		}
		var p float64
		fmt.Sscanf(m[1][1:], "%g", &p)
		return order[m[2]], 3, p
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0; j-- {
			a1, a2, a3 := rank(keys[j-1])
			b1, b2, b3 := rank(keys[j])
			if a1 < b1 || a1 == b1 && (a2 < b2 || a2 == b2 && a3 <= b3) {
				break
			}
			keys[j-1], keys[j] = keys[j], keys[j-1]
		}
	}
}
