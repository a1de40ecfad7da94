// Package aiperf imports AIPerf's per-request records
// (profile_export.jsonl) and reads its summary file
// (profile_export_aiperf.json), whose layout GenAI-Perf's summary shares.
package aiperf

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/llmperf-course/course/coursekit/importer/internal/toolfile"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// timeUnits converts the time units AIPerf writes to milliseconds.
var timeUnits = map[string]float64{"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1, "s": 1000, "sec": 1000}

// aiperfMetric reads metrics[tag] = {"value": V, "unit": U}, trying the
// long tag and then the short one (newer docs show "ttft" for
// "time_to_first_token"). The path names the tag actually found.
func aiperfMetric(m *toolfile.Obj, tags ...string) (raw json.RawMessage, scale float64, path string, found bool, err error) {
	for _, tag := range tags {
		if !m.Has(tag) {
			continue
		}
		mv, err := m.Sub(tag)
		if err != nil {
			return nil, 0, "", false, err
		}
		unit, err := mv.Str("unit")
		if err != nil {
			return nil, 0, "", false, err
		}
		sc, ok := timeUnits[unit]
		if !ok {
			return nil, 0, "", false, mv.Err("unit", fmt.Sprintf("%q is not a time unit (want ns, us, ms or s)", unit))
		}
		v, ok := mv.Get("value")
		if !ok {
			return nil, 0, "", false, mv.Err("value", "missing")
		}
		return v, sc, toolfile.JoinPath(mv.Path, "value"), true, nil
	}
	return nil, 0, "", false, nil
}

// aiperfCount reads a token-count metric, 0 when absent.
func aiperfCount(m *toolfile.Obj, tag string) (int, error) {
	if !m.Has(tag) {
		return 0, nil
	}
	mv, err := m.Sub(tag)
	if err != nil {
		return 0, err
	}
	v, ok := mv.Get("value")
	if !ok {
		return 0, mv.Err("value", "missing")
	}
	return m.Src.Count(v, m.Line, toolfile.JoinPath(mv.Path, "value"))
}

// MetricInterChunk is AIPerf's inter_chunk_latency: the gap between
// consecutive chunks of a stream, pooled over every valid record. It is the
// card's per-event ITL (the same gaps), percentiles by numpy linear.
const MetricInterChunk = "itl_ms (inter_chunk_latency, per event)"

// MalformedNote says how AIPerf 0.13 counts a stream that carried a
// malformed SSE message (checked against coursekit sim's malformed fault),
// for a file whose records give ok ok attempts. Such a stream's record has
// no error and looks like any other success (the fixture's three are
// indistinguishable from the rest), so the note cannot count them: it
// says that any of the ok attempts may be one. A file without an ok
// attempt cannot hold one, and gets no note (ok false).
func MalformedNote(ok int) (toolfile.Note, bool) {
	if ok == 0 {
		return toolfile.Note{}, false
	}
	return toolfile.NewNote(lang.Msg{
		"AIPerf 0.13 把带有畸形 SSE 消息的流算作成功（记录里没有 error），" +
			"而 vLLM、guidellm 和 coursekit bench 判它失败。这样的记录和干净的成功看起来一样，" +
			"所以无法判断本 trace 的 %s 次 ok 尝试里有几次是这种流（可能一次也没有）；" +
			"若有，面对同一台服务器，AIPerf 的成功数会比别的工具多",
		"AIPerf 0.13 counts a stream that carried a malformed SSE message as a success (no error in its record), " +
			"while vLLM, guidellm and coursekit bench fail it. Such a record looks like a clean success, " +
			"so there is no telling how many of the %s in this trace were such streams (maybe none); " +
			"if any were, AIPerf's success count is higher than another tool's against the same server"}, toolfile.Count(ok, "ok attempt", "ok attempts")), true
}

// errorKinds counts the errors AIPerf recorded, by type and message, with
// the outcome each became, so that the import says what AIPerf recorded
// rather than only the trace's name for it.
type errorKinds struct {
	order []string
	kinds map[string]*errorKind
}

type errorKind struct {
	typ, msg string
	code     int
	outcome  trace.Outcome
	n        int
}

func (k *errorKinds) add(typ, msg string, code int, o trace.Outcome) {
	key := fmt.Sprintf("%d\x00%s\x00%s\x00%s", code, typ, msg, o)
	if k.kinds == nil {
		k.kinds = map[string]*errorKind{}
	}
	if e, ok := k.kinds[key]; ok {
		e.n++
		return
	}
	k.order = append(k.order, key)
	k.kinds[key] = &errorKind{typ: typ, msg: msg, code: code, outcome: o, n: 1}
}

// outcomeWords says what each outcome means for an AIPerf record.
var outcomeWords = map[trace.Outcome]lang.Msg{
	trace.NoResponse: {"无响应：请求已发出，连接在收到任何响应字节之前就关闭了（aiohttp 复用了连接池里一条服务器已经关掉的 keep-alive 连接，而 AIPerf 不会重发这个请求）",
		"no response: the request was sent and the connection closed before any response byte (aiohttp reuses a pooled keep-alive connection the server had closed, and AIPerf does not send the request again)"},
	trace.HTTPError:    {"服务器返回了错误状态码", "the server answered with an error status"},
	trace.StreamError:  {"响应开始之后中断了", "the response broke after it began"},
	trace.Timeout:      {"超时", "timed out"},
	trace.ConnectError: {"连不上服务器", "no connection to the server"},
	trace.Cancelled:    {"被 AIPerf 取消", "cancelled by AIPerf"},
}

// maxRecordedMsg bounds an error message quoted in the note.
const maxRecordedMsg = 120

// note lists the recorded errors: "AIPerf recorded errors on 3 records:
// 1 × ServerDisconnectedError "Server disconnected" → no_response (…)".
func (k *errorKinds) note() (toolfile.Note, bool) {
	if len(k.order) == 0 {
		return toolfile.Note{}, false
	}
	total := 0
	var parts []toolfile.Note
	for _, key := range k.order {
		e := k.kinds[key]
		total += e.n
		what := e.typ
		if e.code != 0 {
			what = fmt.Sprintf("code %d %s", e.code, e.typ)
		}
		msg := []rune(e.msg)
		if len(msg) > maxRecordedMsg {
			msg = append(msg[:maxRecordedMsg], '…')
		}
		parts = append(parts, toolfile.NewNote(lang.Msg{"%d × %s %q → %s（%s）", "%d × %s %q → %s (%s)"}, e.n, what, string(msg), e.outcome, outcomeWords[e.outcome]))
	}
	return toolfile.NewNote(lang.Msg{"AIPerf 在 %s 条记录上记了错误：%s", "AIPerf recorded an error on %s: %s"}, toolfile.Count(int(total), "record", "records"), toolfile.JoinNotes(parts, lang.Msg{"；", "; "})), true
}

// notASummary stops an import of AIPerf's summary file given as the records
// file (a common mistake): one object with metric blocks and no metadata.
func notASummary(s *toolfile.Source, v json.RawMessage, line int) error {
	o, err := s.Object(v, line, "")
	if err != nil || o.Has("metadata") {
		return nil
	}
	for _, k := range []string{"aiperf_version", "schema_version", "request_count", "time_to_first_token", "benchmark_duration"} {
		if o.Has(k) {
			return s.ErrAt(line, "", "this is AIPerf's summary (profile_export_aiperf.json), not its per-request records: "+
				"give the records file (profile_export.jsonl, from --export-level records) as FILE and this file as --summary")
		}
	}
	return nil
}

// Import reads AIPerf's profile_export.jsonl: one record per request,
// failures included. Times are wall-anchored monotonic nanoseconds. Its
// steps: read every record (readRecords), pick the profiling ones (the
// warm-up is left out, as AIPerf leaves it out), build the result from
// them (build).
func Import(s *toolfile.Source, _ toolfile.Options) (*toolfile.Result, error) {
	recs, err := readRecords(s)
	if err != nil {
		return nil, err
	}
	rows, warmup := pickProfiling(recs)
	if len(rows) == 0 {
		return nil, s.ErrAt(0, "", fmt.Sprintf("no profiling records (%s)", lang.N(lang.EN, warmup, "warm-up record", "warm-up records")))
	}
	return build(rows, warmup), nil
}

// row is one profiling record: the attempt (events relative to its start
// until build shifts them), its times in ns and AIPerf's own numbers.
type row struct {
	a               trace.Attempt
	startNS, endNS  int64
	hasEnd          bool
	valid           bool // AIPerf counts it: no error, a first token
	noICL           bool // valid, several tokens, no inter_chunk_latency list
	ttft, itl       *float64
	latency         *float64
	errType, errMsg string // what AIPerf recorded for a failed record
	errCode         int
	failed          bool
	line            int // the record's line in the file, for errors
}

// record is a line of the file: a profiling row, or a warm-up record
// (read no further than its phase).
type record struct {
	row
	warmup bool
}

// readRecords reads every record of the file, stopping at the first bad
// one (a warm-up record is read only as far as its phase).
func readRecords(s *toolfile.Source) ([]record, error) {
	vals, lines, err := s.Values()
	if err != nil {
		return nil, err
	}
	if len(vals) == 1 {
		if err := notASummary(s, vals[0], lines[0]); err != nil {
			return nil, err
		}
	}
	recs := make([]record, 0, len(vals))
	for i, v := range vals {
		r, err := readRecord(s, v, lines[i])
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// readRecord reads one record: metadata (phase, times, ids), metrics
// (token counts, TTFT, ITL, latency, the chunk gaps) and error.
func readRecord(s *toolfile.Source, v json.RawMessage, line int) (record, error) {
	r := record{row: row{line: line}}
	o, err := s.Object(v, line, "")
	if err != nil {
		return r, err
	}
	md, err := o.Sub("metadata")
	if err != nil {
		return r, err
	}
	phase, err := md.Str("benchmark_phase")
	if err != nil {
		return r, err
	}
	if phase == "warmup" {
		r.warmup = true
		return r, nil
	}
	if err := r.readMetadata(s, md, line); err != nil {
		return r, err
	}
	mets := &toolfile.Obj{Src: s, Line: line, Path: "metrics", M: map[string]json.RawMessage{}}
	if o.Has("metrics") {
		if mets, err = o.Sub("metrics"); err != nil {
			return r, err
		}
	}
	gaps, err := r.readMetrics(s, mets, line)
	if err != nil {
		return r, err
	}
	if err := r.readOutcome(s, o, md, line); err != nil {
		return r, err
	}
	if r.ttft != nil {
		r.noICL = r.valid && gaps == nil && r.a.OutputTokens > 1
		r.a.Events = toolfile.EventsFrom(0, *r.ttft, gaps, r.a.OutputTokens) // shifted to the start by build
	}
	return r, nil
}

// readMetadata reads the record's times and ids.
func (r *row) readMetadata(s *toolfile.Source, md *toolfile.Obj, line int) error {
	stRaw, ok := md.Get("request_start_ns")
	if !ok || toolfile.IsNull(stRaw) {
		return md.Err("request_start_ns", "missing")
	}
	st, err := s.Nanos(stRaw, line, "metadata.request_start_ns")
	if err != nil {
		return err
	}
	r.startNS = st
	if en, ok := md.Get("request_end_ns"); ok && !toolfile.IsNull(en) {
		e, err := s.Nanos(en, line, "metadata.request_end_ns")
		if err != nil {
			return err
		}
		if e < st {
			return md.Err("request_end_ns", fmt.Sprintf("%d is before request_start_ns %d", e, st))
		}
		r.endNS, r.hasEnd = e, true
	}
	id, _ := md.Str("x_request_id")
	if id == "" {
		id = fmt.Sprintf("line%d", line)
	}
	r.a.ID = id
	conv, _ := md.Str("conversation_id")
	if conv != "" {
		r.a.Request = conv
		if t, ok := md.Get("turn_index"); ok && !toolfile.IsNull(t) {
			r.a.Request = conv + "#" + string(t)
		}
	}
	return nil
}

// readMetrics reads the token counts, TTFT, ITL and latency, and returns
// the record's chunk gaps (nil when it has no inter_chunk_latency).
func (r *row) readMetrics(s *toolfile.Source, mets *toolfile.Obj, line int) (gaps []float64, err error) {
	out, err := aiperfCount(mets, "output_sequence_length")
	if err != nil {
		return nil, err
	}
	if out == 0 {
		if out, err = aiperfCount(mets, "output_token_count"); err != nil {
			return nil, err
		}
	}
	r.a.OutputTokens = out
	if r.a.InputTokens, err = aiperfCount(mets, "input_sequence_length"); err != nil {
		return nil, err
	}
	readTime := func(tags ...string) (*float64, error) {
		raw, sc, path, found, err := aiperfMetric(mets, tags...)
		if err != nil || !found {
			return nil, err
		}
		v, err := s.Time(raw, line, path)
		if err != nil {
			return nil, err
		}
		v *= sc
		return &v, nil
	}
	if r.ttft, err = readTime("time_to_first_token", "ttft"); err != nil {
		return nil, err
	}
	if r.itl, err = readTime("inter_token_latency", "itl"); err != nil {
		return nil, err
	}
	if r.latency, err = readTime("request_latency"); err != nil {
		return nil, err
	}
	raw, sc, path, found, err := aiperfMetric(mets, "inter_chunk_latency", "icl")
	if err != nil || !found {
		return nil, err
	}
	list, err := s.Array(raw, line, path)
	if err != nil {
		return nil, err
	}
	for j, g := range list {
		v, err := s.Time(g, line, fmt.Sprintf("%s[%d]", path, j))
		if err != nil {
			return nil, err
		}
		gaps = append(gaps, v*sc)
	}
	return gaps, nil
}

// readOutcome reads how the record ended: AIPerf's error (its type,
// message and code kept as recorded), a cancellation, no first token, or
// a success.
func (r *row) readOutcome(s *toolfile.Source, o, md *toolfile.Obj, line int) error {
	r.a.HasEnd = true
	cancelled := false
	if c, ok := md.Get("was_cancelled"); ok && string(c) == "true" {
		cancelled = true
	}
	switch {
	case o.Has("error"):
		e, err := o.Sub("error")
		if err != nil {
			return err
		}
		code := 0
		if c, ok := e.Get("code"); ok && !toolfile.IsNull(c) {
			if code, err = s.Count(c, line, "error.code"); err != nil {
				return err
			}
		}
		typ, _ := e.Str("type")
		msg, _ := e.Str("message")
		r.a.Outcome, r.a.HTTPStatus = toolfile.Classify(code, typ+" "+msg)
		if code == 499 {
			r.a.Outcome = trace.Cancelled
		}
		if r.a.Outcome == trace.NoResponse && r.ttft != nil {
			r.a.Outcome = trace.StreamError // a chunk had arrived: the response had begun
		}
		r.a.Error = fmt.Sprintf("%s: %s", typ, msg)
		r.failed, r.errType, r.errMsg, r.errCode = true, typ, msg, code
	case cancelled:
		r.a.Outcome = trace.Cancelled
		r.a.Error = "was_cancelled"
	case r.ttft == nil:
		r.a.Outcome = trace.EmptyOutput // the server answered, with no text
		r.a.Error = "AIPerf record without error and without time_to_first_token (no non-empty chunk)"
	default:
		r.a.Outcome = trace.OK
		r.valid = true
	}
	return nil
}

// pickProfiling keeps the profiling records, in file order, and counts the
// warm-up ones left out.
func pickProfiling(recs []record) (rows []row, warmup int) {
	for _, r := range recs {
		if r.warmup {
			warmup++
			continue
		}
		rows = append(rows, r.row)
	}
	return rows, warmup
}

// build makes the result of the profiling rows: attempts on a clock from
// the first request start, AIPerf's window, its numbers recomputed its
// way, the notes and the conditions.
func build(rows []row, warmup int) *toolfile.Result {
	res := &toolfile.Result{}
	res.Report.Run, res.Report.Runs = 1, 1
	res.Report.PercentileMethod = "linear (numpy default), inter_chunk_latency included (checked against AIPerf 0.13)"
	var recorded errorKinds
	noICL := 0
	minStart, maxEnd := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range rows {
		r := &rows[i]
		minStart = min(minStart, r.startNS)
		if r.hasEnd {
			maxEnd = max(maxEnd, r.endNS)
		}
		if r.failed {
			recorded.add(r.errType, r.errMsg, r.errCode, r.a.Outcome)
		}
		if r.noICL {
			noICL++
		}
		res.Paths = append(res.Paths, fmt.Sprintf("line %d", r.line))
	}
	samples := buildAttempts(res, rows, minStart)
	winMS := windowMS(res, minStart, maxEnd)
	res.Header = trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: winMS}}
	addStats(res, len(rows), winMS, samples)
	res.ToolOK = len(samples.ttfts)
	if warmup > 0 {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"略去了 %s 条预热记录（AIPerf 也不统计它们）",
			"%s left out (AIPerf does not measure them either)"}, toolfile.Count(warmup, "warm-up record", "warm-up records")))
	}
	if n, ok := recorded.note(); ok {
		res.Report.Notes = append(res.Report.Notes, n)
	}
	if n, ok := MalformedNote(okAttempts(res.Attempts)); ok {
		res.Report.Notes = append(res.Report.Notes, n)
	}
	res.Conds = conditions(warmup, noICL)
	return res
}

