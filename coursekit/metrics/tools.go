package metrics

import "github.com/llmperf-course/course/coursekit/trace"

// Other tools' definitions, recomputed from a trace, so that a notebook can
// set a tool's number beside the unit's without re-deriving it. Checked
// against vLLM 0.33 (vllm bench serve) and AIPerf 0.13 result files.
//
// The unit's E2E runs from send to the end of the stream (t_end). vLLM's
// E2EL stops at the last streamed data message (its most_recent_timestamp),
// and AIPerf's request_latency at the last response; neither waits for the
// stream to close. Their TPOT-like numbers therefore end at the last token,
// as TPOT does:
//
//	TPOT       = (t_N − t_1)   / (N − 1)   trace.Attempt.TPOT
//	vLLM TPOT  = (E2EL − TTFT) / (N − 1)   VLLMTPOT, the same number on a
//	                                       trace whose events carry
//	                                       tokens; AIPerf calls it its
//	                                       per-request "ITL"
//
// Against a live server the two are almost, not exactly, the same: vLLM's
// TTFT is set by its first chunk with choices, even an empty role chunk,
// and its E2EL ends at its last chunk with choices (a finish-only chunk
// included), while t_1 and t_N are the first and last tokens.
//
// On Fig. 01.2 (events at 700, 800, 950 ms, end at 1000 ms, 3 tokens) both
// are 125 ms, the mean of the gaps 100 and 150 ms. Putting the stream-end
// E2E in vLLM's formula would give 150 ms: the 50 ms wait for the stream
// to close spread over the tokens, which is no token gap.

// VLLME2EL is vLLM's end-to-end latency of one attempt: from send to the
// last streamed event. ok is false when no event arrived.
func VLLME2EL(a *trace.Attempt) (ms float64, ok bool) {
	if len(a.Events) == 0 {
		return 0, false
	}
	return a.Events[len(a.Events)-1].TMS - a.StartMS, true
}

// VLLMTPOT is vLLM's time per output token after the first,
// (E2EL − TTFT) / (output tokens − 1) with E2EL from VLLME2EL; it is also
// AIPerf's and GenAI-Perf's per-request "ITL". ok is false without a first
// event or with fewer than two output tokens (vLLM leaves it out then).
func VLLMTPOT(a *trace.Attempt) (ms float64, ok bool) {
	ttft, ok1 := a.TTFT()
	e2el, ok2 := VLLME2EL(a)
	n := a.OutputTokenCount()
	if !ok1 || !ok2 || n < 2 {
		return 0, false
	}
	return (e2el - ttft) / float64(n-1), true
}

// VLLMTPOTDist is the distribution of VLLMTPOT over the complete successes
// that start in t's window (the sample the unit's TPOT uses), read with
// method m. On a trace it equals the card's TPOT distribution.
func VLLMTPOTDist(t *trace.Trace, m Method) Dist {
	if m == "" {
		m = NearestRank
	}
	var x samples
	for i := range t.Attempts {
		a := &t.Attempts[i]
		if a.Outcome != trace.OK || !t.Header.Window.Contains(a.StartMS) {
			continue
		}
		if v, ok := VLLMTPOT(a); ok {
			x.add(v)
		}
	}
	return x.dist(m, UnitMSPerToken)
}

// VLLMSummary is what `vllm bench serve` (0.33) would report for the
// attempts of a trace. The tool knows no window, so every attempt counts;
// failures are counted but left out of every percentile, and percentiles
// are numpy's linear interpolation.
type VLLMSummary struct {
	Completed, Failed int
	// TTFT is over completed requests only (vLLM's median/p99_ttft_ms).
	TTFT Dist
	// TTFTColumn is the result file's "ttfts" array read as it stands:
	// every attempt, failures included, with 0.0 where no first chunk came.
	// Taking percentiles of it is a common misreading, kept to show it.
	TTFTColumn Dist
	// TPOT is VLLMTPOT over completed requests.
	TPOT Dist
	// DurationS runs from the first send to the last end, failures and the
	// drain after the last send included.
	DurationS float64
	// RequestThroughput is Completed / DurationS (vLLM's request_throughput).
	RequestThroughput float64
}

// VLLMSummarize computes t's attempts the way vLLM's benchmark summarises
// its own requests.
func VLLMSummarize(t *trace.Trace) VLLMSummary {
	var ttft, column, tpot samples
	s := VLLMSummary{}
	first, last := 0.0, 0.0
	for i := range t.Attempts {
		a := &t.Attempts[i]
		if i == 0 || a.StartMS < first {
			first = a.StartMS
		}
		if e, ok := a.E2E(); ok {
			last = max(last, a.StartMS+e)
		}
		v, ok := a.TTFT()
		if !ok {
			v = 0 // what the result file holds for "no first chunk"
		}
		column.add(v)
		if a.Outcome != trace.OK {
			s.Failed++
			continue
		}
		s.Completed++
		ttft.add(v)
		if x, ok := VLLMTPOT(a); ok {
			tpot.add(x)
		}
	}
	s.TTFT, s.TTFTColumn, s.TPOT = ttft.dist(Linear, UnitMS), column.dist(Linear, UnitMS), tpot.dist(Linear, UnitMSPerToken)
	if last > first {
		s.DurationS = (last - first) / 1000
		s.RequestThroughput = float64(s.Completed) / s.DurationS
	}
	return s
}
