package metrics

import (
	"encoding/json"

	"github.com/llmperf-course/course/coursekit/trace"
)

// Levels are the percentile levels every distribution reports.
var Levels = []float64{0.50, 0.90, 0.95, 0.99}

// Ratio is a rate that keeps its parts: never a bare percentage.
type Ratio struct {
	Num   float64  `json:"num"`
	Den   float64  `json:"den"`
	Value *float64 `json:"value"` // nil when Den is 0
	Unit  string   `json:"unit"`  // what is counted over what, e.g. "failed attempts / attempts"
	// CI95 is the 95 % Wilson interval of a share of counts (NewShare);
	// nil for rates over time.
	CI95 *Interval `json:"ci95,omitempty"`
}

// NewRatio builds num/den; the value is missing, not 0, when den is 0.
func NewRatio(num, den float64, unit string) Ratio {
	r := Ratio{Num: num, Den: den, Unit: unit}
	if den != 0 {
		v := num / den
		r.Value = &v
	}
	return r
}

// The units of a Dist (Dist.Unit), as the JSON card writes them.
const (
	UnitMS         = "ms"       // times in milliseconds: TTFT, E2E, the server's prompt time
	UnitEvent      = "event"    // gaps between streamed events, in ms: ITL only at one token an event
	UnitMSPerToken = "ms/token" // a mean time per token: TPOT, the server's decode time
)

// The units of the card's shares and rates (Ratio.Unit): what is counted
// over what.
const (
	UnitFailureRate      = "failed attempts / attempts"
	UnitQualityPassRate  = "quality passes / rated complete successes"
	UnitQualifiedRate    = "qualified attempts / attempts"
	UnitGoodput          = "qualified attempts / window second"
	UnitRequestQualified = "qualified requests / requests"
)

