package lab

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	ec "github.com/go-echarts/go-echarts/v2/charts"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Prompts and loads of notebook 09 (the real engine), and how its runs are
// read. Every number comes from the run's trace through metrics.

// promptWords are the words engine prompts are made of: common English
// words, each its own token in SmolLM2's vocabulary, all different at the
// start so that two distinct prompts share no prefix.
var promptWords = strings.Fields(`river stone apple cloud garden window paper silver forest
	candle mountain ocean bridge yellow music winter summer engine pencil orange kitchen
	letter market planet rabbit school spring ticket valley wonder animal basket circle
	dinner family flower golden harbor island jacket kettle lemon mirror number office
	pocket question rocket shadow travel umbrella village wallet yogurt zebra anchor
	bottle castle desert feather guitar hammer insect jungle`)

// prompt is words long and starts with promptWords[start].
func prompt(start, words int) string {
	w := make([]string, words)
	for i := range w {
		w[i] = promptWords[(start+i*7)%len(promptWords)]
	}
	return strings.Join(w, " ")
}

// RepeatedPrompt is a dataset of one prompt of the given length in words,
// sent again and again: every prefill after the first can reuse the cache.
func RepeatedPrompt(words int) *dataset.Set {
	return &dataset.Set{Name: "repeated", Items: []dataset.Item{{Prompt: prompt(0, words), Ref: "repeated:1"}}}
}

// DistinctPrompts is a dataset of n prompts of the given length, each
// starting with a different word: no prompt shares a prefix with another.
func DistinctPrompts(words, n int) *dataset.Set {
	set := &dataset.Set{Name: "distinct"}
	for i := range min(n, len(promptWords)) {
		set.Items = append(set.Items, dataset.Item{Prompt: prompt(i, words), Ref: fmt.Sprintf("distinct:%d", i+1)})
	}
	return set
}

// EasySet is data/datasets/easy.jsonl: easy questions, each with a judge,
// that the real engine's small model answers right only some of the time.
func EasySet() (*dataset.Set, error) { return dataset.ReadFile(coursekit.Data("datasets/easy.jsonl")) }

// OneUser is a closed loop of users sending set's prompts in order
// (completions for plain prompts, chat for questions) for window, with a
// 30 s timeout per attempt.
func OneUser(set *dataset.Set, api string, maxTokens int, window time.Duration) loadgen.Config {
	return Users(1, set, api, maxTokens, window)
}

// Users is OneUser with n users.
func Users(n int, set *dataset.Set, api string, maxTokens int, window time.Duration) loadgen.Config {
	return loadgen.Config{Concurrency: n, Dataset: set, API: api, MaxTokens: maxTokens, Duration: window,
		Timeout: 30 * time.Second, Seed: 1, Conditions: map[string]any{"dataset": set.Conditions()}}
}

// withPrefixReuse is load with conditions.prefix_reuse saying what its
// prompts can take from llama.cpp's prompt cache, read off the prompts and
// the engine's cache switch, so that a run records it without a cell
// setting it: one prompt sent again and again, prompts that share no first
// word, or some that share an opening. Chat prompts all open with the chat
// template, so they get none; nor does a load that sets its own. The
// caller's map is not written.
func withPrefixReuse(load loadgen.Config, noCache bool) loadgen.Config {
	if _, own := load.Conditions["prefix_reuse"]; own || load.API == "chat" || load.Dataset == nil || len(load.Dataset.Items) == 0 {
		return load
	}
	items := load.Dataset.Items
	same, firsts := true, map[string]bool{}
	for _, it := range items {
		same = same && it.Prompt == items[0].Prompt
		if w := strings.Fields(it.Prompt); len(w) > 0 {
			firsts[w[0]] = true
		}
	}
	var reuse string
	switch {
	case same && noCache:
		reuse = "每次都发同一个提示词，但引擎关掉了 cache_prompt，每次都从头预填充"
	case same:
		reuse = "每次都发同一个提示词：除最后一个 token 外都可以从缓存取"
	case len(firsts) == len(items):
		reuse = "无：每个提示词的第一个词都不同"
		if noCache {
			reuse += "（引擎也关掉了 cache_prompt）"
		}
	default:
		reuse = "有的提示词开头相同：相同的一段可以从缓存取"
		if noCache {
			reuse = "有的提示词开头相同，但引擎关掉了 cache_prompt，每次都从头预填充"
		}
	}
	cond := make(map[string]any, len(load.Conditions)+1)
	for k, v := range load.Conditions {
		cond[k] = v
	}
	cond["prefix_reuse"] = reuse
	load.Conditions = cond
	return load
}

// Lengths is experiment 3 of notebook 09: Requests distinct prompts of
// each length in Words (in words), one user, completions of MaxTokens
// tokens, up to 30 s a length.
type Lengths struct {
	Words               []int
	Requests, MaxTokens int
}

// lengthRun is one run RunLengths makes.
type lengthRun struct {
	name, label string
	load        loadgen.Config
}

