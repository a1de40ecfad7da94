// Package inferenceperf imports inference-perf's
// per_request_lifecycle_metrics.json and reads its
// summary_lifecycle_metrics.json.
package inferenceperf

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"

	"github.com/llmperf-course/course/coursekit/importer/internal/toolfile"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// httpErrorType matches inference-perf's error_type for a non-200 answer.
var httpErrorType = regexp.MustCompile(`^HTTP Error ([1-5][0-9][0-9])$`)

// ipRow is one row of per_request_lifecycle_metrics.json, checked.
type ipRow struct {
	path        string
	start, end  float64 // perf_counter seconds
	sched       *float64
	streamed    bool      // response_metrics has chunk_times (a streamed answer)
	chunks      []float64 // content-bearing chunk times, distinct, in order
	tokenTimes  []float64 // output_token_times: one per re-tokenised token
	outTokens   int
	inTokens    int
	failed      bool
	errType     string
	errMsg      string
	meta        map[string]any
	serverCompl *float64
}

// Import reads inference-perf's per_request_lifecycle_metrics.json:
// a JSON array with one RequestLifecycleMetric per request, failures
// included, every time a time.perf_counter() value in seconds.
func Import(s *toolfile.Source, _ toolfile.Options) (*toolfile.Result, error) {
	rows, err := readRows(s)
	if err != nil {
		return nil, err
	}
	sp := spanOf(rows)
	res := &toolfile.Result{}
	res.Report.Run, res.Report.Runs = 1, 1
	res.Report.PercentileMethod = "linear (np.percentile)"
	x := buildAttempts(res, rows, sp.origin)
	ms := func(t float64) float64 { return (t - sp.origin) * 1000 }
	win := trace.Window{StartMS: ms(sp.minStart), EndMS: ms(sp.maxEnd)}
	for _, a := range res.Attempts {
		if a.StartMS >= win.EndMS {
			win.EndMS = a.StartMS + 1e-3 // a zero-length last request must stay inside
		}
	}
	res.Header = trace.Header{Clock: "client", Window: win}
	addStats(res, len(rows), sp, x)
	res.Conds = conditions(len(rows), sp.scheduled, x)
	return res, nil
}

