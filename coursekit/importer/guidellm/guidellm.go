// Package guidellm imports guidellm's benchmarks.json reports, which carry
// their own summary numbers.
package guidellm

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"

	"github.com/llmperf-course/course/coursekit/importer/internal/toolfile"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

var guidellmPct = regexp.MustCompile(`^p[0-9]+$`)

// Metric names of guidellm's "total" TTFT block, by what it holds. The
// importer tells them apart by the block's count against the listed
// requests (guidellm 0.8.1, checked against coursekit sim with faults:
// successes plus the errored requests that got a first token, the others
// left out; older code read as: every request, a missing first token as 0).
const (
	TotalFirstToken = "ttft_ms (total: successes + errored with a first token)"
	TotalZero       = "ttft_ms (total: every request, no first token as 0)"
	Total           = "ttft_ms (total: requests unknown)"
)

// guidellmLevel turns guidellm's percentile keys into ours: p001 is 0.1%,
// p01 is 1%, p999 is 99.9%, p50 is 50%.
func guidellmLevel(k string) string {
	switch k {
	case "p001":
		return "p0.1"
	case "p01":
		return "p1"
	case "p05":
		return "p5"
	case "p999":
		return "p99.9"
	}
	return k
}

// Import reads a guidellm benchmarks.json report, current
// (metadata.version 2) or v0.3 layout. Its clock is time.time() (epoch
// seconds, wall clock), and it stores only the first and last token time
// of each request, so per-event ITL cannot be rebuilt.
func Import(s *toolfile.Source, opt toolfile.Options) (*toolfile.Result, error) {
	rep, err := readReport(s)
	if err != nil {
		return nil, err
	}
	k, bm, reqs, err := pickBenchmark(s, rep, opt)
	if err != nil {
		return nil, err
	}
	res := &toolfile.Result{ResolutionMS: 1e-3} // epoch-second floats carry about 0.2 µs
	res.Report.Run, res.Report.Runs = k+1, len(rep.bms)
	res.Report.PercentileMethod = "inverse empirical CDF (nearest-rank style, token-weighted for ITL/TPOT)"
	rs, err := readRequests(s, reqs)
	if err != nil {
		return nil, err
	}
	bmStart, durS, err := readSpan(s, bm)
	if err != nil {
		return nil, err
	}
	if bmStart != nil {
		rs.origin = min(rs.origin, *bmStart)
	}
	if len(rs.rows) == 0 {
		return nil, reqs.Err("", "no successful, incomplete or errored requests: nothing to import")
	}
	lastStart := buildAttempts(res, rs)
	window := buildWindow(res, rs.origin, bmStart, durS, lastStart)
	lossy, sampled, err := addTotals(res, bm, len(rs.rows))
	if err != nil {
		return nil, err
	}
	if durS != nil {
		res.Report.Stats = append(res.Report.Stats, toolfile.Stat{Metric: "duration_s", Stat: "value", Value: durS, Key: toolfile.JoinPath(bm.Path, "duration")})
	}
	addMetrics(res, bm, rs.withFirst, len(rs.rows), rep.version)
	res.Conds = conditions(rep.layout, k, len(rep.bms), window, sampled, lossy)
	return res, nil
}

// conditions are the header's conditions of benchmark k of runs.
func conditions(layout string, k, runs int, window string, sampled bool, lossy []string) toolfile.Conditions {
	lossy = append(lossy,
		"guidellm stores only the first and last token time: each attempt has one event (its first token) and its end; the last token time is in the attempt's meta; per-event ITL is not recoverable",
		"guidellm's inter_token_latency_ms is a token-weighted per-request average (per_token_amortized); its time_per_output_token_ms includes TTFT (not vLLM's TPOT)")
	return toolfile.Conditions{
		Source: "guidellm benchmarks.json", Layout: layout, Run: k + 1, Runs: runs,
		Clock:        "guidellm time.time() epoch seconds (wall clock, not monotonic), converted to ms from the earliest of the benchmark start and the first request",
		Window:       window,
		ITLSemantics: "per_token_amortized",
		EventTimes:   "first token only (first_token_iteration); end = request_end",
		EventTokens:  "the single event carries tokens = 1; output_tokens holds the count; the last token time is in meta, not an event, so neither TPOT nor per-event ITL is computed from the trace",
		Failures:     "errored → outcome from the error text (timeout, connect, HTTP reason, else stream_error); incomplete → cancelled; a 0.0 or missing first token is missing",
		Quality:      toolfile.QualityNull,
		Sampled:      sampled,
		Lossy:        lossy,
	}
}

