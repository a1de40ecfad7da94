package toolfile

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Options tune an import.
type Options struct {
	// Run picks one run (1-based) when a file holds several: a vLLM file
	// written with --append-result (JSON Lines, one run per line), several
	// GenAI-Perf experiments or several guidellm benchmarks. 0 means "the
	// only one", and a file with several runs is then an error that says how
	// many there are, rather than a silent choice.
	Run int
	// Summary holds the numbers of the tool's separate summary file, as
	// ReadSummary returns them, and SummaryName names that file. When set,
	// they replace the numbers recomputed from the rows in Report.Stats, and
	// the summary's request counts are checked against the rows imported: a
	// disagreement (a summary of another run or stage) becomes a note.
	Summary     []Stat
	SummaryName string
	// Dataset, when set, judges the generated texts the file kept against
	// it by prompt order (see judgeTexts in the importer package).
	Dataset *dataset.Set
	// SLO, when set, is recorded as conditions.slo, as bench records the
	// SLOs it was given, so that every card of the imported trace judges
	// by them.
	SLO *trace.SLOs
}

// Report is what the import found besides the attempts: the tool's own
// numbers, and what was lost on the way.
type Report struct {
	Tool   string `json:"tool"`
	Layout string `json:"layout"` // which schema variant was recognised
	Run    int    `json:"run"`    // the run imported (1-based)
	Runs   int    `json:"runs"`   // runs in the file
	// Attempts and Failures count the attempts written to the trace.
	Attempts int `json:"attempts"`
	Failures int `json:"failures"`
	// ITLSemantics is what the tool's own ITL number means: per_event
	// (vLLM), per_token_amortized (AIPerf, GenAI-Perf, guidellm: one
	// average per request), per_token_zero_fill, or invalid (llmperf).
	// The trace's event gaps are always per event; conditions.event_times
	// says how they were obtained.
	ITLSemantics string `json:"itl_semantics"`
	// PercentileMethod is how the tool reads its percentiles.
	PercentileMethod string `json:"percentile_method"`
	// Stats are the tool's own summary numbers, in file order.
	Stats []Stat `json:"stats"`
	// Summary names the summary file Stats were read from (Options.Summary);
	// empty when they come from the result file itself or are Derived.
	Summary string `json:"summary,omitempty"`
	// Notes say, in plain words, what the trace cannot hold or what looked
	// odd in the file (never an error: errors stop the import), each in
	// both languages; the JSON form is the English text.
	Notes []Note `json:"notes"`
}

// Stat is one number of the tool's own summary.
type Stat struct {
	// Metric is our name for what is measured: ttft_ms, e2e_ms, itl_ms,
	// tpot_ms, completed, failed, duration_s, request_throughput,
	// request_goodput, error_rate, ...
	Metric string `json:"metric"`
	// Stat is mean, median, std, min, max, count or pNN (p50, p99, p99.9).
	Stat string `json:"stat"`
	// Value is nil when the tool wrote null.
	Value *float64 `json:"value"`
	// Key is where the number was found, e.g. "p99_ttft_ms" or
	// "metrics.time_to_first_token_ms.successful.mean".
	Key string `json:"key"`
	// NonFinite is "NaN", "Infinity" or "-Infinity" when the tool wrote a
	// bare non-finite token; Value is then nil, so the Report stays valid JSON.
	NonFinite string `json:"non_finite,omitempty"`
	// Derived is true when the file holds no summary and the number was
	// computed the tool's way from its own rows (e.g. llmperf's pandas
	// linear quantiles over successful rows).
	Derived bool `json:"derived,omitempty"`
}

// Level returns the percentile level of a pNN stat (0.99 for p99), or false.
func (s Stat) Level() (float64, bool) {
	if s.Stat == "median" {
		return 0.5, true
	}
	if !strings.HasPrefix(s.Stat, "p") {
		return 0, false
	}
	v, err := strconv.ParseFloat(s.Stat[1:], 64)
	if err != nil || v < 0 || v > 100 {
		return 0, false
	}
	return v / 100, true
}

// Result is an import held in memory until it is known to be whole.
type Result struct {
	Header   trace.Header
	Conds    Conditions
	Attempts []trace.Attempt
	Paths    []string // the JSON path or line of each attempt's row, for errors
	Report   Report
	// resolutionMS is the clock resolution times are rounded to, so that
	// unit conversion noise (0.0812 s → 81.19999999999999 ms) does not
	// reach the trace: 1 ns by default, 1 µs for epoch-seconds floats.
	ResolutionMS float64
	// DerivedNote says that the Derived stats were recomputed from the rows
	// because the summary lives in another file; it is dropped when that
	// file is given (Options.Summary). It is made with the name of the file
	// the user gave, not the tool's default name for it.
	DerivedNote func(name string) Note
	// toolOK is how many rows the tool itself counts as successes, for the
	// cross-check against a separate summary's counts.
	ToolOK int
}