// readRows reads per_request_lifecycle_metrics.json's one array, a row
// each (readIPRow).
func readRows(s *toolfile.Source) ([]ipRow, error) {
	list, err := s.OneArray("per_request_lifecycle_metrics.json")
	if err != nil {
		return nil, err
	}
	rows := make([]ipRow, len(list))
	for i, raw := range list {
		if rows[i], err = readIPRow(s, raw, fmt.Sprintf("[%d]", i)); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// span is the rows' clock: the origin (the earliest start or scheduled
// time), the first start and last end, and how many rows were scheduled.
type span struct {
	origin, minStart, maxEnd float64
	scheduled                int
}

func spanOf(rows []ipRow) span {
	sp := span{origin: math.Inf(1), minStart: math.Inf(1), maxEnd: math.Inf(-1)}
	for _, r := range rows {
		sp.minStart = min(sp.minStart, r.start)
		sp.maxEnd = max(sp.maxEnd, r.end)
		sp.origin = min(sp.origin, r.start)
		if r.sched != nil {
			sp.origin = min(sp.origin, *r.sched)
			sp.scheduled++
		}
	}
	return sp
}

// built is what building the attempts found: the tool's samples, and the
// rows that need a word.
type built struct {
	ttfts, itls, e2es        []float64
	unary, noContent, spread int
	maxLagMS                 float64
}

// buildAttempts makes an attempt of every row on a clock from origin: its
// events (a chunk each, or the whole answer at the end), outcome and meta;
// and recomputes the tool's samples its way.
func buildAttempts(res *toolfile.Result, rows []ipRow, origin float64) built {
	ms := func(t float64) float64 { return (t - origin) * 1000 }
	x := built{maxLagMS: math.Inf(-1)}
	for i, r := range rows {
		a := trace.Attempt{ID: fmt.Sprintf("r%d", i), StartMS: ms(r.start), EndMS: ms(r.end), HasEnd: true,
			OutputTokens: r.outTokens, InputTokens: r.inTokens}
		switch {
		case r.streamed:
			tokens, ok := chunkTokens(r.chunks, r.tokenTimes)
			if !ok {
				tokens = toolfile.SpreadTokens(r.outTokens, len(r.chunks))
				if len(r.chunks) > 0 {
					x.spread++
				}
			}
			for j, c := range r.chunks {
				a.Events = append(a.Events, trace.Event{TMS: ms(c), Tokens: tokens[j]})
			}
		case !r.failed:
			// A non-streamed answer arrives whole: one event at the end.
			x.unary++
			a.Events = []trace.Event{{TMS: a.EndMS, Tokens: max(r.outTokens, 1)}}
		}
		switch {
		case r.failed:
			status := 0
			if m := httpErrorType.FindStringSubmatch(r.errType); m != nil {
				status, _ = strconv.Atoi(m[1])
			}
			a.Outcome, a.HTTPStatus = toolfile.Classify(status, r.errType+": "+r.errMsg)
			a.Error = r.errType + ": " + r.errMsg
		case len(a.Events) == 0:
			x.noContent++
			a.Outcome = trace.EmptyOutput
			a.Error = "no content-bearing chunk arrived (inference-perf counts this request as a success)"
		default:
			a.Outcome = trace.OK
		}
		if !r.failed {
			res.ToolOK++
			x.e2es = append(x.e2es, (r.end-r.start)*1000)
			// The tool's TTFT and ITL come from output_token_times, and only
			// for requests with more than one of them.
			if len(r.tokenTimes) > 1 {
				x.ttfts = append(x.ttfts, (r.tokenTimes[0]-r.start)*1000)
				for j := 1; j < len(r.tokenTimes); j++ {
					x.itls = append(x.itls, (r.tokenTimes[j]-r.tokenTimes[j-1])*1000)
				}
			}
		}
		meta := r.meta
		meta["row"] = i
		if r.sched != nil {
			sms := math.Round(ms(*r.sched)*1e6) / 1e6
			meta["scheduled_ms"] = sms
			x.maxLagMS = max(x.maxLagMS, a.StartMS-sms)
		}
		if r.serverCompl != nil {
			meta["server_completion_tokens"] = *r.serverCompl
		}
		a.Meta, _ = json.Marshal(meta)
		res.Attempts = append(res.Attempts, a)
		res.Paths = append(res.Paths, r.path)
	}
	return x
}

// addStats adds inference-perf's numbers recomputed its way and the notes
// on how they differ from the card's.
func addStats(res *toolfile.Result, n int, sp span, x built) {
	res.Report.Stats = append(res.Report.Stats,
		toolfile.Stat{Metric: "attempts", Stat: "count", Value: toolfile.Ptr(float64(n)), Key: "load_summary.count", Derived: true},
		toolfile.Stat{Metric: "completed", Stat: "count", Value: toolfile.Ptr(float64(res.ToolOK)), Key: "successes.count (rows with error null)", Derived: true},
		toolfile.Stat{Metric: "failed", Stat: "count", Value: toolfile.Ptr(float64(n - res.ToolOK)), Key: "failures.count", Derived: true},
		toolfile.Stat{Metric: "duration_s", Stat: "value", Value: toolfile.Ptr(toolfile.Snap(sp.maxEnd - sp.minStart)), Key: "benchmark_time_seconds = max end_time - min start_time", Derived: true})
	lv := []string{"p50", "p90", "p99"}
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("ttft_ms", "successes.latency.time_to_first_token", x.ttfts, lv)...)
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("itl_ms", "successes.latency.inter_token_latency (per token)", x.itls, lv)...)
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("e2e_ms", "successes.latency.request_latency", x.e2es, lv)...)
	res.DerivedNote = func(name string) toolfile.Note {
		return toolfile.NewNote(lang.Msg{
			"%s 里没有汇总（inference-perf 把汇总写在另一个文件 summary_lifecycle_metrics.json，见 --summary）：工具的数字按 inference-perf 的算法重算（error 为 null 的行，np.percentile 线性插值，TTFT 和 ITL 取自 output_token_times）",
			"%s holds no summary (inference-perf writes it to another file, summary_lifecycle_metrics.json: see --summary): the tool's numbers are recomputed inference-perf's way (rows with error null, np.percentile linear, TTFT and ITL from output_token_times)"}, name)
	}
	res.Report.Notes = append(res.Report.Notes,
		toolfile.NewNote(lang.Msg{
			"inference-perf 的 inter_token_latency 逐 token 计：一个块里的每个 token 都记为该块的到达时刻，所以块内的间隔是 0，块与块之间的整段间隔全算在一个 token 上（per_token_zero_fill）；指标口径卡的 ITL 逐事件计",
			"inference-perf's inter_token_latency is per token: every token of a chunk gets the chunk's arrival time, so the gaps inside a chunk are 0 and the whole gap between chunks is charged to one token (per_token_zero_fill); the card's ITL is per event"}),
		toolfile.NewNote(lang.Msg{
			"inference-perf 的 TTFT 和 TPOT 只覆盖 output_token_times 多于一项的成功请求（要用它的分词器）；它的 request_latency 覆盖每个成功请求，失败另外汇总（failures.count）",
			"inference-perf's TTFT and TPOT cover only successes with more than one output_token_times entry (they need its tokenizer); its request_latency covers every success, failures are summarised apart (failures.count)"}),
		toolfile.NewNote(lang.Msg{
			"inference-perf 的 goodput_percentage 是 合格数 / 成功请求数 × 100：失败不在它的分母里；指标口径卡的合格率除以全部尝试",
			"inference-perf's goodput_percentage is good / successful requests × 100: failures are left out of its denominator; the card's qualified rate divides by every attempt"}))
	if sp.scheduled == n {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"每次尝试的计划发送时刻存在 meta.scheduled_ms 里；发送比计划晚得最多的一次晚了 %s ms",
			"each attempt keeps its scheduled send time in meta.scheduled_ms; the largest lag of a send behind its schedule is %s ms"}, fmtLag(x.maxLagMS)))
	} else {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"%d 行（共 %d 行）没有 scheduled_time（inference-perf 的报告写入器没有把它写进这个文件）：这些发送比计划晚了多少已经无从得知；汇总文件的 load_summary.schedule_delay 里还有",
			"%d of %d rows carry no scheduled_time (inference-perf's report writer leaves it out of this file): their schedule lag is lost; the summary's load_summary.schedule_delay still has it"}, n-sp.scheduled, n))
	}
	if x.noContent > 0 {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"%s 行没有错误，却没有一个带内容的块：导入为 empty_output（失败），尽管 inference-perf 把它们算作成功",
			"%s no content-bearing chunk: imported as empty_output (a failure), although inference-perf counts them as successes"}, toolfile.Count(x.noContent, "row without error has", "rows without error have")))
	}
}