// Dist is a latency distribution: the sample size and the method always
// travel with the percentiles. Percentiles are nil for an empty sample.
type Dist struct {
	Unit   string   `json:"unit"`
	Method Method   `json:"method"`
	N      int      `json:"n"`
	P50    *float64 `json:"p50"`
	P90    *float64 `json:"p90"`
	P95    *float64 `json:"p95"`
	P99    *float64 `json:"p99"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
	// CI95 is the 95 % order-statistic interval of every level.
	CI95 *DistCI `json:"ci95,omitempty"`
	// Chosen are the levels asked for (--percentiles), in order, each with
	// its interval; omitted when none were asked for.
	Chosen []LevelValue `json:"percentiles,omitempty"`
}

// NewDist reads the report's levels from x (non-negative latencies).
// x is not modified.
func NewDist(x []float64, m Method, unit string) Dist {
	s := samplesOf(x)
	d := s.dist(m, unit)
	d.CI95 = s.ci95()
	return d
}

// Percentile returns the level p of the distribution, if it is reported.
func (d Dist) Percentile(p float64) *float64 {
	switch p {
	case 0.50:
		return d.P50
	case 0.90:
		return d.P90
	case 0.95:
		return d.P95
	case 0.99:
		return d.P99
	}
	return nil
}

// Summary is the metrics card of one trace under a list of SLO conditions.
// JSON keys are the CLI's contract with notebooks, tests and graders.
type Summary struct {
	Trace            string         `json:"trace"`
	Clock            string         `json:"clock"`
	Window           WindowInfo     `json:"window"`
	WindowS          float64        `json:"window_s"`
	PercentileMethod Method         `json:"percentile_method"`
	Attempts         int64          `json:"attempts"`
	Requests         int64          `json:"requests"`
	CompleteSuccess  int64          `json:"complete_successes"`
	Failures         int64          `json:"failures"`
	InFlight         int64          `json:"in_flight"`
	OutsideWindow    int64          `json:"outside_window"`
	Outcomes         map[string]int `json:"outcomes"`
	// HTTPStatusCounts splits the http_error attempts by the status each
	// recorded ("429": 16); one without a recorded status (an import) is
	// in no key: its status is not invented. Absent without any.
	HTTPStatusCounts map[string]int `json:"http_status_counts,omitempty"`
	// Unanswered is the trace's tail in which nothing answered (a server
	// that crashed or was never there); nil without one.
	Unanswered       *Unanswered `json:"unanswered,omitempty"`
	FailureRate      Ratio       `json:"failure_rate"`
	QualityPassRate  Ratio       `json:"quality_pass_rate"`
	Throughput       Throughput  `json:"throughput"`
	QualityPasses    int64       `json:"quality_passes"`
	QualityFails     int64       `json:"quality_fails"`
	UnratedSuccesses int64       `json:"unrated_successes"`
	// TTFTMissing counts in-window attempts with no first event: they have
	// no TTFT at all, and are never counted as 0.
	TTFTMissing int64 `json:"ttft_missing"`
	// The distributions hold complete successes only; failures are in the
	// rates above, never in these samples.
	TTFT  Dist `json:"ttft_ms"`
	E2E   Dist `json:"e2e_ms"`
	ITL   Dist `json:"itl_ms"`
	TPOT  Dist `json:"tpot_ms"`
	Event struct {
		Events           int64 `json:"events"`
		Tokens           int64 `json:"tokens"`
		MultiTokenEvents int64 `json:"multi_token_events"`
		MaxTokensPerEvt  int   `json:"max_tokens_per_event"`
		// UsageTokens is the servers' output_tokens over the successes that
		// report it; UsageEventTokens is what their events carry.
		UsageTokens      int64 `json:"usage_output_tokens"`
		UsageEventTokens int64 `json:"usage_event_tokens"`
		// TPOTAtFinish counts the TPOTs whose t_N is the finish
		// (trace.Attempt.LastTokenMS): usage counted tokens the events did
		// not carry, which arrived without text by the finish_reason chunk.
		TPOTAtFinish int64 `json:"tpot_at_finish,omitempty"`
		// TPOTAtLastEvent counts the other TPOTs, whose t_N is the last
		// text event, beside a TPOTAtFinish above 0 (the card names both).
		TPOTAtLastEvent int64 `json:"tpot_at_last_event,omitempty"`
	} `json:"streamed_events"`
	RetryAmplification *float64        `json:"retry_amplification"`
	WindowCost         *float64        `json:"window_cost"`
	Currency           string          `json:"currency"`
	Conditions         []Condition     `json:"conditions"`
	TraceConditions    json.RawMessage `json:"trace_conditions,omitempty"`
	// RunEnd is how a live measurement ended (the header's
	// conditions.run_end): an interrupted run's window ends at the
	// interrupt and its unfinished attempts are in flight, not failures.
	RunEnd *trace.RunEnd `json:"run_end,omitempty"`
	// CapacityStop is the capacity search's count of a step it stopped
	// early on overload (its in-flight attempts left out); nil for any
	// other trace.
	CapacityStop *CapacityStop `json:"capacity_stop,omitempty"`
	// Server is the client/server split, when attempts carry the server's
	// own timings (meta.server_timings); nil otherwise.
	Server *ServerSplit `json:"server_timings,omitempty"`
	// PromptCache is the server's cached-token counts (meta.cached_tokens)
	// when no attempt carried server timings; nil otherwise.
	PromptCache *PromptCache `json:"prompt_cache,omitempty"`
	// ClientLag is how late the measuring client itself was, when its
	// attempts record it (meta.client_lag_ms); nil otherwise.
	ClientLag *ClientLag `json:"client_lag,omitempty"`
	// Sweep are the conditions at Options.SweepSLOsMS, judged under the
	// same rule as Conditions: the points of a chart of goodput against
	// the SLO, not conditions of the card (not in its JSON).
	Sweep []Condition `json:"-"`
	// TTFTOther is the TTFT distribution under Options.OtherMethod (nil
	// when none was asked for; not in the card's JSON).
	TTFTOther *Dist `json:"-"`
	// Spill says that the samples outgrew the memory budget and were
	// sorted into runs on disk to be read; nil when all stayed in memory.
	// The numbers are the same either way.
	Spill *Spill `json:"spill,omitempty"`
	// Warnings are the caveats a reader must see with the numbers, each a
	// stable kind and its text in English; absent without any. The views
	// of a summary (coursekit/cardfmt) write them: the JSON card here, the
	// text and Markdown cards among their notes, in their language.
	Warnings []Warning `json:"warnings,omitempty"`
	// TraceMeta is the header's meta (the tool's notes: started_at, url,
	// client, prompt_salt), for comparing two traces' headers; not part
	// of the JSON card.
	TraceMeta json.RawMessage `json:"-"`
	// Resampling is what a bootstrap redraws (Options.Resampling); nil
	// otherwise. Not part of the JSON card.
	Resampling *Resampling `json:"-"`
}

// Warning is one caveat of a summary: Kind is stable, for scripts to key
// on, and Text says it in English (compare's warnings have this shape).
type Warning struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// WarnSLODropped is the kind of the warning that --slo-* flags replaced
// the SLO set the trace records and left out an SLO beyond TTFT it
// records: the summary is judged without it (cardopts.Dropped). compare
// warns of it under the same kind.
const WarnSLODropped = "slo_dropped"

// WarnCapacityBasis is the kind of the warning that the trace is a
// capacity step stopped early on overload, which the search counted
// without its attempts in flight (Summary.CapacityStop).
const WarnCapacityBasis = "capacity_basis"

// Spill describes a card computed past its memory budget.
type Spill struct {
	BudgetBytes int64 `json:"memory_budget_bytes"`
	Runs        int   `json:"runs"`
	Bytes       int64 `json:"bytes"`
}

// WindowInfo echoes the trace window.
type WindowInfo struct {
	StartMS float64 `json:"start_ms"`
	EndMS   float64 `json:"end_ms"`
}

// Condition is the joint qualification under one TTFT SLO.
type Condition struct {
	SLOTTFTMS float64 `json:"slo_ttft_ms"`
	Qualified int64   `json:"qualified"`
	// QualifiedRate's denominator is every in-window attempt, failures included.
	QualifiedRate Ratio    `json:"qualified_rate"`
	GoodputPerS   float64  `json:"goodput_per_s"`
	Goodput       Ratio    `json:"goodput"`
	CostPer1000   *float64 `json:"cost_per_1000_qualified"`
	Currency      string   `json:"currency"`
	// Request view: a request qualifies if any of its attempts does.
	RequestsQualified   int64 `json:"requests_qualified"`
	RequestQualifiedRat Ratio `json:"request_qualified_rate"`
	// QualifiedEndedAfterWindow counts the qualified attempts (sent in the
	// window, so counted by goodput) that ended after the window closed:
	// the drain a window of send times counts (Throughput.EndedAfterWindow);
	// QualifiedEndedWithinWindow the others.
	QualifiedEndedAfterWindow  int64 `json:"qualified_ended_after_window"`
	QualifiedEndedWithinWindow int64 `json:"qualified_ended_within_window"`
	// NotQualified says why each other attempt dropped out, in the order
	// the checks apply: complete success, then quality, then TTFT, then
	// E2E, ITL P95 and TPOT when those SLOs are set.
	NotQualified Drops `json:"not_qualified"`
	// LatencySLO are the per-attempt SLOs beyond TTFT (omitted when none).
	LatencySLO
	// QualityRule says whether quality was required, when LatencySLO is set.
	QualityRule string `json:"quality_rule,omitempty"`
	// Unknown, when set, says why the qualified count and every rate built
	// on it are unknown (GoodputUnrated): the JSON writes them as null, the
	// ratios' values are nil, and GoodputPerS, Qualified and
	// RequestsQualified are not measurements. A missing value is not 0.
	Unknown string `json:"goodput_unknown,omitempty"`
}

// GoodputUnrated is Condition.Unknown when quality is a condition of the
// SLO and no attempt of the trace was rated: the unit's rule (complete ∧
// quality pass ∧ TTFT ≤ SLO) cannot tell which successes qualify.
const GoodputUnrated = "quality_unrated"

// MarshalJSON writes an unknown condition's counts and goodput as null
// (NullJSON), keeping every key; not_qualified writes itself (Drops).
func (c Condition) MarshalJSON() ([]byte, error) {
	type plain Condition
	if c.Unknown == "" {
		return json.Marshal(plain(c))
	}
	return json.Marshal(struct {
		plain
		Qualified         *int64   `json:"qualified"`
		GoodputPerS       *float64 `json:"goodput_per_s"`
		RequestsQualified *int64   `json:"requests_qualified"`
		QualifiedLate     *int64   `json:"qualified_ended_after_window"`
		QualifiedOnTime   *int64   `json:"qualified_ended_within_window"`
	}{plain: plain(c)})
}

// NullJSON names the members MarshalJSON writes as null: the counts and
// goodput of an unknown condition, none of a known one.
func (c Condition) NullJSON() []string {
	if c.Unknown == "" {
		return nil
	}
	return []string{"qualified", "goodput_per_s", "requests_qualified", "qualified_ended_after_window", "qualified_ended_within_window"}
}

// markUnrated makes c unknown when its rule requires quality and some
// success was left unrated in a trace where no attempt was rated (called
// only then). A trace with no complete success keeps its known 0.
func (c *Condition) markUnrated() {
	if !c.Rule().QualityRequired || c.NotQualified.QualityUnrated == 0 {
		return
	}
	c.Unknown = GoodputUnrated
	for _, r := range []*Ratio{&c.QualifiedRate, &c.Goodput, &c.RequestQualifiedRat} {
		r.Value, r.CI95 = nil, nil
	}
	c.CostPer1000 = nil
}

// Drops counts attempts by the first joint-qualification check they fail.
// The reasons of the latency SLOs beyond TTFT count only when the
// condition judges them (judges, set with the condition's LatencySLO).
type Drops struct {
	NotComplete    int64 `json:"not_complete"`
	QualityFail    int64 `json:"quality_fail"`
	QualityUnrated int64 `json:"quality_unrated"`
	TTFTOverSLO    int64 `json:"ttft_over_slo"`
	E2EOverSLO     int64 `json:"e2e_over_slo,omitempty"`
	ITLOverSLO     int64 `json:"itl_p95_over_slo,omitempty"`
	TPOTOverSLO    int64 `json:"tpot_over_slo,omitempty"`
	judges         LatencySLO
}

// MarshalJSON writes every reason the condition judges, a zero count
// included, so that not_qualified lists each check the rule made; the
// reasons of SLOs it does not judge are left out (they are 0).
func (d Drops) MarshalJSON() ([]byte, error) {
	judged := func(slo float64, n int64) *int64 {
		if slo > 0 || n != 0 {
			return &n
		}
		return nil
	}
	return json.Marshal(struct {
		NotComplete    int64  `json:"not_complete"`
		QualityFail    int64  `json:"quality_fail"`
		QualityUnrated int64  `json:"quality_unrated"`
		TTFTOverSLO    int64  `json:"ttft_over_slo"`
		E2EOverSLO     *int64 `json:"e2e_over_slo,omitempty"`
		ITLOverSLO     *int64 `json:"itl_p95_over_slo,omitempty"`
		TPOTOverSLO    *int64 `json:"tpot_over_slo,omitempty"`
	}{d.NotComplete, d.QualityFail, d.QualityUnrated, d.TTFTOverSLO,
		judged(d.judges.E2EMS, d.E2EOverSLO), judged(d.judges.ITLP95MS, d.ITLOverSLO), judged(d.judges.TPOTMS, d.TPOTOverSLO)})
}

// Unanswered is the tail of a trace in which nothing answered, as bench
// says it at the end of a run: FromMS is the run's last response byte
// (trace.Attempt.LastResponseMS: not a no_response's end; 0: nothing ever
// answered), and ConnectErrors the connect errors that started at or
// after it. Every attempt counts, the warm-up's too, as bench counts them.
type Unanswered struct {
	FromMS        float64 `json:"from_ms"`
	ConnectErrors int64   `json:"connect_errors"`
}