// report is the file: its layout, guidellm's version and its benchmarks.
type report struct {
	layout, version string
	bms             []json.RawMessage
}

// readReport reads benchmarks.json's one object: the layout, the version
// and the benchmarks to pick from.
func readReport(s *toolfile.Source) (*report, error) {
	root, err := s.OneObject("benchmarks.json")
	if err != nil {
		return nil, err
	}
	rep := &report{layout: "v0.3 (no metadata.version)"}
	if root.Has("metadata") {
		md, err := root.Sub("metadata")
		if err != nil {
			return nil, err
		}
		if v, _ := md.OptNum("version"); v != nil {
			rep.layout = fmt.Sprintf("metadata.version %g (v0.4+)", *v)
		}
		rep.version, _ = md.Str("guidellm_version")
	}
	if rep.bms, err = root.Array("benchmarks"); err != nil {
		return nil, err
	}
	return rep, nil
}

// pickBenchmark picks the benchmark to import (--run) and its requests.
func pickBenchmark(s *toolfile.Source, rep *report, opt toolfile.Options) (k int, bm, reqs *toolfile.Obj, err error) {
	if k, err = toolfile.PickRun(s, len(rep.bms), opt, "benchmarks", 0); err != nil {
		return 0, nil, nil, err
	}
	if bm, err = s.Object(rep.bms[k], 0, fmt.Sprintf("benchmarks[%d]", k)); err != nil {
		return 0, nil, nil, err
	}
	if reqs, err = bm.Sub("requests"); err != nil {
		return 0, nil, nil, err
	}
	return k, bm, reqs, nil
}

// optTime finds the first present key path (a.b.c) and reads it as epoch
// seconds; nil when none is present.
func optTime(s *toolfile.Source, o *toolfile.Obj, paths ...[]string) (*float64, error) {
	for _, p := range paths {
		cur := o
		ok := true
		for _, key := range p[:len(p)-1] {
			if !cur.Has(key) {
				ok = false
				break
			}
			c, err := cur.Sub(key)
			if err != nil {
				return nil, err
			}
			cur = c
		}
		last := p[len(p)-1]
		if !ok || !cur.Has(last) {
			continue
		}
		v, err := s.Time(cur.Raw(last), 0, toolfile.JoinPath(cur.Path, last))
		if err != nil {
			return nil, err
		}
		return &v, nil
	}
	return nil, nil
}

// row is one listed request: its attempt (outcome, ids, tokens) and its
// epoch-second times.
type row struct {
	a                         trace.Attempt
	start, end, first, lastTk *float64
	path                      string
}

// requests are the benchmark's listed requests.
type requests struct {
	rows      []row
	withFirst int     // successes + errored requests with a first token
	origin    float64 // the earliest request start
}

