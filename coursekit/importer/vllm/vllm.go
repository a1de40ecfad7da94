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
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// vllmStatKey matches vLLM's summary keys such as p99_ttft_ms or mean_itl_ms.
var vllmStatKey = regexp.MustCompile(`^(mean|median|std|p[0-9]+(?:\.[0-9]+)?)_(ttft|tpot|itl|e2el|client_queue_time|e2el_including_client_queue)_ms$`)

// vllmStatKeyFolded is vllmStatKey in any case: a key that only it matches
// ("P99_TTFT_MS") is a case twin, refused as toolfile.Obj.Get refuses them.
var vllmStatKeyFolded = regexp.MustCompile(`(?i)` + vllmStatKey.String())

var vllmMetric = map[string]string{"ttft": "ttft_ms", "tpot": "tpot_ms", "itl": "itl_ms", "e2el": "e2e_ms",
	"client_queue_time": "client_queue_ms", "e2el_including_client_queue": "e2e_incl_client_queue_ms"}

// endSlackS is how far a recorded latency may fall before the last
// reconstructed event (ttft + Σ itl) and still be taken as equal: the file
// rounds each value separately.
const endSlackS = 1e-3

// Import reads a `vllm bench serve` / benchmark_serving.py result: one
// JSON object, or JSON Lines with one run per line (--append-result). Its
// steps: pick the run (pickRun), read its per-request columns
// (readColumns), build an attempt of each row (columns.build), then the
// tool's own summary, the cross-checks and the conditions.
func Import(s *toolfile.Source, opt toolfile.Options) (*toolfile.Result, error) {
	r, err := pickRun(s, opt)
	if err != nil {
		return nil, err
	}
	c, err := readColumns(s, r.o)
	if err != nil {
		return nil, err
	}
	res := &toolfile.Result{}
	res.Report.Run, res.Report.Runs = r.k+1, r.runs
	res.Report.PercentileMethod = "linear (numpy default)"
	n, err := c.build(s, r.o, res)
	if err != nil {
		return nil, err
	}
	if err := addSummary(res, r.o, r.goodKey); err != nil {
		return nil, err
	}
	crossCheck(res, r.o, c.n, n)
	res.Header = trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: c.dur * 1000}}
	res.Conds = conditions(res, r, c)
	return res, nil
}

// run is the run of the file that is imported, and its layout.
type run struct {
	o       *toolfile.Obj
	k, runs int    // the run picked (0-based) of runs
	layout  string // which schema variant
	goodKey string // "request_goodput", or the old "request_goodput:"
}

// pickRun reads the file's runs and picks one (--run), and tells its
// schema variant.
func pickRun(s *toolfile.Source, opt toolfile.Options) (*run, error) {
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
	if len(vals) == 1 {
		// One object: its JSON path locates an error; the line it starts on
		// would only mislead in a pretty-printed file.
		o.Line = 0
	}
	r := &run{o: o, k: k, runs: len(vals), layout: "current (vllm bench serve)", goodKey: "request_goodput"}
	if _, ok := o.Get("request_goodput:"); ok {
		r.goodKey = "request_goodput:"
		r.layout = "old (benchmark_serving.py: \"request_goodput:\" key)"
	}
	_, hasFailed := o.Get("failed")
	if !hasFailed && r.goodKey == "request_goodput" {
		r.layout = "old (no \"failed\" field)"
	}
	return r, nil
}

// columns are the run's per-request arrays (nil when absent), parallel to
// ttfts, its duration and its start times.
type columns struct {
	n                                                        int
	ttfts, itls, errs, outLens, inLens, lats, starts, queues []json.RawMessage
	dur                                                      float64
	startS                                                   []float64 // perf_counter seconds
	origin                                                   float64   // the first start, 0 without start_times
}

