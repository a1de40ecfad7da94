// Package card is unit 01's deliverable: the learner's system path map and
// metric-definition card ("系统路径图与指标口径卡"), and its checks.
//
// A learner fills a Card literal in a notebook cell. Check recomputes every
// figure from the trace through coursekit/metrics and returns one row per
// public acceptance criterion: pass, fail with a hint in Chinese that points
// to the notebook to revisit (never the expected value), or "needs a human
// reader" for free text. HiddenChecks are the grader's extra criteria; the
// self-check only counts them.
//
// Learner-facing text is Simplified Chinese; JSON keys are English and are
// the contract with the grader, which reads the card from the notebook
// without executing it (see MIMEType and Payload).
package card

// Accepted values a card literal may name instead of typing the string
// (the card cell is one composite literal of constants: see Constants).
// Each group lists the value the unit expects first, then the other
// spelling the check understands, so that the choice is the learner's.
const (
	// Clock: whose clock stamped the times (Card.Clock).
	ClientClock = "client" // the unit's traces: one client clock
	ServerClock = "server"

	// Window kind (Window.Kind).
	FixedWindow   = "fixed"   // the unit counts everything in one fixed window
	SlidingWindow = "sliding" // a moving window, as dashboards use

	// Percentile method (Card.PercentileMethod).
	NearestRank = "nearest-rank" // the ⌈p·n⌉-th smallest sample, the unit's method
	Linear      = "linear"       // numpy's default interpolation, used by vLLM and AIPerf

	// What each timestamp of the stream stands for (Streaming.Recorded).
	PerEvent = "event" // one SSE message as it arrived, whatever it carried
	PerToken = "token" // one output token

	// Time units of a Figure (SLO, P95).
	Seconds      = "s"
	Milliseconds = "ms"
)

// Constants are the package-level constants a card literal may name, by
// identifier, with their values: what the grader uses to read a card cell
// without compiling it (card.NearestRank is "nearest-rank"). A test keeps
// it equal to the constants declared in this package.
var Constants = map[string]string{
	"ClientClock": ClientClock, "ServerClock": ServerClock,
	"FixedWindow": FixedWindow, "SlidingWindow": SlidingWindow,
	"NearestRank": NearestRank, "Linear": Linear,
	"PerEvent": PerEvent, "PerToken": PerToken,
	"Seconds": Seconds, "Milliseconds": Milliseconds,
	"TrainingTask": string(TrainingTask), "InferenceTask": string(InferenceTask),
	"Device": string(Device), "Training": string(Training), "Inference": string(Inference), "Platform": string(Platform),
}

// Ratio is a rate the learner writes with its parts: the counted numerator,
// the denominator it is counted over, and a unit that names both, such as
// "失败尝试/全部尝试". Never a bare percentage.
type Ratio struct {
	Num  float64 `json:"num"`
	Den  float64 `json:"den"`
	Unit string  `json:"unit"`
}

// Value is Num/Den, or 0 when Den is 0.
func (r Ratio) Value() float64 {
	if r.Den == 0 {
		return 0
	}
	return r.Num / r.Den
}

// Figure is a number with its unit, such as {2, "s"} or {0.5, "次/s"}.
type Figure struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Window is the measurement window the figures are counted in.
type Window struct {
	// Seconds is the window length.
	Seconds float64 `json:"seconds"`
	// Kind is FixedWindow ("fixed", 固定) for a fixed window, the only kind
	// the unit uses.
	Kind string `json:"kind"`
}

// Condition is one column of the recomputed table: the figures under one
// TTFT SLO. The unit asks for two, the original 1 s and the tightened 0.5 s.
// It holds only what the SLO changes: the success P95 and the failure rate
// do not depend on it and are the card's (Card.P95, Card.FailureRate).
type Condition struct {
	// SLO is the single-attempt TTFT threshold, e.g. {1, "s"}.
	SLO Figure `json:"slo"`
	// QualifiedRate is qualified attempts over all attempts (joint
	// qualification: complete success, quality pass and TTFT ≤ SLO).
	QualifiedRate Ratio `json:"qualified_rate"`
	// Qualified is the number of qualified attempts.
	Qualified int `json:"qualified"`
	// Goodput is qualified attempts per second of the window, e.g. {0.5, "次/s"}.
	Goodput Figure `json:"goodput"`
	// CostPer1000 is the window cost per 1000 qualified attempts,
	// e.g. {4, "元/千次合格"}.
	CostPer1000 Figure `json:"cost_per_1000_qualified"`
}

// Streaming is the card's token-vs-event row: what the client recorded for
// each streamed output, and how the intervals between them are aggregated.
type Streaming struct {
	// Recorded is PerEvent ("event", 事件) or PerToken ("token"): what the
	// client's timestamps stand for. "token" is right only when every event
	// of the trace carries exactly one token.
	Recorded string `json:"recorded"`
	// Aggregation says how intervals are computed and summarised (free text).
	Aggregation string `json:"aggregation"`
}

// Outputs tells training and inference apart by what each one delivers
// (free text for each).
type Outputs struct {
	Training  string `json:"training"`
	Inference string `json:"inference"`
}

// Card is the learner's deliverable. Every number carries its unit, every
// rate its numerator and denominator, so that someone else can recompute it.
type Card struct {
	// Path is the system path map; its SamplingPoint is where the figures
	// below were observed.
	Path PathMap `json:"path"`

	// Clock is whose clock stamped the times, e.g. ClientClock ("client", 客户端).
	Clock string `json:"clock"`
	// Window is the counting window.
	Window Window `json:"window"`
	// PercentileMethod is how percentiles are read: NearestRank or Linear.
	PercentileMethod string `json:"percentile_method"`
	// SuccessSamples is the size of the success TTFT sample behind P95.
	SuccessSamples int `json:"success_samples"`
	// Attempts is the number of attempts in the window, failures included.
	Attempts int `json:"attempts"`
	// P95 is the TTFT P95 of complete successes only, with its time unit.
	// No SLO enters it: one P95 per card, whatever the conditions.
	P95 Figure `json:"p95"`
	// FailureRate is failed attempts over all attempts; no SLO enters it
	// either.
	FailureRate Ratio `json:"failure_rate"`

	// Conditions holds one entry per TTFT SLO (the unit asks for 1 s and 0.5 s).
	Conditions []Condition `json:"conditions"`

	// CounterEvidence answers: what would refute "GPU 很忙所以用户一定很快"?
	// Name at least one request result or timeline.
	CounterEvidence string `json:"counter_evidence"`
	// Streaming is the token-vs-event row.
	Streaming Streaming `json:"streaming"`
	// DenominatorError explains a false conclusion caused by a wrong denominator.
	DenominatorError string `json:"denominator_error"`
	// Outputs tells training and inference outputs apart.
	Outputs Outputs `json:"outputs"`

	// Uncertain is what the learner is still unsure of about these figures
	// or this path (free text, read by a person): the seed asks to write
	// down conditions, evidence, results and what remains uncertain.
	Uncertain string `json:"uncertain"`
}