// conditions are the header's conditions of an inference-perf import.
func conditions(n, scheduled int, x built) toolfile.Conditions {
	layout := "array of RequestLifecycleMetric"
	lossy := []string{}
	if scheduled < n {
		lossy = append(lossy, fmt.Sprintf("%s no scheduled_time: their lag behind the schedule is unknown", lang.N(lang.EN, n-scheduled, "row has", "rows have")))
	}
	if x.spread > 0 {
		lossy = append(lossy, fmt.Sprintf("%s no usable output_token_times (no tokenizer configured): their output_tokens are spread evenly over the chunks", lang.N(lang.EN, x.spread, "streamed row has", "streamed rows have")))
	}
	if x.unary > 0 {
		lossy = append(lossy, fmt.Sprintf("%s not streamed: the whole answer is one event at end_time, so their TTFT equals their E2E", lang.N(lang.EN, x.unary, "success was", "successes were")))
	}
	clock := "inference-perf time.perf_counter() seconds: a relative clock with an arbitrary origin (not epoch time), shared by scheduled_time, start_time, chunk_times and end_time; converted to ms from the earliest start_time"
	if scheduled > 0 {
		clock += " or scheduled_time"
	}
	return toolfile.Conditions{
		Source: "inference-perf per_request_lifecycle_metrics.json", Layout: layout, Run: 1, Runs: 1,
		Clock:        clock,
		Window:       "inference-perf's benchmark time: the first start_time to the last end_time over every row, failures included",
		ITLSemantics: "per_token_zero_fill",
		EventTimes:   "measured: one event per content-bearing chunk (chunk_times; role-only, usage-only and [DONE] chunks are not recorded, chunks arriving at the same instant are one event); inference-perf's own inter_token_latency is per token with 0 inside a chunk",
		EventTokens:  "from output_token_times (inference-perf re-tokenises each chunk client-side and stamps every token with its chunk's time) where present; otherwise output_tokens spread evenly over the events (≥ 1 each)",
		Failures:     "a row with an error is a failure: error_type \"HTTP Error NNN\" → http_error with that status, TimeoutError → timeout, connection errors → connect_error, else stream_error with type and message; a row without error and without a content chunk is empty_output",
		Quality:      toolfile.QualityNull,
		Lossy:        lossy,
	}
}

