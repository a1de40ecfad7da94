// Package importer turns other benchmark tools' result files into trace
// format v1, so that the course's card can recompute them with failures kept
// in the denominators, nearest-rank percentiles and per-event ITL.
//
// Each tool summarises differently (see the course notes on vLLM, AIPerf,
// GenAI-Perf, guidellm, llmperf and inference-perf): failures dropped from percentiles,
// interpolated percentiles, ITL averaged per request, 0.0 written for a TTFT
// that never came. An importer therefore does three things:
//
//   - it derives one attempt per per-request row of the file (never from a
//     requested count such as vLLM's num_prompts), failures included, and
//     turns a failure's placeholder TTFT into a missing one (no events);
//   - it writes what the file cannot tell into the header's conditions
//     (relative clocks, no quality labels, sampled rows, the tool's ITL
//     semantics), because a trace that looks complete but is not would
//     mislead every card computed from it;
//   - it returns the tool's own summary numbers in a Report, so that they
//     can be printed beside the recomputed card. Where the tool writes its
//     summary to a separate file (AIPerf, GenAI-Perf, llmperf,
//     inference-perf), ReadSummary reads it and Options.Summary carries its
//     numbers into the Report; without it they are recomputed the tool's way
//     from its own rows and marked Derived.
//
// Every malformed input is an error naming its position (file:line:col or a
// JSON path such as ttfts[17]) and nothing is written: the whole file is
// validated and the trace is built in memory before a byte reaches w.
package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Tools lists the --from values, in the order the CLI prints them.
var Tools = []string{"vllm", "aiperf", "genai-perf", "guidellm", "llmperf", "inference-perf"}

// ErrUnknownTool is returned (wrapped) for a --from value not in Tools.
var ErrUnknownTool = errors.New("unknown tool")

// Known reports whether from names a supported tool.
func Known(from string) bool {
	for _, t := range Tools {
		if t == from {
			return true
		}
	}
	return false
}

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
	// it by prompt order (see judgeTexts in dataset.go).
	Dataset *dataset.Set
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
	// odd in the file (never an error: errors stop the import).
	Notes []string `json:"notes"`
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

// Import reads a result file of tool from and writes trace v1 to w. name
// locates errors. Nothing is written unless the whole file imports.
func Import(from string, r io.Reader, name string, w io.Writer) (*Report, error) {
	return ImportWith(from, r, name, w, Options{})
}

// ImportWith is Import with options.
func ImportWith(from string, r io.Reader, name string, w io.Writer, opt Options) (*Report, error) {
	var f func(*source, Options) (*result, error)
	switch from {
	case "vllm":
		f = importVLLM
	case "aiperf":
		f = importAIPerf
	case "genai-perf":
		f = importGenAIPerf
	case "guidellm":
		f = importGuidellm
	case "llmperf":
		f = importLLMPerf
	case "inference-perf":
		f = importInferencePerf
	default:
		return nil, fmt.Errorf("--from %q: %w (want %s)", from, ErrUnknownTool, strings.Join(Tools, ", "))
	}
	if opt.Run < 0 {
		return nil, fmt.Errorf("run %d: runs are numbered from 1", opt.Run)
	}
	if opt.Summary != nil && !HasSummary(from) {
		return nil, fmt.Errorf("--from %s: %w", from, ErrNoSummaryFile)
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	src := newSource(name, raw)
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, src.errAt(0, "", "the file is empty")
	}
	res, err := f(src, opt)
	if err != nil {
		return nil, err
	}
	if opt.Dataset != nil {
		if err := judgeTexts(from, src, res, opt.Dataset); err != nil {
			return nil, err
		}
	}
	res.report.Tool = from
	if opt.Summary == nil && res.derivedNote != "" {
		res.report.Notes = append([]string{res.derivedNote}, res.report.Notes...)
	}
	if err := res.write(src, w); err != nil {
		return nil, err
	}
	if opt.Summary != nil {
		res.useSummary(opt.Summary, opt.SummaryName)
	}
	return &res.report, nil
}

// result is an import held in memory until it is known to be whole.
type result struct {
	header   trace.Header
	conds    conditions
	attempts []trace.Attempt
	paths    []string // the JSON path or line of each attempt's row, for errors
	report   Report
	// resolutionMS is the clock resolution times are rounded to, so that
	// unit conversion noise (0.0812 s → 81.19999999999999 ms) does not
	// reach the trace: 1 ns by default, 1 µs for epoch-seconds floats.
	resolutionMS float64
	// derivedNote says that the Derived stats were recomputed from the rows
	// because the summary lives in another file; it is dropped when that
	// file is given (Options.Summary).
	derivedNote string
	// toolOK is how many rows the tool itself counts as successes, for the
	// cross-check against a separate summary's counts.
	toolOK int
}