// readColumns reads the per-request arrays: ttfts fixes the attempt count,
// and the others must be parallel to it.
func readColumns(s *toolfile.Source, o *toolfile.Obj) (*columns, error) {
	if !o.Has("ttfts") {
		return nil, o.Err("ttfts", "missing: the file has no per-request arrays (saved without --save-detailed); attempts cannot be derived from num_prompts or counts, so there is nothing honest to import")
	}
	c := &columns{}
	var err error
	if c.ttfts, err = o.Array("ttfts"); err != nil {
		return nil, err
	}
	c.n = len(c.ttfts)
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
		if len(a) != c.n {
			return nil, o.Err(key, fmt.Sprintf("has %s but ttfts has %d: the per-request arrays must be parallel", lang.N(lang.EN, len(a), "entry", "entries"), c.n))
		}
		return a, nil
	}
	for _, col := range []struct {
		key      string
		required bool
		dst      *[]json.RawMessage
	}{{"itls", true, &c.itls}, {"errors", false, &c.errs}, {"output_lens", false, &c.outLens}, {"input_lens", false, &c.inLens},
		{"latencies", false, &c.lats}, {"start_times", false, &c.starts}, {"queue_times", false, &c.queues}} {
		if *col.dst, err = arr(col.key, col.required); err != nil {
			return nil, err
		}
	}
	if c.dur, err = o.Num("duration"); err != nil {
		return nil, err
	}
	if err := s.CheckTime(c.dur, o.Line, toolfile.JoinPath(o.Path, "duration")); err != nil {
		return nil, err
	}
	if c.dur == 0 {
		return nil, o.Err("duration", "is 0: the run has no window")
	}
	// Start times: perf_counter seconds with an arbitrary origin.
	c.startS = make([]float64, c.n)
	c.origin = math.Inf(1)
	for i := range c.starts {
		v, err := s.Time(c.starts[i], o.Line, toolfile.JoinPath(o.Path, fmt.Sprintf("start_times[%d]", i)))
		if err != nil {
			return nil, err
		}
		c.startS[i] = v
		c.origin = min(c.origin, v)
	}
	if c.starts == nil {
		c.origin = 0
	}
	return c, nil
}

// rowCounts count what the rows held, for the cross-checks and notes.
type rowCounts struct {
	success   int // no error and a first chunk
	ambiguous int // failed with an empty error text
	chatOpen  int // more events than output tokens
}

// build makes an attempt of every row, into res.
func (c *columns) build(s *toolfile.Source, o *toolfile.Obj, res *toolfile.Result) (rowCounts, error) {
	var n rowCounts
	for i := range c.n {
		a, err := c.attempt(s, o, i, &n)
		if err != nil {
			return n, err
		}
		res.Attempts = append(res.Attempts, a)
		res.Paths = append(res.Paths, toolfile.JoinPath(o.Path, fmt.Sprintf("%s[%d]", "ttfts", i)))
	}
	return n, nil
}

// rowValues are row i's values, read and checked.
type rowValues struct {
	ttft, lat     float64   // s
	gaps          []float64 // ms
	errText       string
	outTok, inTok int
}

// read reads row i of every column it has.
func (c *columns) read(s *toolfile.Source, o *toolfile.Obj, i int) (rowValues, error) {
	at := func(key string) string { return toolfile.JoinPath(o.Path, fmt.Sprintf("%s[%d]", key, i)) }
	var v rowValues
	var err error
	if v.ttft, err = s.Time(c.ttfts[i], o.Line, at("ttfts")); err != nil {
		return v, err
	}
	gapsRaw, err := s.Array(c.itls[i], o.Line, at("itls"))
	if err != nil {
		return v, err
	}
	v.gaps = make([]float64, len(gapsRaw))
	for j := range gapsRaw {
		g, err := s.Time(gapsRaw[j], o.Line, toolfile.JoinPath(at("itls"), fmt.Sprintf("[%d]", j)))
		if err != nil {
			return v, err
		}
		v.gaps[j] = g * 1000
	}
	if c.errs != nil {
		if e := c.errs[i]; !toolfile.IsNull(e) {
			if err := json.Unmarshal(e, &v.errText); err != nil {
				return v, s.ErrAt(o.Line, at("errors"), "want a string, got "+toolfile.Kind(e))
			}
		}
	}
	if c.outLens != nil {
		if v.outTok, err = s.Count(c.outLens[i], o.Line, at("output_lens")); err != nil {
			return v, err
		}
	}
	if c.inLens != nil {
		if v.inTok, err = s.Count(c.inLens[i], o.Line, at("input_lens")); err != nil {
			return v, err
		}
	}
	if c.lats != nil {
		if v.lat, err = s.Time(c.lats[i], o.Line, at("latencies")); err != nil {
			return v, err
		}
	}
	if c.queues != nil {
		if _, err := s.Time(c.queues[i], o.Line, at("queue_times")); err != nil {
			return v, err
		}
	}
	return v, nil
}

