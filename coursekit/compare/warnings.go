package compare

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// Warning is one thing a reader must know before trusting the verdicts:
// Kind names it for scripts, Text says it (the card's warnings,
// metrics.Warning, have the same shape).
type Warning struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Kinds of warnings.
const (
	// WarnSLODropped: SLO flags replaced runs' recorded SLO sets, dropping
	// an SLO beyond TTFT they record (cardopts.Dropped).
	WarnSLODropped = metrics.WarnSLODropped
	// WarnUnrated: the rule requires a quality pass and no complete
	// success is rated, so qualified rates and goodput are unknown on that
	// side whatever the latency (the card's note), and not compared.
	WarnUnrated = "unrated"
	// WarnSends: a run's schedule was not sent as planned (arrivals never
	// sent, or sends late beyond metrics.SendLagBoundMS at P99): the load
	// it measured is not the load its conditions name (the card's notes).
	WarnSends = "sends"
	// WarnClientLag: a run's measuring client was late to wake (the
	// card's note, metrics.ClientLag): its stamps, TTFT and gaps may be
	// late by as much.
	WarnClientLag = "client_lag"
	// WarnOrder: every run of one side started before every run of the
	// other (the headers' meta.started_at), so a drift in the machine's load or the server's
	// state between them reads as a difference.
	WarnOrder = "run_order"
	// WarnConditions: more than one condition differs between the sides.
	WarnConditions = "conditions"
	// WarnRunsDiffer: the runs of one side differ among themselves in a
	// condition (RunsDiffer names them).
	WarnRunsDiffer = "runs_differ"
	// WarnSameSeed: open-loop runs of one side share a seed, so they
	// replay one arrival schedule and are not independent replicates.
	WarnSameSeed = "same_seed"
	// WarnOneRun: a side has one run, so the intervals do not carry the
	// variance between runs.
	WarnOneRun = "one_run"
	// WarnTooFew: a percentile's difference is unbounded on a side, too
	// few samples (each metric's unbounded_reason says how many).
	WarnTooFew = "too_few_samples"
	// WarnTooFewWelch: a short run leaves a percentile's within-run
	// method unbounded, and its interval is Welch's t over the runs alone
	// (several runs on both sides, each with a value).
	WarnTooFewWelch = "too_few_samples_welch_runs"
	// WarnRunMax: a percentile is, in a short run, the run's maximum
	// (⌈p·n⌉ = n), so Welch's t over the runs is not used for it and its
	// interval stays unbounded (Metric.AtRunMax).
	WarnRunMax = "percentile_at_run_max"
	// WarnFailures: the sides' failure rates differ (a verdict, or 5
	// points or more), and the latency percentiles cover complete
	// successes only: the side with more failures may look faster.
	WarnFailures = "failures_left_out"
	// WarnNoValue: a metric has no value on a side (verdict n/a).
	WarnNoValue = "no_value"
	// WarnClosedLoop: runs under a closed loop (conditions.loop "closed")
	// whose goodput or throughput interval assumes Poisson counts (one run
	// on a side): it errs wide.
	WarnClosedLoop = "closed_loop"
)

// headWarnings are the kinds the text report prints at its head, before
// the conditions; the others it prints where they belong.
var headWarnings = map[string]bool{WarnSLODropped: true, WarnUnrated: true, WarnSends: true, WarnClientLag: true, WarnOrder: true}

var (
	msgRunsNote  = lang.Msg{"%s（%s）", "%s (%s)"}
	msgRanBefore = lang.Msg{"注意：%[1]s 全部在 %[2]s 之前运行：两者之间机器负载或服务器状态的漂移会被读成差别；A 和 B 应交替运行（A、B、A、B……）。", "Warning: %[1]s ran entirely before %[2]s: a drift in the machine's load or the server's state between them reads as a difference; alternate A and B (A, B, A, B …)."}
)