// round snaps every time to the resolution. Rounding is monotonic, so
// event order and end ≥ last event survive it.
func (res *result) round() {
	q := res.resolutionMS
	if q == 0 {
		q = 1e-6
	}
	r := func(v float64) float64 { return math.Round(v/q) * q }
	// Snap through a decimal string so that 100.00000000000001 prints as 100.
	rs := func(v float64) float64 {
		f, _ := strconv.ParseFloat(strconv.FormatFloat(r(v), 'f', int(math.Max(0, -math.Floor(math.Log10(q)))), 64), 64)
		return f
	}
	res.header.Window.StartMS = rs(res.header.Window.StartMS)
	res.header.Window.EndMS = rs(res.header.Window.EndMS)
	for i := range res.attempts {
		a := &res.attempts[i]
		a.StartMS = rs(a.StartMS)
		a.EndMS = rs(a.EndMS)
		for j := range a.Events {
			a.Events[j].TMS = rs(a.Events[j].TMS)
		}
	}
}

// conditions is the header's condition list for an imported trace. The
// keys are the same for every tool so that notebooks can read them.
type conditions struct {
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
}

const qualityNull = "not recorded by the tool: every attempt has quality null (unrated, never a pass)"

// write validates every attempt, builds the trace in memory and copies it
// to w only when all of it is valid.
func (res *result) write(src *source, w io.Writer) error {
	if res.conds.Lossy == nil {
		res.conds.Lossy = []string{}
	}
	c, err := json.Marshal(res.conds)
	if err != nil {
		return err
	}
	res.header.Conditions = c
	if res.header.Clock == "" {
		res.header.Clock = "client"
	}
	meta, _ := json.Marshal(map[string]any{"importer": res.report.Tool, "source": baseName(src.name)})
	res.header.Meta = meta
	res.round()
	var buf bytes.Buffer
	tw, err := trace.NewWriter(&buf, res.header)
	if err != nil {
		return src.errAt(0, "window", err.Error())
	}
	fail := 0
	for i := range res.attempts {
		a := &res.attempts[i]
		if err := a.Validate(); err != nil {
			return src.errAt(0, res.paths[i], "imported attempt is invalid: "+err.Error())
		}
		if err := tw.Write(a); err != nil {
			return src.errAt(0, res.paths[i], err.Error())
		}
		if a.Outcome != trace.OK && a.Outcome != trace.InFlight {
			fail++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	res.report.Attempts = len(res.attempts)
	res.report.Failures = fail
	res.report.ITLSemantics = res.conds.ITLSemantics
	res.report.Layout = res.conds.Layout
	if res.report.Stats == nil {
		res.report.Stats = []Stat{}
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

// source is the raw file with Python's bare NaN/Infinity tokens replaced,
// and what is needed to map a decoder offset back to file:line:col.
type source struct {
	name string
	orig []byte
	data []byte // sanitised
	// shifts[i] is a replacement at sanitised offset at, growing the text by delta.
	shifts []shift
}

type shift struct{ at, delta int }

// Sentinels stand for the bare tokens Python's json.dump writes for
// non-finite floats (allow_nan=True); no tool writes these strings itself.
const (
	sentNaN    = `"#NaN"`
	sentPosInf = `"#Infinity"`
	sentNegInf = `"#-Infinity"`
)

func newSource(name string, raw []byte) *source {
	s := &source{name: name, orig: raw}
	s.data = s.sanitize(raw)
	return s
}

// sanitize replaces bare NaN, Infinity and -Infinity outside strings with
// sentinel strings. vLLM writes them (json.dump's allow_nan default), and
// so can any Python tool, so every importer reads through it. Go's decoder rejects the bare tokens; replacing them
// with null would lose the fact that a value was NaN, which the importer
// must report as an error at its path rather than import as missing.
func (s *source) sanitize(b []byte) []byte {
	var out []byte
	inStr, esc := false, false
	last := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		var tok, rep string
		switch {
		case c == '"':
			inStr = true
			continue
		case c == 'N' && bytes.HasPrefix(b[i:], []byte("NaN")):
			tok, rep = "NaN", sentNaN
		case c == 'I' && bytes.HasPrefix(b[i:], []byte("Infinity")):
			tok, rep = "Infinity", sentPosInf
		case c == '-' && bytes.HasPrefix(b[i:], []byte("-Infinity")):
			tok, rep = "-Infinity", sentNegInf
		default:
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b)+64)
		}
		out = append(out, b[last:i]...)
		s.shifts = append(s.shifts, shift{at: len(out), delta: len(rep) - len(tok)})
		out = append(out, rep...)
		i += len(tok) - 1
		last = i + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// origOffset maps an offset in the sanitised text back to the file.
func (s *source) origOffset(off int) int {
	d := 0
	for _, sh := range s.shifts {
		if sh.at >= off {
			break
		}
		d += sh.delta
	}
	if off-d < 0 {
		return 0
	}
	return off - d
}

// lineCol is the 1-based line and column of a sanitised offset.
func (s *source) lineCol(off int) (int, int) {
	o := min(s.origOffset(off), len(s.orig))
	line := 1 + bytes.Count(s.orig[:o], []byte{'\n'})
	col := o - bytes.LastIndexByte(s.orig[:o], '\n')
	return line, col
}

// errAt is a positioned error; trace.Error makes the CLI exit with code 2.
func (s *source) errAt(line int, path, msg string) error {
	return &trace.Error{File: s.name, Line: line, Field: path, Msg: msg}
}

// jsonErr locates a decoder error by line and column.
func (s *source) jsonErr(err error, base int, path string) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		line, col := s.lineCol(base + max(int(se.Offset)-1, 0))
		return s.errAt(line, path, fmt.Sprintf("column %d: malformed JSON: %v", col, se))
	case errors.As(err, &te):
		line, col := s.lineCol(base + int(te.Offset))
		p := path
		if te.Field != "" {
			p = joinPath(path, te.Field)
		}
		return s.errAt(line, p, fmt.Sprintf("column %d: is a JSON %s, want %s", col, te.Value, te.Type))
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, _ := s.lineCol(len(s.data))
		return s.errAt(line, path, "malformed JSON: the file ends in the middle of a value (truncated?)")
	}
	return s.errAt(0, path, "malformed JSON: "+err.Error())
}

func joinPath(base, field string) string {
	if base == "" {
		return field
	}
	if strings.HasPrefix(field, "[") {
		return base + field
	}
	return base + "." + field
}

// values decodes the JSON values of the file one after another (one for a
// plain JSON file, several for JSON Lines or appended runs) with the line
// each starts on.
func (s *source) values() ([]json.RawMessage, []int, error) {
	dec := json.NewDecoder(bytes.NewReader(s.data))
	var vals []json.RawMessage
	var lines []int
	for {
		off := int(dec.InputOffset())
		var v json.RawMessage
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, s.jsonErr(err, 0, "")
		}
		// The value starts after any whitespace following off.
		for off < len(s.data) && (s.data[off] == ' ' || s.data[off] == '\n' || s.data[off] == '\r' || s.data[off] == '\t') {
			off++
		}
		line, _ := s.lineCol(off)
		vals = append(vals, v)
		lines = append(lines, line)
	}
	return vals, lines, nil
}