// readRequests reads the successful, incomplete and errored lists.
func readRequests(s *toolfile.Source, reqs *toolfile.Obj) (*requests, error) {
	rs := &requests{origin: math.Inf(1)}
	for _, status := range []string{"successful", "incomplete", "errored"} {
		if !reqs.Has(status) {
			continue
		}
		list, err := reqs.Array(status)
		if err != nil {
			return nil, err
		}
		for i, raw := range list {
			o, err := s.Object(raw, 0, fmt.Sprintf("%s.%s[%d]", reqs.Path, status, i))
			if err != nil {
				return nil, err
			}
			r, err := readRequest(s, o, status, i)
			if err != nil {
				return nil, err
			}
			if status == "successful" || (status == "errored" && r.first != nil) {
				rs.withFirst++
			}
			rs.origin = min(rs.origin, *r.start)
			rs.rows = append(rs.rows, r)
		}
	}
	return rs, nil
}

// readRequest reads request i of a status list: its times, id, tokens
// and outcome.
func readRequest(s *toolfile.Source, o *toolfile.Obj, status string, i int) (row, error) {
	r := row{path: o.Path}
	var err error
	if r.start, err = optTime(s, o, []string{"info", "timings", "request_start"}, []string{"request_start_time"}, []string{"start_time"}, []string{"scheduler_info", "request_start"}); err != nil {
		return r, err
	}
	if r.start == nil {
		return r, o.Err("info.timings.request_start", "missing (also no request_start_time or start_time): the attempt's send time is unknown")
	}
	if r.end, err = optTime(s, o, []string{"info", "timings", "request_end"}, []string{"request_end_time"}, []string{"end_time"}, []string{"scheduler_info", "request_end"}); err != nil {
		return r, err
	}
	if r.first, err = optTime(s, o, []string{"info", "timings", "first_token_iteration"}, []string{"first_token_time"}); err != nil {
		return r, err
	}
	if r.lastTk, err = optTime(s, o, []string{"info", "timings", "last_token_iteration"}, []string{"last_token_time"}); err != nil {
		return r, err
	}
	if r.first != nil && *r.first == 0 {
		r.first = nil // 0.0 is guidellm's "no first token", not a time
	}
	if r.first != nil && *r.first < *r.start {
		return r, o.Err("first_token_iteration", fmt.Sprintf("%g is before request_start %g", *r.first, *r.start))
	}
	if r.end != nil && *r.end < *r.start {
		return r, o.Err("request_end", fmt.Sprintf("%g is before request_start %g", *r.end, *r.start))
	}
	id, _ := o.Str("request_id")
	if id == "" {
		id = fmt.Sprintf("%s-%d", status, i)
	}
	r.a.ID = id
	if o.Has("output_tokens") {
		if r.a.OutputTokens, err = s.Count(o.Raw("output_tokens"), 0, toolfile.JoinPath(o.Path, "output_tokens")); err != nil {
			return r, err
		}
	}
	if o.Has("prompt_tokens") {
		if r.a.InputTokens, err = s.Count(o.Raw("prompt_tokens"), 0, toolfile.JoinPath(o.Path, "prompt_tokens")); err != nil {
			return r, err
		}
	}
	errText, _ := o.Str("error")
	if errText == "" && o.Has("info") {
		info, _ := o.Sub("info")
		errText, _ = info.Str("error")
	}
	switch status {
	case "successful":
		if r.first == nil {
			return r, o.Err("first_token_iteration", "missing on a successful request: a success streams at least one output")
		}
		r.a.Outcome = trace.OK
	case "incomplete":
		r.a.Outcome = trace.Cancelled
		r.a.Error = "guidellm incomplete: cancelled at the benchmark's end"
		if errText != "" {
			r.a.Error += ": " + errText
		}
	default:
		r.a.Outcome, r.a.HTTPStatus = toolfile.Classify(0, errText)
		r.a.Error = errText
		if r.a.Error == "" {
			r.a.Error = "guidellm errored request without error text"
		}
	}
	return r, nil
}