func fmtLag(v float64) string {
	if math.IsInf(v, 0) {
		return "0"
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// chunkTokens counts the output_token_times entries stamped with each
// chunk's time. ok is false when they do not match the chunks (no
// tokenizer, or a chunk that re-tokenised to nothing).
func chunkTokens(chunks, tokenTimes []float64) ([]int, bool) {
	if len(tokenTimes) == 0 || len(chunks) == 0 {
		return nil, false
	}
	idx := make(map[float64]int, len(chunks))
	for j, c := range chunks {
		idx[c] = j
	}
	tokens := make([]int, len(chunks))
	for _, t := range tokenTimes {
		j, ok := idx[t]
		if !ok {
			return nil, false
		}
		tokens[j]++
	}
	for _, k := range tokens {
		if k == 0 {
			return nil, false
		}
	}
	return tokens, true
}

// readIPRow checks one RequestLifecycleMetric. Both spellings are read:
// the model's own (request_data, response_data, stage_id, scheduled_time)
// and the report writer's (request, response, no scheduled_time).
func readIPRow(s *toolfile.Source, raw json.RawMessage, path string) (ipRow, error) {
	r := ipRow{path: path, meta: map[string]any{}}
	o, err := s.Object(raw, 0, path)
	if err != nil {
		return r, err
	}
	if err := r.readTimes(s, o); err != nil {
		return r, err
	}
	if err := r.readError(o); err != nil {
		return r, err
	}
	info, err := o.OptSub("info")
	if err != nil || info == nil {
		return r, err
	}
	if err := r.readInputTokens(s, info); err != nil {
		return r, err
	}
	rm, err := info.OptSub("response_metrics")
	if err != nil || rm == nil {
		return r, err
	}
	return r, r.readResponse(s, rm)
}

// readTimes reads the row's start, end and scheduled time, its stage and
// its session.
func (r *ipRow) readTimes(s *toolfile.Source, o *toolfile.Obj) error {
	readTime := func(key string) (float64, error) {
		v, err := o.Num(key)
		if err != nil {
			return 0, err
		}
		return v, s.CheckTime(v, 0, toolfile.JoinPath(r.path, key))
	}
	var err error
	if r.start, err = readTime("start_time"); err != nil {
		return err
	}
	if r.end, err = readTime("end_time"); err != nil {
		return err
	}
	if r.end < r.start {
		return o.Err("end_time", fmt.Sprintf("%v s is before start_time %v s", r.end, r.start))
	}
	if o.Has("scheduled_time") {
		v, err := readTime("scheduled_time")
		if err != nil {
			return err
		}
		r.sched = &v
	}
	if o.Has("stage_id") {
		st, err := s.Count(o.Raw("stage_id"), 0, toolfile.JoinPath(r.path, "stage_id"))
		if err != nil {
			return err
		}
		r.meta["stage_id"] = st
	}
	if sid, err := o.Str("session_id"); err != nil {
		return err
	} else if sid != "" {
		r.meta["session_id"] = sid
	}
	return nil
}

// readError reads the row's error field: null for a success, else its
// type and message.
func (r *ipRow) readError(o *toolfile.Obj) error {
	if _, ok := o.Get("error"); !ok {
		return o.Err("error", "missing: every row has an error field (null for a success)")
	}
	if !o.Has("error") {
		return nil
	}
	e, err := o.Sub("error")
	if err != nil {
		return err
	}
	if !e.Has("error_type") {
		return e.Err("error_type", "missing")
	}
	if r.errType, err = e.Str("error_type"); err != nil {
		return err
	}
	if r.errMsg, err = e.Str("error_msg"); err != nil {
		return err
	}
	r.failed = true
	return nil
}

// readInputTokens reads the prompt's token count, where it is recorded.
func (r *ipRow) readInputTokens(s *toolfile.Source, info *toolfile.Obj) error {
	var err error
	if info.Has("request_metrics") {
		rq, err := info.Sub("request_metrics")
		if err != nil {
			return err
		}
		if text, err := rq.OptSub("text"); err != nil {
			return err
		} else if text != nil && text.Has("input_tokens") {
			if r.inTokens, err = s.Count(text.Raw("input_tokens"), 0, toolfile.JoinPath(text.Path, "input_tokens")); err != nil {
				return err
			}
		}
	} else if info.Has("input_tokens") { // the older top-level mirror
		if r.inTokens, err = s.Count(info.Raw("input_tokens"), 0, toolfile.JoinPath(info.Path, "input_tokens")); err != nil {
			return err
		}
	}
	return nil
}

// readResponse reads the response's token counts and its chunk and token
// times, each within the row's span and in arrival order.
func (r *ipRow) readResponse(s *toolfile.Source, rm *toolfile.Obj) error {
	var err error
	if rm.Has("output_tokens") {
		if r.outTokens, err = s.Count(rm.Raw("output_tokens"), 0, toolfile.JoinPath(rm.Path, "output_tokens")); err != nil {
			return err
		}
	}
	if su, err := rm.OptSub("server_usage"); err != nil {
		return err
	} else if su != nil && su.Has("completion_tokens") {
		n, err := s.Count(su.Raw("completion_tokens"), 0, toolfile.JoinPath(su.Path, "completion_tokens"))
		if err != nil {
			return err
		}
		r.serverCompl = toolfile.Ptr(float64(n))
	}
	if rm.Has("chunk_times") {
		r.streamed = true
		if r.chunks, err = r.times(s, rm, "chunk_times", true); err != nil {
			return err
		}
	}
	if rm.Has("output_token_times") {
		if r.tokenTimes, err = r.times(s, rm, "output_token_times", false); err != nil {
			return err
		}
	}
	return nil
}

// times reads a list of times of the response, each within the row's span
// and not before the one before it; distinct merges equal times (several
// data: lines of one SSE message share its time).
func (r *ipRow) times(s *toolfile.Source, rm *toolfile.Obj, key string, distinct bool) ([]float64, error) {
	list, err := rm.Array(key)
	if err != nil {
		return nil, err
	}
	var out []float64
	prev := r.start
	for j, t := range list {
		p := fmt.Sprintf("%s.%s[%d]", rm.Path, key, j)
		v, err := s.Time(t, 0, p)
		if err != nil {
			return nil, err
		}
		switch {
		case v < r.start:
			return nil, s.ErrAt(0, p, fmt.Sprintf("%v s is before start_time %v s", v, r.start))
		case v > r.end:
			return nil, s.ErrAt(0, p, fmt.Sprintf("%v s is after end_time %v s", v, r.end))
		case v < prev:
			return nil, s.ErrAt(0, p, fmt.Sprintf("%v s is before the previous time %v s: times must be in arrival order", v, prev))
		}
		prev = v
		if distinct && len(out) > 0 && out[len(out)-1] == v {
			continue // several data: lines of one SSE message share its time
		}
		out = append(out, v)
	}
	return out, nil
}