// obj is one decoded JSON object with the position used in its errors.
type obj struct {
	src  *source
	line int
	path string
	m    map[string]json.RawMessage
}

func (s *source) object(raw json.RawMessage, line int, path string) (*obj, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, s.errAt(line, path, "want a JSON object, got "+kind(raw))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, s.errAt(line, path, "malformed object: "+err.Error())
	}
	return &obj{src: s, line: line, path: path, m: m}, nil
}

func (o *obj) err(key, msg string) error {
	return o.src.errAt(o.line, joinPath(o.path, key), msg)
}

func (o *obj) has(key string) bool {
	v, ok := o.m[key]
	return ok && !isNull(v)
}

func (o *obj) sub(key string) (*obj, error) {
	v, ok := o.m[key]
	if !ok || isNull(v) {
		return nil, o.err(key, "missing")
	}
	return o.src.object(v, o.line, joinPath(o.path, key))
}

func (o *obj) optSub(key string) (*obj, error) {
	if !o.has(key) {
		return nil, nil
	}
	return o.sub(key)
}

func (o *obj) array(key string) ([]json.RawMessage, error) {
	v, ok := o.m[key]
	if !ok || isNull(v) {
		return nil, o.err(key, "missing")
	}
	return o.src.array(v, o.line, joinPath(o.path, key))
}