// attempt is row i: its start, events (ttft then the itls), end and
// outcome (a 0.0 TTFT is missing, not 0).
func (c *columns) attempt(s *toolfile.Source, o *toolfile.Obj, i int, n *rowCounts) (trace.Attempt, error) {
	at := func(key string) string { return toolfile.JoinPath(o.Path, fmt.Sprintf("%s[%d]", key, i)) }
	v, err := c.read(s, o, i)
	if err != nil {
		return trace.Attempt{}, err
	}
	a := trace.Attempt{ID: fmt.Sprintf("r%d", i), StartMS: (c.startS[i] - c.origin) * 1000, HasEnd: true,
		InputTokens: v.inTok, OutputTokens: v.outTok}
	if c.starts == nil {
		a.StartMS = 0
	}
	ok := v.errText == "" && v.ttft > 0
	if v.ttft > 0 {
		a.Events = toolfile.EventsFrom(a.StartMS, v.ttft*1000, v.gaps, v.outTok)
		if v.outTok > 0 && len(a.Events) > v.outTok {
			n.chatOpen++
		}
	} else if len(v.gaps) > 0 {
		return a, s.ErrAt(o.Line, at("itls"), fmt.Sprintf("has %s but ttfts[%d] is 0.0 (no first chunk): gaps need a first event", lang.N(lang.EN, len(v.gaps), "gap", "gaps"), i))
	}
	last := a.StartMS
	if len(a.Events) > 0 {
		last = a.Events[len(a.Events)-1].TMS
	}
	a.EndMS = last
	if ok {
		n.success++
		a.Outcome = trace.OK
		if c.lats != nil {
			end := a.StartMS + v.lat*1000
			switch {
			case end >= last:
				a.EndMS = end
			case last-end > endSlackS*1000:
				return a, s.ErrAt(o.Line, at("latencies"), fmt.Sprintf("%g s ends before the last event at ttft + Σ itls = %g s", v.lat, (last-a.StartMS)/1000))
			}
		}
	} else {
		errText := v.errText
		if errText == "" {
			n.ambiguous++
			errText = "vLLM recorded no error text (ttft 0.0): most likely an HTTP error with an empty reason"
			a.Outcome = trace.HTTPError
		} else {
			a.Outcome, a.HTTPStatus = toolfile.Classify(0, errText)
		}
		a.Error = errText
	}
	meta := map[string]any{"row": i}
	if v.ttft == 0 && !ok {
		meta["ttft_placeholder"] = 0.0
	}
	a.Meta, _ = json.Marshal(meta)
	return a, nil
}

// addSummary adds the tool's own summary, in file order as far as Go maps
// allow: fixed keys first, then the per-metric statistics.
func addSummary(res *toolfile.Result, o *toolfile.Obj, goodKey string) error {
	st := &res.Report.Stats
	addNum := func(key, metric, stat string) error {
		if _, ok := o.Get(key); !ok {
			return nil
		}
		v, err := o.OptNum(key)
		if err != nil {
			return err
		}
		x := toolfile.Stat{Metric: metric, Stat: stat, Value: v, Key: key}
		if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
			x.NonFinite = strings.Trim(string(o.Raw(key)), `"#`)
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
			return err
		}
	}
	var statKeys []string
	for key := range o.M {
		if vllmStatKey.MatchString(key) {
			statKeys = append(statKeys, key)
		} else if vllmStatKeyFolded.MatchString(key) {
			o.CheckTwin(strings.ToLower(key), func(k string) bool { return k == key })
		}
	}
	sortStatKeys(statKeys)
	for _, key := range statKeys {
		m := vllmStatKey.FindStringSubmatch(key)
		if err := addNum(key, vllmMetric[m[2]], m[1]); err != nil {
			return err
		}
	}
	return nil
}

// crossCheck says out loud, never as an error, where the tool's counts
// disagree with the rows, and what the rows held that needs a word.
func crossCheck(res *toolfile.Result, o *toolfile.Obj, rows int, n rowCounts) {
	if c, _ := o.OptNum("completed"); c != nil && int(*c) != n.success {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"vLLM 写的是 completed = %g，但没有错误且收到首个块的行有 %s 行",
			"vLLM says completed = %g, but %s no error and a first chunk"}, *c, toolfile.Count(n.success, "row has", "rows have")))
	}
	if f, _ := o.OptNum("failed"); f != nil && int(*f) != rows-n.success {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"vLLM 写的是 failed = %g，但这里有 %s 行是失败",
			"vLLM says failed = %g, but %s here"}, *f, toolfile.Count(rows-n.success, "row is a failure", "rows are failures")))
	}
	if np, _ := o.OptNum("num_prompts"); np != nil && int(*np) != rows {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"num_prompts = %g，但逐请求数组里有 %s 次尝试：以数组为准",
			"num_prompts = %g but the per-request arrays hold %s: the arrays are used"}, *np, toolfile.Count(rows, "attempt", "attempts")))
	}
	if n.ambiguous > 0 {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"%s 个失败行的错误文本为空：导入为 http_error（vLLM 写的是 response.reason，它可能为空）",
			"%s an empty error text: imported as http_error (vLLM writes response.reason, which can be empty)"}, toolfile.Count(n.ambiguous, "failed row has", "failed rows have")))
	}
	if n.chatOpen > 0 {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"%s 个请求的流式事件比输出 token 多（例如 chat 接口开头那个只含 role 的块，vLLM 把它算作首个 token）",
			"%s more streamed events than output tokens (e.g. the chat role-only opening chunk vLLM counts as the first token)"}, toolfile.Count(n.chatOpen, "request has", "requests have")))
	}
}