// okAttempts counts the attempts whose outcome is ok.
func okAttempts(as []trace.Attempt) int {
	n := 0
	for i := range as {
		if as[i].Outcome == trace.OK {
			n++
		}
	}
	return n
}

// samples are AIPerf's numbers of the valid records, as it computes them.
type samples struct {
	ttfts, itls, lats, icls []float64
}

// buildAttempts puts every row's attempt on a clock from the first
// request start (minStart), with its end, into res, and collects the
// valid records' samples.
func buildAttempts(res *toolfile.Result, rows []row, minStart int64) samples {
	var x samples
	for i := range rows {
		r := &rows[i]
		a := &r.a
		a.StartMS = float64(r.startNS-minStart) / 1e6
		for j := range a.Events {
			a.Events[j].TMS += a.StartMS
		}
		last := a.StartMS
		if len(a.Events) > 0 {
			last = a.Events[len(a.Events)-1].TMS
		}
		a.EndMS = last
		if r.hasEnd {
			a.EndMS = max(last, float64(r.endNS-minStart)/1e6)
		} else if r.latency != nil {
			a.EndMS = max(last, a.StartMS+*r.latency)
		}
		if r.valid {
			x.ttfts = append(x.ttfts, *r.ttft)
			if r.itl != nil {
				x.itls = append(x.itls, *r.itl)
			}
			if r.latency != nil {
				x.lats = append(x.lats, *r.latency)
			}
			for j := 1; j < len(a.Events); j++ {
				x.icls = append(x.icls, a.Events[j].TMS-a.Events[j-1].TMS)
			}
		}
		res.Attempts = append(res.Attempts, *a)
	}
	return x
}