// round snaps every time to the resolution. Rounding is monotonic, so
// event order and end ≥ last event survive it.
func (res *Result) round() {
	q := res.ResolutionMS
	if q == 0 {
		q = 1e-6
	}
	r := func(v float64) float64 { return math.Round(v/q) * q }
	// Snap through a decimal string so that 100.00000000000001 prints as 100.
	rs := func(v float64) float64 {
		f, _ := strconv.ParseFloat(strconv.FormatFloat(r(v), 'f', int(math.Max(0, -math.Floor(math.Log10(q)))), 64), 64)
		return f
	}
	res.Header.Window.StartMS = rs(res.Header.Window.StartMS)
	res.Header.Window.EndMS = rs(res.Header.Window.EndMS)
	for i := range res.Attempts {
		a := &res.Attempts[i]
		a.StartMS = rs(a.StartMS)
		a.EndMS = rs(a.EndMS)
		for j := range a.Events {
			a.Events[j].TMS = rs(a.Events[j].TMS)
		}
	}
}

// Conditions is the header's condition list for an imported trace. The
// keys are the same for every tool so that notebooks can read them.
type Conditions struct {
	Source       string         `json:"source"`
	Layout       string         `json:"layout"`
	Run          int            `json:"run,omitempty"`
	Runs         int            `json:"runs,omitempty"`
	Clock        string         `json:"clock"`
	Window       string         `json:"window"`
	ITLSemantics string         `json:"itl_semantics"`
	EventTimes   string         `json:"event_times"`
	EventTokens  string         `json:"event_tokens"`
	Failures     string         `json:"failures"`
	Quality      string         `json:"quality"`
	Sampled      bool           `json:"sampled"`
	Lossy        []string       `json:"lossy"`
	Tool         map[string]any `json:"tool_config,omitempty"`
	SLO          *trace.SLOs    `json:"slo,omitempty"`
}

const QualityNull = "not recorded by the tool: every attempt has quality null (unrated, never a pass)"

// Write validates every attempt, builds the trace in memory and copies it
// to w only when all of it is valid.
func (res *Result) Write(src *Source, w io.Writer) error {
	if res.Conds.Lossy == nil {
		res.Conds.Lossy = []string{}
	}
	c, err := json.Marshal(res.Conds)
	if err != nil {
		return err
	}
	res.Header.Conditions = c
	if res.Header.Clock == "" {
		res.Header.Clock = "client"
	}
	meta, _ := json.Marshal(map[string]any{"importer": res.Report.Tool, "source": baseName(src.Name)})
	res.Header.Meta = meta
	res.round()
	var buf bytes.Buffer
	tw, err := trace.NewWriter(&buf, res.Header)
	if err != nil {
		return src.ErrAt(0, "window", err.Error())
	}
	fail := 0
	for i := range res.Attempts {
		a := &res.Attempts[i]
		if a.Outcome == trace.NoResponse && len(a.Events) > 0 {
			a.Outcome = trace.StreamError // output had arrived: a response had begun
		}
		if err := a.Validate(); err != nil {
			return src.ErrAt(0, res.Paths[i], "imported attempt is invalid: "+err.Error())
		}
		if err := tw.Write(a); err != nil {
			return src.ErrAt(0, res.Paths[i], err.Error())
		}
		if a.Outcome != trace.OK && a.Outcome != trace.InFlight {
			fail++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	res.Report.Attempts = len(res.Attempts)
	res.Report.Failures = fail
	res.Report.ITLSemantics = res.Conds.ITLSemantics
	res.Report.Layout = res.Conds.Layout
	if res.Report.Stats == nil {
		res.Report.Stats = []Stat{}
	}
	_, err = w.Write(buf.Bytes())
	return err
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// UseSummary puts the summary's numbers in the Report and checks its
// request counts against the rows: a summary of another run or stage must
// not pass for this one's.
func (res *Result) UseSummary(stats []Stat, name string) {
	rep := &res.Report
	rep.Stats = stats
	rep.Summary = baseName(name)
	rows := map[string]int{"attempts": rep.Attempts, "completed": res.ToolOK, "failed": rep.Attempts - res.ToolOK}
	var diffs []Note
	for _, s := range stats {
		want, ok := rows[s.Metric]
		if !ok || s.Stat != "count" || s.Value == nil || *s.Value == float64(want) {
			continue
		}
		diffs = append(diffs, NewNote(lang.Msg{"%s = %g（%s），但逐行记录给出 %d", "%s = %g (%s) but the rows give %d"}, s.Metric, *s.Value, s.Key, want))
	}
	if len(diffs) > 0 {
		d := JoinNotes(diffs, lang.Msg{"；", "; "})
		rep.Notes = append([]Note{NewNote(lang.Msg{
			"COUNT MISMATCH（计数不符）：%s 写的是 %s。这份汇总多半来自另一次运行或另一个阶段，不是这些逐行记录所属的那一次：它的数字按原样列出，指标口径卡按逐行记录计算",
			"COUNT MISMATCH: %s says %s. The summary is probably of another run or stage than the rows: its numbers are shown as written, the card is computed from the rows"},
			rep.Summary, d)}, rep.Notes...)
		return
	}
	rep.Notes = append([]Note{NewNote(lang.Msg{"工具的数字读自 %s；其中的请求计数与逐行记录一致", "the tool's numbers are read from %s; its request counts agree with the rows"}, rep.Summary)}, rep.Notes...)
}
