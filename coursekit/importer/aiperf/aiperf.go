// Package aiperf imports AIPerf's per-request records
// (profile_export.jsonl) and reads its summary file
// (profile_export_aiperf.json), whose layout GenAI-Perf's summary shares.
package aiperf

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/llmperf-course/course/coursekit/importer/internal/toolfile"
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
		v, ok := mv.M["value"]
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
	v, ok := mv.M["value"]
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
// malformed SSE message (checked against coursekit sim's malformed fault).
const MalformedNote = "AIPerf 0.13 counts a stream that carried a malformed SSE message as a success (no error in its record), " +
	"while vLLM, guidellm and coursekit bench fail it: such attempts are ok in this trace, so AIPerf's success count can be " +
	"higher than another tool's against the same server"

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
var outcomeWords = map[trace.Outcome]string{
	trace.NoResponse:   "no response: the request was sent and the connection closed before any response byte (aiohttp reuses a pooled keep-alive connection the server had closed, and AIPerf does not send the request again)",
	trace.HTTPError:    "the server answered with an error status",
	trace.StreamError:  "the response broke after it began",
	trace.Timeout:      "timed out",
	trace.ConnectError: "no connection to the server",
	trace.Cancelled:    "cancelled by AIPerf",
}

// maxRecordedMsg bounds an error message quoted in the note.
const maxRecordedMsg = 120