// windowMS is AIPerf's benchmark_duration: first request start to last
// request end, widened to the attempts' own ends where records lack
// request_end_ns, and 1 ms (with a note) when it would be empty.
func windowMS(res *toolfile.Result, minStart, maxEnd int64) float64 {
	winMS := 0.0
	if maxEnd != math.MinInt64 {
		winMS = float64(maxEnd-minStart) / 1e6
	}
	for _, a := range res.Attempts {
		if a.StartMS >= winMS {
			// No end time reaches this start (records without
			// request_end_ns): widen the window to the ends we have.
			winMS = max(winMS, a.EndMS, a.StartMS+1e-3)
		}
	}
	if winMS <= 0 {
		winMS = 1
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"所有记录都在同一时刻开始和结束：窗口取 1 ms",
			"all records start and end at the same instant: a 1 ms window is used"}))
	}
	return winMS
}

// addStats adds AIPerf's numbers recomputed its way (valid records only,
// numpy linear): counts, duration, TTFT, ITL, latency, chunk gaps.
func addStats(res *toolfile.Result, records int, winMS float64, x samples) {
	valid := len(x.ttfts)
	res.Report.Stats = append(res.Report.Stats,
		toolfile.Stat{Metric: "completed", Stat: "count", Value: toolfile.Ptr(float64(valid)), Key: "request_count (records without error)", Derived: true},
		toolfile.Stat{Metric: "failed", Stat: "count", Value: toolfile.Ptr(float64(records - valid)), Key: "error_request_count", Derived: true},
		toolfile.Stat{Metric: "duration_s", Stat: "value", Value: toolfile.Ptr(winMS / 1000), Key: "benchmark_duration = max end - min start", Derived: true})
	lv := []string{"p50", "p90", "p99"}
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("ttft_ms", "time_to_first_token", x.ttfts, lv)...)
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("itl_ms", "inter_token_latency (per-request average)", x.itls, lv)...)
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("e2e_ms", "request_latency", x.lats, lv)...)
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats(MetricInterChunk, "inter_chunk_latency (pooled over records)", x.icls, lv)...)
	res.DerivedNote = func(name string) toolfile.Note {
		return toolfile.NewNote(lang.Msg{
			"%s 里没有汇总（AIPerf 把汇总写在另一个文件，默认 profile_export_aiperf.json，见 --summary）：工具的数字按 AIPerf 的算法重算（只用有效记录，numpy 线性插值）",
			"%s holds no summary (AIPerf writes it to another file, profile_export_aiperf.json by default: see --summary): the tool's numbers are recomputed AIPerf's way (valid records only, numpy linear)"}, name)
	}
}