// warnings are r's warnings in l.
func (r *Result) warnings(l lang.Lang) []Warning {
	out := []Warning{}
	// Every run is named with its side ("A a1.jsonl"), so that an A/A
	// comparison of one trace names it once a side, not twice alike.
	runs := r.sideRuns()
	// The card's note on SLOs dropped, once per distinct note, naming its
	// runs.
	var texts []string
	byText := map[string][]string{}
	for _, run := range runs {
		t := cardfmt.SLONoteIn(l, run.Summary)
		if r.SLOFrom != "" {
			t = cardfmt.SLONoteFromRunIn(l, run.Summary, r.SLOFrom)
		}
		if t != "" {
			if byText[t] == nil {
				texts = append(texts, t)
			}
			byText[t] = append(byText[t], run.label())
		}
	}
	for _, t := range texts {
		out = append(out, Warning{WarnSLODropped, msgRunsNote.F(l, t, strings.Join(byText[t], msgSep.In(l)))})
	}
	// The card's note on unrated successes, over every run it applies to,
	// each named with its side and its own count, so the total reads as
	// their sum (an A/A comparison of one file: 38 + 38), whatever the runs
	// are called (a file, or stdin with the same bytes).
	var names []string
	var n int64
	for _, run := range r.sideRuns() {
		if cardfmt.Unrated(run.Summary) {
			names = append(names, fmt.Sprintf("%s %s: %d", run.side, run.Name, run.Summary.CompleteSuccess))
			n += run.Summary.CompleteSuccess
		}
	}
	if len(names) > 0 {
		out = append(out, Warning{WarnUnrated, msgRunsNote.F(l, cardfmt.UnratedNoteIn(l, n), strings.Join(names, msgSep.In(l)))})
	}
	// The card's sends notes: arrivals never sent, per run; late sends as
	// one note over the runs they apply to, with their ranges.
	var lagP99, lagMax []float64
	var lagRuns, lagNotes []string
	for _, run := range runs {
		notes := cardfmt.SendsNotesIn(l, run.Summary)
		// The send-lag note, when there is one, is the last of them.
		if p99, mx, late := cardfmt.SendLagLate(run.Summary); late && len(notes) > 0 {
			lagP99, lagMax = append(lagP99, p99), append(lagMax, mx)
			lagRuns, lagNotes = append(lagRuns, run.label()), append(lagNotes, notes[len(notes)-1])
			notes = notes[:len(notes)-1]
		}
		for _, t := range notes {
			out = append(out, Warning{WarnSends, msgRunsNote.F(l, t, run.label())})
		}
	}
	switch {
	case len(lagRuns) == 1:
		out = append(out, Warning{WarnSends, msgRunsNote.F(l, lagNotes[0], lagRuns[0])})
	case len(lagRuns) > 1:
		out = append(out, Warning{WarnSends, cardfmt.SendLagRunsNoteIn(l, lagP99, lagMax, strings.Join(lagRuns, msgSep.In(l)))})
	}
	// The card's client-lag note: one run's as the card says it, several
	// runs' as one note with their ranges.
	var late []sideRun
	for _, run := range runs {
		if cardfmt.ClientLagNoteIn(l, run.Summary) != "" {
			late = append(late, run)
		}
	}
	switch {
	case len(late) == 1:
		out = append(out, Warning{WarnClientLag, msgRunsNote.F(l, cardfmt.ClientLagNoteIn(l, late[0].Summary), late[0].label())})
	case len(late) > 1:
		lags, names := make([]*metrics.ClientLag, len(late)), make([]string, len(late))
		for i, run := range late {
			lags[i], names[i] = run.Summary.ClientLag, run.label()
		}
		out = append(out, Warning{WarnClientLag, cardfmt.ClientLagRunsNoteIn(l, lags, strings.Join(names, msgSep.In(l)))})
	}
	switch {
	case ranBefore(r.A.runs, r.B.runs):
		out = append(out, Warning{WarnOrder, msgRanBefore.F(l, "A", "B")})
	case ranBefore(r.B.runs, r.A.runs):
		out = append(out, Warning{WarnOrder, msgRanBefore.F(l, "B", "A")})
	}
	if len(r.ConditionsChanged) > 1 {
		out = append(out, Warning{WarnConditions, msgManyConds.F(l, len(r.ConditionsChanged)) + ". " + msgTooMany.In(l)})
	}
	for _, side := range []struct {
		name string
		runs int
	}{{"a", len(r.A.Traces)}, {"b", len(r.B.Traces)}} {
		var names []string
		for _, d := range r.RunsDiffer {
			if d.Side == side.name {
				names = append(names, d.Name)
			}
		}
		if len(names) > 0 {
			out = append(out, Warning{WarnRunsDiffer, msgRunsDiffer.F(l, strings.ToUpper(side.name), side.runs) + " (" + strings.Join(names, msgSep.In(l)) + ")"})
		}
	}
	for _, w := range r.sameSeedTexts(l) {
		out = append(out, Warning{WarnSameSeed, w})
	}
	switch {
	case !r.BetweenRuns.A && !r.BetweenRuns.B:
		out = append(out, Warning{WarnOneRun, msgOneRunBoth.In(l)})
	case !r.BetweenRuns.A:
		out = append(out, Warning{WarnOneRun, msgOneRun.F(l, "A")})
	case !r.BetweenRuns.B:
		out = append(out, Warning{WarnOneRun, msgOneRun.F(l, "B")})
	}
	var tooFew, welchOnly []string
	for _, m := range r.Metrics {
		switch {
		case m.Verdict == NA:
			out = append(out, Warning{WarnNoValue, m.noValueText(l)})
		case m.WelchOnly():
			welchOnly = append(welchOnly, msgNeedN.F(l, m.Name, m.NeedN, m.shortRunsText(l)))
		case m.Unbounded != nil && m.Verdict != Better && m.Verdict != Worse:
			// As the text report: a difference unbounded on one side whose
			// other side excludes 0 is a verdict, not too few samples.
			tooFew = append(tooFew, msgNeedN.F(l, m.Name, m.NeedN, m.shortRunsText(l)))
		}
	}
	if len(tooFew) > 0 {
		out = append(out, Warning{WarnTooFew, msgTooFew.F(l, strings.Join(tooFew, msgSep.In(l)))})
	}
	if len(welchOnly) > 0 {
		out = append(out, Warning{WarnTooFewWelch, msgWelchOnly.F(l, strings.Join(welchOnly, msgSep.In(l)))})
	}
	if runMax := runMaxItems(r, l); len(runMax) > 0 {
		out = append(out, Warning{WarnRunMax, msgRunMax.F(l, strings.Join(runMax, msgSep.In(l)))})
	}
	if w := r.failuresNote(l); w != "" {
		out = append(out, Warning{WarnFailures, w})
	}
	if w := r.closedLoopWarning(l); w != "" {
		out = append(out, Warning{WarnClosedLoop, w})
	}
	return out
}