// note lists the recorded errors: "AIPerf recorded errors on 3 records:
// 1 × ServerDisconnectedError "Server disconnected" → no_response (…)".
func (k *errorKinds) note() string {
	if len(k.order) == 0 {
		return ""
	}
	total := 0
	var parts []string
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
		parts = append(parts, fmt.Sprintf("%d × %s %q → %s (%s)", e.n, what, string(msg), e.outcome, outcomeWords[e.outcome]))
	}
	return fmt.Sprintf("AIPerf recorded an error on %d records: %s", total, strings.Join(parts, "; "))
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
// failures included. Times are wall-anchored monotonic nanoseconds.
func Import(s *toolfile.Source, _ toolfile.Options) (*toolfile.Result, error) {
	vals, lines, err := s.Values()
	if err != nil {
		return nil, err
	}
	res := &toolfile.Result{}
	res.Report.Run, res.Report.Runs = 1, 1
	res.Report.PercentileMethod = "linear (numpy default), inter_chunk_latency included (checked against AIPerf 0.13)"
	type row struct {
		a           trace.Attempt
		startNS     int64
		endNS       int64
		hasEnd      bool
		valid       bool
		ttft, itl   *float64
		latency     *float64
		lineForPath string
	}
	if len(vals) == 1 {
		if err := notASummary(s, vals[0], lines[0]); err != nil {
			return nil, err
		}
	}
	var rows []row
	var recorded errorKinds
	warmup, noICL := 0, 0
	minStart, maxEnd := int64(math.MaxInt64), int64(math.MinInt64)
	for i, v := range vals {
		line := lines[i]
		o, err := s.Object(v, line, "")
		if err != nil {
			return nil, err
		}
		md, err := o.Sub("metadata")
		if err != nil {
			return nil, err
		}
		phase, err := md.Str("benchmark_phase")
		if err != nil {
			return nil, err
		}
		if phase == "warmup" {
			warmup++
			continue
		}
		stRaw, ok := md.M["request_start_ns"]
		if !ok || toolfile.IsNull(stRaw) {
			return nil, md.Err("request_start_ns", "missing")
		}
		st, err := s.Nanos(stRaw, line, "metadata.request_start_ns")
		if err != nil {
			return nil, err
		}
		r := row{startNS: st}
		if en, ok := md.M["request_end_ns"]; ok && !toolfile.IsNull(en) {
			e, err := s.Nanos(en, line, "metadata.request_end_ns")
			if err != nil {
				return nil, err
			}
			if e < st {
				return nil, md.Err("request_end_ns", fmt.Sprintf("%d is before request_start_ns %d", e, st))
			}
			r.endNS, r.hasEnd = e, true
			maxEnd = max(maxEnd, r.endNS)
		}
		minStart = min(minStart, r.startNS)
		id, _ := md.Str("x_request_id")
		if id == "" {
			id = fmt.Sprintf("line%d", line)
		}
		r.a.ID = id
		conv, _ := md.Str("conversation_id")
		if conv != "" {
			r.a.Request = conv
			if t, ok := md.M["turn_index"]; ok && !toolfile.IsNull(t) {
				r.a.Request = conv + "#" + string(t)
			}
		}
		cancelled := false
		if c, ok := md.M["was_cancelled"]; ok && string(c) == "true" {
			cancelled = true
		}
		mets := &toolfile.Obj{Src: s, Line: line, Path: "metrics", M: map[string]json.RawMessage{}}
		if o.Has("metrics") {
			if mets, err = o.Sub("metrics"); err != nil {
				return nil, err
			}
		}
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
		var gaps []float64
		if raw, sc, path, found, err := aiperfMetric(mets, "inter_chunk_latency", "icl"); err != nil {
			return nil, err
		} else if found {
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
		}

		r.a.HasEnd = true
		if o.Has("error") {
			e, err := o.Sub("error")
			if err != nil {
				return nil, err
			}
			code := 0
			if c, ok := e.M["code"]; ok && !toolfile.IsNull(c) {
				if code, err = s.Count(c, line, "error.code"); err != nil {
					return nil, err
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
			recorded.add(typ, msg, code, r.a.Outcome)
		} else if cancelled {
			r.a.Outcome = trace.Cancelled
			r.a.Error = "was_cancelled"
		} else if r.ttft == nil {
			r.a.Outcome = trace.StreamError
			r.a.Error = "AIPerf record without error and without time_to_first_token (no non-empty chunk)"
		} else {
			r.a.Outcome = trace.OK
			r.valid = true
		}
		if r.ttft != nil {
			if r.valid && gaps == nil && r.a.OutputTokens > 1 {
				noICL++
			}
			r.a.Events = toolfile.EventsFrom(0, *r.ttft, gaps, r.a.OutputTokens) // shifted to the start below
		}
		r.lineForPath = fmt.Sprintf("line %d", line)
		res.Paths = append(res.Paths, r.lineForPath)
		rows = append(rows, r)
		_ = i
	}
	if len(rows) == 0 {
		return nil, s.ErrAt(0, "", fmt.Sprintf("no profiling records (%d warm-up records)", warmup))
	}
	var ttfts, itls, lats, icls []float64
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
			ttfts = append(ttfts, *r.ttft)
			if r.itl != nil {
				itls = append(itls, *r.itl)
			}
			if r.latency != nil {
				lats = append(lats, *r.latency)
			}
			for j := 1; j < len(a.Events); j++ {
				icls = append(icls, a.Events[j].TMS-a.Events[j-1].TMS)
			}
		}
		res.Attempts = append(res.Attempts, *a)
	}
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
		res.Report.Notes = append(res.Report.Notes, "all records start and end at the same instant: a 1 ms window is used")
	}
	res.Header = trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: winMS}}

	valid := len(ttfts)
	res.Report.Stats = append(res.Report.Stats,
		toolfile.Stat{Metric: "completed", Stat: "count", Value: toolfile.Ptr(float64(valid)), Key: "request_count (records without error)", Derived: true},
		toolfile.Stat{Metric: "failed", Stat: "count", Value: toolfile.Ptr(float64(len(rows) - valid)), Key: "error_request_count", Derived: true},
		toolfile.Stat{Metric: "duration_s", Stat: "value", Value: toolfile.Ptr(winMS / 1000), Key: "benchmark_duration = max end - min start", Derived: true})
	lv := []string{"p50", "p90", "p99"}
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("ttft_ms", "time_to_first_token", ttfts, lv)...)
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("itl_ms", "inter_token_latency (per-request average)", itls, lv)...)
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats("e2e_ms", "request_latency", lats, lv)...)
	res.Report.Stats = append(res.Report.Stats, toolfile.DerivedStats(MetricInterChunk, "inter_chunk_latency (pooled over records)", icls, lv)...)
	res.DerivedNote = "profile_export.jsonl holds no summary (that is profile_export_aiperf.json, see --summary): the tool's numbers are recomputed AIPerf's way (valid records only, numpy linear)"
	res.ToolOK = valid
	if warmup > 0 {
		res.Report.Notes = append(res.Report.Notes, fmt.Sprintf("%d warm-up records left out (AIPerf does not measure them either)", warmup))
	}
	if n := recorded.note(); n != "" {
		res.Report.Notes = append(res.Report.Notes, n)
	}
	res.Report.Notes = append(res.Report.Notes, MalformedNote)
	lossy := []string{"per-chunk token counts are not recorded: output_sequence_length is spread evenly over the events"}
	if noICL > 0 {
		lossy = append(lossy, fmt.Sprintf("%d successful records have no inter_chunk_latency list: only their first event and end are known", noICL))
	}
	if warmup > 0 {
		lossy = append(lossy, fmt.Sprintf("%d warm-up records dropped", warmup))
	}
	res.Conds = toolfile.Conditions{
		Source: "AIPerf profile_export.jsonl", Layout: "records (metadata, metrics, error)", Run: 1, Runs: 1,
		Clock:        "AIPerf wall-anchored monotonic ns (request_start_ns), converted to ms from the first request start",
		Window:       "AIPerf benchmark_duration: first request start to last request end over the records",
		ITLSemantics: "per_token_amortized",
		EventTimes:   "reconstructed as start + time_to_first_token + cumulative inter_chunk_latency (per event); AIPerf's own inter_token_latency is a per-request average per token",
		EventTokens:  "AIPerf records no per-chunk token count: output tokens spread evenly over the events (≥ 1 each)",
		Failures:     "records with an error are attempts with no events; code 499 / cancellation → cancelled, timeout → timeout, 4xx/5xx → http_error, ServerDisconnectedError before any chunk → no_response, else stream_error with type and message",
		Quality:      toolfile.QualityNull,
		Lossy:        lossy,
	}
	return res, nil
}