// lengthRuns are the runs of c, in its order, or why c cannot run.
func lengthRuns(c Lengths) ([]lengthRun, error) {
	if len(c.Words) == 0 || c.Requests < 1 || c.MaxTokens < 1 {
		return nil, fmt.Errorf("lab: RunLengths: want at least one length, one request and one token, got %+v", c)
	}
	out := make([]lengthRun, 0, len(c.Words))
	seen := map[int]bool{}
	for _, w := range c.Words {
		if w < 1 || seen[w] {
			return nil, fmt.Errorf("lab: RunLengths: length %d words: each length once, at least 1 word", w)
		}
		seen[w] = true
		out = append(out, lengthRun{name: fmt.Sprintf("len%d", w), label: fmt.Sprintf("%d 个词", w),
			load: Requests(c.Requests, DistinctPrompts(w, 64), "completions", c.MaxTokens, 30*time.Second)})
	}
	return out, nil
}

// RunLengths runs c on a fresh engine e per length (RunEngine), each run
// saved as len<words> (len8, len64, …) and labelled "<words> 个词", and
// returns the runs in c's order. Lengths are checked before any engine
// starts.
func (l Lab) RunLengths(e Engine, c Lengths) ([]*Run, error) {
	plan, err := lengthRuns(c)
	if err != nil {
		return nil, err
	}
	runs := make([]*Run, 0, len(plan))
	for _, p := range plan {
		r, err := l.RunEngine(p.name, p.label, e, p.load)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// TTFTRatio is TTFTRatio of the runs saved as a and b: how many times as
// long a's median first output took as b's.
func (l Lab) TTFTRatio(a, b string) (float64, error) {
	runs, err := l.LoadAll(a, b)
	if err != nil {
		return math.NaN(), err
	}
	return TTFTRatio(runs[0], runs[1]), nil
}

// okInOrder are the run's complete successes in send order.
func (r *Run) okInOrder() []*trace.Attempt {
	var out []*trace.Attempt
	for i := range r.Trace.Attempts {
		if a := &r.Trace.Attempts[i]; a.Outcome == trace.OK {
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartMS < out[j].StartMS })
	return out
}

// ColdWarm is the TTFT of the run's first complete success (the first
// request a fresh engine served) and the median TTFT of the others
// (nearest-rank); ok is false without at least two successes.
func (r *Run) ColdWarm() (first float64, restP50 float64, ok bool) {
	att := r.okInOrder()
	if len(att) < 2 {
		return 0, 0, false
	}
	first, _ = att[0].TTFT()
	rest := make([]float64, 0, len(att)-1)
	for _, a := range att[1:] {
		v, _ := a.TTFT()
		rest = append(rest, v)
	}
	d := metrics.NewDist(rest, metrics.NearestRank, "ms")
	return first, *d.P50, true
}

// OutputTokensPerS is the output tokens of the window's complete successes
// per second of the window (every event counted with its tokens).
func (r *Run) OutputTokensPerS() float64 {
	s := r.Summary()
	if s.WindowS == 0 {
		return 0
	}
	return float64(s.Event.Tokens) / s.WindowS
}

// Split is the client/server split of the run's card (nil when its
// attempts carry no server timings).
func (r *Run) Split() *metrics.ServerSplit { return r.Summary().Server }

// SplitReport is the split as the text card prints it.
func (r *Run) SplitReport() string {
	lines := cardfmt.ServerLines(r.Summary())
	if len(lines) == 0 {
		return r.Label + "：trace 里没有服务器自报的计时（meta.server_timings），无法拆分\n"
	}
	return r.Label + "\n  " + strings.Join(lines, "\n  ") + "\n"
}

// EngineTable is the runs side by side, one row each, for nb.Table.
func EngineTable(runs ...*Run) [][]string {
	// The gap column is ITL only when every event of every run carries one
	// token and the servers' usage agrees; otherwise it is named for what
	// it is, as the card names it.
	var multi int64
	usageDiff := false
	for _, r := range runs {
		multi += r.Summary().Event.MultiTokenEvents
		usageDiff = usageDiff || cardfmt.UsageDisagrees(r.Summary())
	}
	gap := "token 间隔（ITL）P50"
	switch {
	case multi > 0:
		gap = "事件间隔 P50（有事件带多个 token，不是 ITL）"
	case usageDiff:
		gap = "事件间隔 P50（与服务端报告的 token 数对不上，不是 ITL）"
	}
	rows := [][]string{{"运行", "完整成功 / 尝试", "成功 TTFT P50", gap, "输出 token/s", "质量通过率", "复用前缀缓存的尝试"}}
	for _, r := range runs {
		s := r.Summary()
		hits := "没有服务器计时"
		if s.Server != nil {
			hits = fmt.Sprintf("%d / %d", s.Server.CacheHits, s.Server.WithTimings)
		}
		rows = append(rows, []string{r.Label, fmt.Sprintf("%d / %d", s.CompleteSuccess, s.Attempts),
			msText(s.TTFT.P50) + fmt.Sprintf("（n = %d）", s.TTFT.N), msText(s.ITL.P50),
			numfmt.OneDecimal(r.OutputTokensPerS()), cardfmt.RatioText(s.QualityPassRate), hits})
	}
	return rows
}

// Answers are the first n judged attempts: the dataset line, the verdict
// and the answer the client kept (meta.answer), or the judge's reason when
// the trace has no answer text.
func (r *Run) Answers(n int) [][]string {
	rows := [][]string{{"尝试", "题目", "质量", "回答"}}
	for _, a := range r.okInOrder() {
		if len(rows) > n || a.Quality == trace.Unrated {
			continue
		}
		var m struct {
			Prompt string `json:"prompt"`
			Answer string `json:"answer"`
			Judge  struct {
				Reason string `json:"reason"`
			} `json:"judge"`
		}
		_ = json.Unmarshal(a.Meta, &m)
		ans := m.Answer
		if ans == "" {
			ans = "（trace 没有存回答；评分理由：" + m.Judge.Reason + "）"
		}
		rows = append(rows, []string{a.ID, m.Prompt, cardfmt.QualityName(a.Quality), ans})
	}
	return rows
}

// Requests is one user sending n of set's prompts in order, each after the
// last ended, and no more: a run sized by its sample, not by the clock
// (window bounds it in case the engine is slow). A median read off a
// handful of requests says little; n ≥ 6 complete successes give the P50
// a two-sided 95 % interval (metrics.QuantileCI).
func Requests(n int, set *dataset.Set, api string, maxTokens int, window time.Duration) loadgen.Config {
	c := OneUser(set, api, maxTokens, window)
	c.NumRequests = int64(n)
	return c
}

// The readings below are the run's card (nearest-rank P50s and ratios)
// as plain numbers a cell can compare or divide, NaN when the run has no
// sample for it: nb.Num prints NaN as 缺失, and a comparison with NaN is
// false, so a missing reading never passes for 0.

// TTFTP50 is the median TTFT of the run's complete successes, in ms.
func (r *Run) TTFTP50() float64 { return orNaN(r.Summary().TTFT.P50) }

// GapP50 is the median gap between adjacent events of a stream, in ms:
// ITL only when every event carries one token (EngineTable's column says
// which).
func (r *Run) GapP50() float64 { return orNaN(r.Summary().ITL.P50) }

// QualityPass is the share of the rated complete successes that passed,
// NaN when none was rated.
func (r *Run) QualityPass() float64 { return orNaN(r.Summary().QualityPassRate.Value) }

// ClientOverPromptP50 is the median of TTFT − prompt_ms, the part of the
// client's wait the server's own prefill timing does not cover, in ms; NaN
// without server timings.
func (r *Run) ClientOverPromptP50() float64 {
	if sp := r.Split(); sp != nil {
		return orNaN(sp.ClientOverPromptMS.P50)
	}
	return math.NaN()
}

// TTFTRatio is a's median TTFT ÷ b's: how many times as long a's first
// output took. NaN when either has no complete success.
func TTFTRatio(a, b *Run) float64 {
	x, y := a.TTFTP50(), b.TTFTP50()
	if y == 0 {
		return math.NaN()
	}
	return x / y
}

// MedianLine is the run's median TTFT in one line of Chinese, with its
// 95 % interval and the sample size: "64 个词：TTFT 中位数 180.2 ms，95% 区间
// [170 ms, 195 ms]（n = 8）". The interval is what keeps a ratio of two
// medians from being read off two requests.
func MedianLine(r *Run) string {
	v, ci, n := TTFTInterval(r.Trace, 0.5)
	return fmt.Sprintf("%s：TTFT 中位数 %s，95%% 区间 %s（n = %d）", r.Label, msText(v), IntervalText(ci), n)
}

// TTFTBars is labfig.Compare of the runs' median TTFT, one bar each,
// named by the run's label.
func TTFTBars(title, subtitle string, runs ...*Run) *ec.Bar {
	return medianBars(title, subtitle, "TTFT P50（ms）", runs, func(r *Run) *float64 { return r.Summary().TTFT.P50 })
}

// GapBars is labfig.Compare of the runs' median event gap.
func GapBars(title, subtitle string, runs ...*Run) *ec.Bar {
	return medianBars(title, subtitle, "事件间隔 P50（ms）", runs, func(r *Run) *float64 { return r.Summary().ITL.P50 })
}

func medianBars(title, subtitle, yName string, runs []*Run, p50 func(*Run) *float64) *ec.Bar {
	names := make([]string, len(runs))
	values := make([]*float64, len(runs))
	for i, r := range runs {
		names[i], values[i] = r.Label, p50(r)
	}
	return labfig.Compare(title, subtitle, yName, "ms", names, values)
}

func orNaN(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// MedianLines are MedianLine of each run, one a line, in the runs' order:
// one call for a cell that ran several settings (09's prompt lengths).
func MedianLines(runs []*Run) string {
	var b strings.Builder
	for _, r := range runs {
		b.WriteString(MedianLine(r) + "\n")
	}
	return b.String()
}