var msgSameSeed = lang.Msg{"注意：%s 边的 %s 用了同一个种子 %s：开环的种子决定到达时刻表，这几次运行重放的是同一张时刻表，不是相互独立的重复；每次重复换一个 --seed。", "Warning: on %s, %s share seed %s: an open loop's seed draws its arrival schedule, so these runs replay one schedule and are not independent replicates; give each repeat its own --seed."}

// sameSeedTexts warn of open-loop runs of one side that share a seed.
func (r *Result) sameSeedTexts(l lang.Lang) []string {
	var out []string
	for _, s := range r.SameSeeds() {
		out = append(out, msgSameSeed.F(l, strings.ToUpper(s.Side), strings.Join(s.Runs, msgSep.In(l)), shortValue(l, raw(s.Seed))))
	}
	return out
}

// closedLoopWarning is the closed-loop caveat, naming the closed-loop
// runs, when a goodput or throughput interval assumes Poisson counts; ""
// otherwise.
func (r *Result) closedLoopWarning(l lang.Lang) string {
	poisson := false
	for _, m := range r.Metrics {
		degenerate := m.Diff != nil && *m.Diff == 0 && m.CI95.Low != nil && *m.CI95.Low == 0 && m.CI95.High != nil && *m.CI95.High == 0
		if (m.Unit == "/s" || m.Unit == "token/s") && (m.Method == MethodPoisson || m.Method == MethodHierarchical) && !degenerate {
			poisson = true
		}
	}
	if !poisson {
		return ""
	}
	var names []string
	for _, run := range r.allRuns() {
		if Conditions(run.Summary)["loop"] == `"closed"` {
			names = append(names, run.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return msgClosedLoop.F(l, strings.Join(names, msgSep.In(l)))
}

// ranBefore reports whether every run of x started before every run of
// y, by the headers' meta.started_at (coursekit bench's fixed-width RFC
// 3339 in UTC, so that text order is time order); false when a run
// records none.
func ranBefore(x, y []*metrics.Summary) bool {
	bound := func(runs []*metrics.Summary, latest bool) (string, bool) {
		out := ""
		for i, s := range runs {
			var meta struct {
				StartedAt string `json:"started_at"`
			}
			if json.Unmarshal(s.TraceMeta, &meta) != nil || meta.StartedAt == "" {
				return "", false
			}
			if i == 0 || (meta.StartedAt > out) == latest {
				out = meta.StartedAt
			}
		}
		return out, len(runs) > 0
	}
	lastX, okX := bound(x, true)
	firstY, okY := bound(y, false)
	return okX && okY && lastX < firstY
}

// sideRun is a run with its side, "A" or "B".
type sideRun struct {
	Run
	side string
}

// label names a run with its side: "A a1.jsonl".
func (s sideRun) label() string { return s.side + " " + s.Name }

// sideRuns are the runs of A, then of B, with their names and sides.
func (r *Result) sideRuns() []sideRun {
	var out []sideRun
	for _, s := range []struct {
		name string
		side Side
	}{{"A", r.A}, {"B", r.B}} {
		for i, sum := range s.side.runs {
			out = append(out, sideRun{Run{Name: s.side.Traces[i], Summary: sum}, s.name})
		}
	}
	return out
}

// allRuns are the runs of A, then of B, with their names.
func (r *Result) allRuns() []Run {
	var out []Run
	for _, s := range []Side{r.A, r.B} {
		for i, sum := range s.runs {
			out = append(out, Run{Name: s.Traces[i], Summary: sum})
		}
	}
	return out
}