// readSpan reads the benchmark's start and duration (or end − start).
func readSpan(s *toolfile.Source, bm *toolfile.Obj) (bmStart, durS *float64, err error) {
	if bmStart, err = bm.OptNum("start_time"); err != nil {
		return nil, nil, err
	}
	if bmStart != nil {
		if err := s.CheckTime(*bmStart, 0, toolfile.JoinPath(bm.Path, "start_time")); err != nil {
			return nil, nil, err
		}
	}
	if durS, err = bm.OptNum("duration"); err != nil {
		return nil, nil, err
	}
	if durS == nil {
		bmEnd, err := bm.OptNum("end_time")
		if err != nil {
			return nil, nil, err
		}
		if bmStart != nil && bmEnd != nil {
			durS = toolfile.Ptr(*bmEnd - *bmStart)
		}
	}
	if durS != nil {
		if err := s.CheckTime(*durS, 0, toolfile.JoinPath(bm.Path, "duration")); err != nil {
			return nil, nil, err
		}
	}
	return bmStart, durS, nil
}

// buildAttempts puts every row on a clock from the origin: one event (the
// first token) and its end; the last token time goes in meta. It returns
// the last start.
func buildAttempts(res *toolfile.Result, rs *requests) (lastStart float64) {
	ms := func(t float64) float64 { return (t - rs.origin) * 1000 }
	for _, r := range rs.rows {
		a := r.a
		a.StartMS = ms(*r.start)
		lastStart = max(lastStart, a.StartMS)
		a.HasEnd = true
		if r.first != nil {
			a.Events = []trace.Event{{TMS: ms(*r.first), Tokens: 1}}
		}
		a.EndMS = a.StartMS
		if len(a.Events) > 0 {
			a.EndMS = a.Events[0].TMS
		}
		if r.lastTk != nil {
			a.EndMS = max(a.EndMS, ms(*r.lastTk))
		}
		if r.end != nil {
			a.EndMS = max(a.EndMS, ms(*r.end))
		}
		if r.lastTk != nil {
			a.Meta, _ = json.Marshal(map[string]any{"last_token_ms": math.Round(ms(*r.lastTk)*1000) / 1000})
		}
		res.Attempts = append(res.Attempts, a)
		res.Paths = append(res.Paths, r.path)
	}
	return lastStart
}

// buildWindow sets the header's window, the benchmark's duration from its
// start (or the requests' span without one), and says how.
func buildWindow(res *toolfile.Result, origin float64, bmStart, durS *float64, lastStart float64) (window string) {
	winStart := 0.0
	if bmStart != nil {
		winStart = (*bmStart - origin) * 1000
	}
	winEnd := 0.0
	window = "guidellm benchmark duration (the measured window after warm-up and cool-down), from the benchmark's start_time"
	if durS != nil && *durS > 0 {
		winEnd = winStart + *durS*1000
	} else {
		for _, a := range res.Attempts {
			winEnd = max(winEnd, a.EndMS)
		}
		window = "no duration in the report: first request start to last request end"
	}
	if winEnd <= lastStart {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"有些请求在基准的 duration 结束之后才开始：指标口径卡把它们算在窗口之外",
			"some requests start after the benchmark's duration: the card counts them outside the window"}))
	}
	if winEnd <= winStart {
		winEnd = winStart + 1
	}
	res.Header = trace.Header{Clock: "client", Window: trace.Window{StartMS: winStart, EndMS: winEnd}}
	return window
}