func (s *source) array(raw json.RawMessage, line int, path string) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, s.errAt(line, path, "want a JSON array, got "+kind(raw))
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, s.errAt(line, path, "malformed array: "+err.Error())
	}
	return a, nil
}

// num reads a number that may be a sanitised NaN/Infinity; null is an error.
func (o *obj) num(key string) (float64, error) {
	v, ok := o.m[key]
	if !ok {
		return 0, o.err(key, "missing")
	}
	return o.src.num(v, o.line, joinPath(o.path, key))
}

// optNum is nil when key is absent or null.
func (o *obj) optNum(key string) (*float64, error) {
	if !o.has(key) {
		return nil, nil
	}
	v, err := o.num(key)
	return &v, err
}

func (o *obj) str(key string) (string, error) {
	v, ok := o.m[key]
	if !ok || isNull(v) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", o.err(key, "want a string, got "+kind(v))
	}
	return s, nil
}

func (s *source) num(raw json.RawMessage, line int, path string) (float64, error) {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case sentNaN:
		return math.NaN(), nil
	case sentPosInf:
		return math.Inf(1), nil
	case sentNegInf:
		return math.Inf(-1), nil
	}
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return 0, s.errAt(line, path, "want a number, got "+kind(raw))
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, s.errAt(line, path, "want a number, got "+string(raw))
	}
	return f, nil
}

// time checks a duration or timestamp: finite and ≥ 0.
func (s *source) time(raw json.RawMessage, line int, path string) (float64, error) {
	v, err := s.num(raw, line, path)
	if err != nil {
		return 0, err
	}
	return v, s.checkTime(v, line, path)
}

func (s *source) checkTime(v float64, line int, path string) error {
	switch {
	case math.IsNaN(v):
		return s.errAt(line, path, "is NaN, want a time")
	case math.IsInf(v, 0):
		return s.errAt(line, path, "is infinite, want a time")
	case v < 0:
		return s.errAt(line, path, fmt.Sprintf("is negative (%g), want a time", v))
	}
	return nil
}

// count reads a whole number ≥ 0 (token counts, status codes).
func (s *source) count(raw json.RawMessage, line int, path string) (int, error) {
	v, err := s.num(raw, line, path)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v != math.Trunc(v) || v > 1e12 {
		return 0, s.errAt(line, path, fmt.Sprintf("is %v, want a whole number ≥ 0", v))
	}
	return int(v), nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// kind names a JSON value's type for error messages.
func kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		switch string(raw) {
		case sentNaN, sentPosInf, sentNegInf:
			return "a bare " + strings.Trim(string(raw), `"#`)
		}
		if len(raw) > 40 {
			raw = append(raw[:37:37], "...\""...)
		}
		return "the string " + string(raw)
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "the number " + string(raw)
}

// pickRun chooses one of n runs by opt.Run, or fails with the count.
func pickRun(s *source, n int, opt Options, what string, line int) (int, error) {
	switch {
	case n == 0:
		return 0, s.errAt(line, "", "the file holds no run ("+what+")")
	case opt.Run == 0 && n > 1:
		return 0, s.errAt(line, "", fmt.Sprintf("the file holds %d runs (%s); choose one with --run 1..%d", n, what, n))
	case opt.Run > n:
		return 0, s.errAt(line, "", fmt.Sprintf("--run %d: the file holds only %d run(s) (%s)", opt.Run, n, what))
	case opt.Run == 0:
		return 0, nil
	}
	return opt.Run - 1, nil
}

// spreadTokens splits n output tokens over k events, each ≥ 1, the
// remainder on the first events. The split itself is a guess (tools that
// record one timestamp per event do not record per-event counts); only the
// sum is measured, and the conditions say so. It keeps multi-token streams
// visible on the card, whose TPOT line appears only for them.
func spreadTokens(n, k int) []int {
	t := make([]int, k)
	for i := range t {
		t[i] = 1
	}
	if n > k {
		q, r := n/k, n%k
		for i := range t {
			t[i] = q
			if i < r {
				t[i]++
			}
		}
	}
	return t
}

// eventsFrom builds events at start+first, then at each cumulative gap,
// all in ms, with tokens spread as spreadTokens.
func eventsFrom(startMS, firstMS float64, gapsMS []float64, outTokens int) []trace.Event {
	ev := make([]trace.Event, 0, 1+len(gapsMS))
	t := startMS + firstMS
	ev = append(ev, trace.Event{TMS: t, Tokens: 1})
	for _, g := range gapsMS {
		t += g
		ev = append(ev, trace.Event{TMS: t, Tokens: 1})
	}
	for i, k := range spreadTokens(outTokens, len(ev)) {
		ev[i].Tokens = k
	}
	return ev
}