// conditions are the header's conditions of the run: its clock and
// window, what the file lacks, and the tool's own settings; attempts that
// start after the window get a note each.
func conditions(res *toolfile.Result, r *run, c *columns) toolfile.Conditions {
	var lossy []string
	clock := "vLLM perf_counter seconds (relative, arbitrary origin), converted to ms from the first start_times value"
	window := fmt.Sprintf("vLLM duration = %g s (dispatch of the first request to completion of all, failures included), placed from the first start_times value; the tool's own start is a little earlier and is not recorded", c.dur)
	if c.starts == nil {
		clock = "none recorded: the file has no start_times, so every attempt starts at 0 ms; only per-attempt times (TTFT, ITL, E2E) are measured"
		window = fmt.Sprintf("vLLM duration = %g s from 0; arrival times are unknown", c.dur)
		lossy = append(lossy, "no start_times: arrival times and concurrency are lost; every attempt starts at 0 ms")
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"没有 start_times（旧布局）：每次尝试都从 0 ms 开始",
			"no start_times (older layout): every attempt starts at 0 ms"}))
	}
	if c.lats == nil {
		lossy = append(lossy, "no latencies: a success's end is its last event (start + ttft + Σ itls), the same point current vLLM calls latency")
	}
	if c.errs == nil {
		lossy = append(lossy, "no errors array: a row is a failure when its ttft is 0.0")
	}
	if c.outLens == nil {
		lossy = append(lossy, "no output_lens: output token counts unknown, TPOT unavailable")
	}
	lossy = append(lossy,
		"failed attempts' end times are not recorded: end_ms is the start (or the last partial event)",
		"goodput SLOs given to vLLM are not recorded in the file")
	for i := range res.Attempts {
		if !res.Header.Window.Contains(res.Attempts[i].StartMS) {
			res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
				"尝试 r%d 在 %g ms 开始，晚于 %g s 的窗口：指标口径卡把它算在窗口之外",
				"attempt r%d starts at %g ms, after the %g s window: the card counts it outside the window"}, i, res.Attempts[i].StartMS, c.dur))
		}
	}
	return toolfile.Conditions{
		Source: "vllm bench serve result JSON", Layout: r.layout, Run: r.k + 1, Runs: r.runs,
		Clock: clock, Window: window,
		ITLSemantics: "per_event",
		EventTimes:   "reconstructed as start + ttft + cumulative itls (one vLLM ITL sample per SSE message)",
		EventTokens:  "vLLM records no per-message token count: output_lens is spread evenly over the events (≥ 1 each); only the sum is measured, so use TPOT for per-token",
		Failures:     "a row is a failure when errors[i] is non-empty or ttfts[i] is 0.0; a 0.0 TTFT is missing (no events); outcome from the error text: reason phrase → http_error, timeout → timeout, connector error → connect_error, anything else → stream_error with the text",
		Quality:      toolfile.QualityNull,
		Lossy:        lossy,
		Tool:         toolSettings(r.o),
	}
}

// toolSettings are the run's settings as vLLM recorded them.
func toolSettings(o *toolfile.Obj) map[string]any {
	tool := map[string]any{}
	for _, k := range []string{"backend", "model_id", "tokenizer_id", "num_prompts", "request_rate", "burstiness", "max_concurrency", "date", "label"} {
		if v, ok := o.Get(k); ok {
			var x any
			if json.Unmarshal(v, &x) == nil {
				if str, isStr := x.(string); isStr && strings.HasPrefix(str, "#") {
					x = strings.TrimPrefix(str, "#") // a sanitised bare Infinity/NaN, e.g. burstiness inf
				}
				tool[k] = x
			}
		}
	}
	return tool
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