// addTotals adds the run's request totals; the request lists may hold a
// sample of the run, which the lossy list and a note then say.
func addTotals(res *toolfile.Result, bm *toolfile.Obj, listed int) (lossy []string, sampled bool, err error) {
	mets, _ := bm.OptSub("metrics")
	totalsObj := (*toolfile.Obj)(nil)
	if mets != nil && mets.Has("request_totals") {
		totalsObj, _ = mets.Sub("request_totals")
	} else if bm.Has("request_totals") {
		totalsObj, _ = bm.Sub("request_totals")
	}
	if totalsObj == nil {
		return nil, false, nil
	}
	for _, key := range []string{"successful", "incomplete", "errored", "total"} {
		v, err := totalsObj.OptNum(key)
		if err != nil {
			return nil, false, err
		}
		metric := map[string]string{"successful": "completed", "incomplete": "incomplete", "errored": "failed", "total": "attempts"}[key]
		res.Report.Stats = append(res.Report.Stats, toolfile.Stat{Metric: metric, Stat: "count", Value: v, Key: toolfile.JoinPath(totalsObj.Path, key)})
		if key == "total" && v != nil && int(*v) > listed {
			sampled = true
			note := toolfile.NewNote(lang.Msg{
				"抽样：报告只列出了 %[2]g 个请求中的 %[1]d 个；trace 的分母是这份样本，整次运行的数在 request_totals 里",
				"sampled: the report lists %d of %g requests; the trace's denominators are the sample, the run's are in request_totals"}, listed, *v)
			lossy = append(lossy, note.String()) // the header's conditions stay English
			res.Report.Notes = append(res.Report.Notes, note)
		}
	}
	return lossy, sampled, nil
}

// addMetrics adds guidellm's own latency statistics: TTFT, ITL, its TPOT
// and latency over the successes, and the total TTFT block labelled by
// what its count says it holds.
func addMetrics(res *toolfile.Result, bm *toolfile.Obj, withFirst, listed int, version string) {
	mets, _ := bm.OptSub("metrics")
	if mets == nil {
		return
	}
	for _, m := range []struct{ key, metric string }{
		{"time_to_first_token_ms", "ttft_ms"}, {"inter_token_latency_ms", "itl_ms"},
		{"time_per_output_token_ms", "guidellm_tpot_ms"}, {"request_latency", "e2e_ms"},
	} {
		scale := 1.0
		if m.key == "request_latency" {
			scale = 1000 // seconds in the report
		}
		for _, status := range []string{"successful", "total"} {
			if status == "total" && m.key != "time_to_first_token_ms" {
				continue // the total block matters for TTFT, where errored requests with a first token enter
			}
			sds, err := mets.OptSub(m.key)
			if err != nil || sds == nil {
				continue
			}
			ds, err := sds.OptSub(status)
			if err != nil || ds == nil {
				continue
			}
			metric := m.metric
			if status == "total" {
				metric = guidellmTotalMetric(ds, withFirst, listed, version)
			}
			add := func(o *toolfile.Obj, key, stat string) {
				v, err := o.OptNum(key)
				if err != nil || v == nil {
					return
				}
				x := *v * scale
				res.Report.Stats = append(res.Report.Stats, toolfile.Stat{Metric: metric, Stat: stat, Value: &x, Key: toolfile.JoinPath(o.Path, key)})
			}
			add(ds, "mean", "mean")
			add(ds, "median", "median")
			if pc, err := ds.OptSub("percentiles"); err == nil && pc != nil {
				for _, pk := range []string{"p50", "p90", "p95", "p99"} {
					if guidellmPct.MatchString(pk) {
						v, err := pc.OptNum(pk)
						if err != nil || v == nil {
							continue
						}
						x := *v * scale
						res.Report.Stats = append(res.Report.Stats, toolfile.Stat{Metric: metric, Stat: guidellmLevel(pk), Value: &x, Key: toolfile.JoinPath(pc.Path, pk)})
					}
				}
			}
		}
	}
}

// guidellmTotalMetric names the total TTFT block by what its count says it
// holds: the successes and errored requests that got a first token (0.8.1),
// or every listed request with a missing first token as 0. Without a count
// that matches (sampled lists), the version decides.
func guidellmTotalMetric(ds *toolfile.Obj, withFirst, all int, version string) string {
	if n, err := ds.OptNum("count"); err == nil && n != nil {
		switch int(*n) {
		case withFirst:
			return TotalFirstToken
		case all:
			return TotalZero
		}
		return Total
	}
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err == nil {
		if major > 0 || minor >= 8 {
			return TotalFirstToken
		}
		return TotalZero
	}
	return Total
}