// conditions are the header's conditions of an AIPerf import: what the
// records hold and what the trace cannot.
func conditions(warmup, noICL int) toolfile.Conditions {
	lossy := []string{"per-chunk token counts are not recorded: output_sequence_length is spread evenly over the events"}
	if noICL > 0 {
		lossy = append(lossy, fmt.Sprintf("%s no inter_chunk_latency list: only their first event and end are known", lang.N(lang.EN, noICL, "successful record has", "successful records have")))
	}
	if warmup > 0 {
		lossy = append(lossy, fmt.Sprintf("%s dropped", lang.N(lang.EN, warmup, "warm-up record", "warm-up records")))
	}
	return toolfile.Conditions{
		Source: "AIPerf profile_export.jsonl", Layout: "records (metadata, metrics, error)", Run: 1, Runs: 1,
		Clock:        "AIPerf wall-anchored monotonic ns (request_start_ns), converted to ms from the first request start",
		Window:       "AIPerf benchmark_duration: first request start to last request end over the records",
		ITLSemantics: "per_token_amortized",
		EventTimes:   "reconstructed as start + time_to_first_token + cumulative inter_chunk_latency (per event); AIPerf's own inter_token_latency is a per-request average per token",
		EventTokens:  "AIPerf records no per-chunk token count: output tokens spread evenly over the events (≥ 1 each)",
		Failures:     "records with an error are attempts with no events; code 499 / cancellation → cancelled, timeout → timeout, 4xx/5xx → http_error, ServerDisconnectedError before any chunk → no_response, else stream_error with type and message; a record without error and without a non-empty chunk is empty_output",
		Quality:      toolfile.QualityNull,
		Lossy:        lossy,
	}
}