// classify maps a tool's error text (and HTTP status, if any) to an
// outcome. The rules are a documented choice, since no tool records the
// trace's outcome classes: a known HTTP status or reason phrase is an
// http_error; a timeout exception is a timeout; a connection failure before
// any byte is a connect_error; a cancellation is cancelled; anything else,
// including an error with no text, is a stream_error carrying the text.
func classify(status int, text string) (trace.Outcome, int) {
	l := strings.ToLower(lastExceptionLine(text))
	if status == 0 {
		if m := statusInText.FindStringSubmatch(text); m != nil {
			status, _ = strconv.Atoi(m[1])
		}
	}
	switch {
	case strings.Contains(l, "cancel"):
		return trace.Cancelled, status
	case strings.Contains(l, "timeout") || strings.Contains(l, "timed out"):
		return trace.Timeout, status
	case status >= 400 && status <= 599:
		return trace.HTTPError, status
	case strings.Contains(l, "clientconnectorerror") || strings.Contains(l, "connection refused") || strings.Contains(l, "connecterror") || strings.Contains(l, "cannot connect"):
		return trace.ConnectError, status
	}
	if st, ok := reasonStatus[strings.ToLower(strings.TrimSpace(text))]; ok {
		return trace.HTTPError, st
	}
	return trace.StreamError, status
}

// lastExceptionLine is the line naming the exception of a Python
// traceback ("aiohttp.client_exceptions.ClientPayloadError: ..."): the
// source lines above it mention timeouts and connections in passing and
// must not decide the outcome. Other text is returned whole.
func lastExceptionLine(text string) string {
	if !strings.Contains(text, "Traceback (most recent call last)") {
		return text
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return lines[len(lines)-1]
}

// statusInText finds "429 Too Many Requests" or "status 503" in error text
// (httpx and aiohttp messages carry the code that way).
var statusInText = regexp.MustCompile(`(?i)(?:\b|status[ :=]*|code[ :=]*)([45][0-9][0-9])(?: [A-Z][a-z]|\b.{0,3}(?:error|status))`)

// reasonStatus maps HTTP reason phrases ("Too Many Requests") to codes:
// vLLM stores response.reason, not the status, for a non-200 answer.
var reasonStatus = func() map[string]int {
	m := map[string]int{}
	for c := 400; c < 600; c++ {
		if t := http.StatusText(c); t != "" {
			m[strings.ToLower(t)] = c
		}
	}
	return m
}()

// stats sorted for the tool-way recomputations (linear, as numpy/pandas).
func linearQ(x []float64, p float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := len(s)
	h := float64(n-1) * p
	i := int(math.Floor(h))
	if i >= n-1 {
		return s[n-1]
	}
	return s[i] + (s[i+1]-s[i])*(h-float64(i))
}

func mean(x []float64) float64 {
	t := 0.0
	for _, v := range x {
		t += v
	}
	return t / float64(len(x))
}

func ptr(v float64) *float64 { return &v }

// derivedStats adds the tool-way mean and linear percentiles of x.
func derivedStats(metric, keyPrefix string, x []float64, levels []string) []Stat {
	if len(x) == 0 {
		return nil
	}
	out := []Stat{{Metric: metric, Stat: "mean", Value: ptr(mean(x)), Key: keyPrefix + " mean", Derived: true}}
	for _, l := range levels {
		p, _ := strconv.ParseFloat(l[1:], 64)
		out = append(out, Stat{Metric: metric, Stat: l, Value: ptr(linearQ(x, p/100)), Key: keyPrefix + " " + l, Derived: true})
	}
	return out
}

// nanos reads an integer nanosecond timestamp exactly: epoch nanoseconds
// do not fit a float64 (about 256 ns of rounding at today's epoch).
func (s *source) nanos(raw json.RawMessage, line int, path string) (int64, error) {
	if v, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64); err == nil {
		if v < 0 {
			return 0, s.errAt(line, path, fmt.Sprintf("is negative (%d), want a time", v))
		}
		return v, nil
	}
	f, err := s.time(raw, line, path)
	if err != nil {
		return 0, err
	}
	if f > math.MaxInt64/2 {
		return 0, s.errAt(line, path, fmt.Sprintf("%g is too large for a nanosecond timestamp", f))
	}
	return int64(f), nil
}
