package lab

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/loadgen"
)

// The helpers that keep notebooks 09 and 10's cells free of set-up code.

// An engine run records what its prompts share with the cache, from the
// prompts themselves and the engine's cache switch, so that 09's cells
// set no condition by hand; a condition the load sets itself is kept, and
// chat prompts, which share the chat template's opening, get none.
func TestPrefixReuseFollowsThePrompts(t *testing.T) {
	mixed := &dataset.Set{Items: []dataset.Item{{Prompt: "river stone"}, {Prompt: "river apple"}}}
	for _, c := range []struct {
		set     *dataset.Set
		api     string
		noCache bool
		want    string
	}{
		{RepeatedPrompt(40), "completions", false, "每次都发同一个提示词：除最后一个 token 外都可以从缓存取"},
		{RepeatedPrompt(40), "completions", true, "每次都发同一个提示词，但引擎关掉了 cache_prompt，每次都从头预填充"},
		{DistinctPrompts(40, 64), "completions", false, "无：每个提示词的第一个词都不同"},
		{DistinctPrompts(8, 64), "", true, "无：每个提示词的第一个词都不同（引擎也关掉了 cache_prompt）"},
		{mixed, "completions", false, "有的提示词开头相同：相同的一段可以从缓存取"},
		{DistinctPrompts(40, 64), "chat", false, ""},
	} {
		load := Users(1, c.set, c.api, 4, time.Second)
		got, _ := withPrefixReuse(load, c.noCache).Conditions["prefix_reuse"].(string)
		if got != c.want {
			t.Errorf("%s prompts (%d), api %q, no cache %v: prefix_reuse %q, want %q", c.set.Name, len(c.set.Items), c.api, c.noCache, got, c.want)
		}
	}
	own := Users(1, RepeatedPrompt(4), "completions", 4, time.Second)
	own.Conditions["prefix_reuse"] = "自己写的"
	if got := withPrefixReuse(own, false).Conditions["prefix_reuse"]; got != "自己写的" {
		t.Errorf("the load's own prefix_reuse was replaced by %q", got)
	}
	if _, ok := own.Conditions["engine"]; ok {
		t.Error("withPrefixReuse wrote into the caller's map")
	}
}

// Experiment 3 of 09: one run per prompt length, named len<words> and
// labelled "<words> 个词", each n requests of distinct prompts of that
// length; bad sizes are refused before any engine starts.
func TestLengthRunsAreNamedByTheirLength(t *testing.T) {
	runs, err := lengthRuns(Lengths{Words: []int{8, 64, 256}, Requests: 6, MaxTokens: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs", len(runs))
	}
	for i, words := range []int{8, 64, 256} {
		r := runs[i]
		if r.name != []string{"len8", "len64", "len256"}[i] || r.label != []string{"8 个词", "64 个词", "256 个词"}[i] {
			t.Errorf("run %d: %q %q", i, r.name, r.label)
		}
		if r.load.NumRequests != 6 || r.load.MaxTokens != 4 || r.load.Concurrency != 1 || r.load.API != "completions" {
			t.Errorf("%s: load %+v", r.name, r.load)
		}
		if got := len(strings.Fields(r.load.Dataset.Items[0].Prompt)); got != words {
			t.Errorf("%s: a prompt of %d words", r.name, got)
		}
	}
	for _, bad := range []Lengths{{Requests: 6, MaxTokens: 4}, {Words: []int{8}, MaxTokens: 4}, {Words: []int{0}, Requests: 6, MaxTokens: 4}, {Words: []int{8, 8}, Requests: 6, MaxTokens: 4}} {
		if _, err := lengthRuns(bad); err == nil || !strings.HasPrefix(err.Error(), "lab: RunLengths: ") {
			t.Errorf("%+v: err %v", bad, err)
		}
	}
}

// A ratio of two saved runs' median TTFT by their names is the ratio of
// the runs read back; a name never saved is an error naming it.
func TestTTFTRatioOfSavedRuns(t *testing.T) {
	l := small(t)
	load := loadgen.Config{Concurrency: 1, Duration: 200 * time.Millisecond, Timeout: 5 * time.Second, MaxTokens: 4, Seed: 3}
	for _, name := range []string{"a", "b"} {
		if _, err := l.Run(name, name, load); err != nil {
			t.Fatal(err)
		}
	}
	got, err := l.TTFTRatio("a", "b")
	a, _ := l.Load("a")
	b, _ := l.Load("b")
	if err != nil || got != TTFTRatio(a, b) || math.IsNaN(got) {
		t.Errorf("ratio %v (err %v), want %v", got, err, TTFTRatio(a, b))
	}
	if _, err := l.TTFTRatio("a", "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("a run never saved: %v", err)
	}
}

// A comparison's metric reads as two plain means and one yes/no: NaN and
// no for a metric the comparison lacks or a side without a value, never 0.
func TestMeansAndSeparates(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	r := &compare.Result{Metrics: []compare.Metric{
		{Name: MetricGapP50, A: f(20), B: f(80), Verdict: compare.Worse},
		{Name: MetricTokensPerS, A: f(40), B: f(41), Verdict: compare.Same},
		{Name: "ttft_ms.p95", A: f(100), Verdict: compare.NA},
	}}
	if a, b := Means(r, MetricGapP50); a != 20 || b != 80 || !Separates(r, MetricGapP50) {
		t.Errorf("gap: %v %v %v", a, b, Separates(r, MetricGapP50))
	}
	if a, b := Means(r, MetricTokensPerS); a != 40 || b != 41 || Separates(r, MetricTokensPerS) {
		t.Errorf("tokens: %v %v %v", a, b, Separates(r, MetricTokensPerS))
	}
	if a, b := Means(r, "ttft_ms.p95"); a != 100 || !math.IsNaN(b) || Separates(r, "ttft_ms.p95") {
		t.Errorf("one side missing: %v %v", a, b)
	}
	if a, b := Means(r, "goodput@1000ms"); !math.IsNaN(a) || !math.IsNaN(b) || Separates(r, "goodput@1000ms") {
		t.Errorf("a metric not compared: %v %v", a, b)
	}
}

// ladder is a search as notebook 10's defaults run it: 12 and 24 meet,
// 48 fails, nothing between 24 and 48 tried.
func ladder(steps ...capacity.Step) *capacity.Result {
	r := &capacity.Result{Steps: steps, BoundedBy: capacity.BoundFailingStep}
	for _, s := range steps {
		if s.Verdict == capacity.Meets && (r.MaxRateMeeting == nil || s.Rate > *r.MaxRateMeeting) {
			rate := s.Rate
			r.MaxRateMeeting = &rate
		}
	}
	return r
}

// The search's answer is what it shows: the capacity lies between the
// highest rate that met and the lowest above it that failed, the answer
// its lower end; without a failing step above, it is a lower bound or
// nothing, as before.
func TestCapacityAnswerNamesTheBracket(t *testing.T) {
	r := ladder(capacity.Step{Rate: 12, Verdict: capacity.Meets, Qualified: 30, Attempts: 30}, capacity.Step{Rate: 24, Verdict: capacity.Meets, Qualified: 50, Attempts: 50},
		capacity.Step{Rate: 48, Verdict: capacity.Fails, Qualified: 20, Attempts: 90})
	got := CapacityAnswer(r)
	for _, want := range []string{"[24, 48)", "取下界", "24 次/s（50 / 50 合格", "48 次/s 不达标"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	// A step left undecided at its longest window counts as not meeting,
	// and is named for what it was (the engine's 8/s in notebook 10).
	r.Steps[2].Verdict = capacity.Undecided
	if got := CapacityAnswer(r); !strings.Contains(got, "[24, 48)") || !strings.Contains(got, "48 次/s 尚无定论（按不达标算）") {
		t.Errorf("an undecided step above: %q", got)
	}
	r.Steps = r.Steps[:2]
	r.BoundedBy = capacity.BoundMaxRate
	if got := CapacityAnswer(r); strings.Contains(got, "[") && strings.Contains(got, ")") && strings.Contains(got, "取下界") {
		t.Errorf("no failing step above, yet a bracket: %q", got)
	}
}

// 10's prediction on saturation is scored on the steps the search tested
// above it: none meets on the default ladder (48 fails), one can on a finer
// one (40 in a 2 s window), and a search that never went above it is not
// compared.
func TestAboveSaturation(t *testing.T) {
	const sat = 28.571428
	m, f := capacity.Meets, capacity.Fails
	p95 := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		steps     []capacity.Step
		meets, ok bool
		must      []string
	}{
		{[]capacity.Step{{Rate: 12, Verdict: m}, {Rate: 24, Verdict: m}, {Rate: 48, Verdict: f, P95TTFTMS: p95(2400)}}, false, true,
			[]string{"饱和吞吐 28.6 次/s 之上", "48 次/s 不达标", "成功 TTFT P95 2400 ms"}},
		{[]capacity.Step{{Rate: 10, Verdict: m}, {Rate: 20, Verdict: m}, {Rate: 40, Verdict: m, WindowS: 2}, {Rate: 80, Verdict: f}}, true, true,
			[]string{"40 次/s 达标", "1.40 倍", "队列每秒多出约 11.4 个", "练习 1"}},
		{[]capacity.Step{{Rate: 12, Verdict: m}, {Rate: 24, Verdict: m}, {Rate: 48, Verdict: capacity.Undecided}}, false, true,
			[]string{"48 次/s 尚无定论（按不达标算）"}},
		{[]capacity.Step{{Rate: 12, Verdict: m}, {Rate: 24, Verdict: f}}, false, false, []string{"没有测到", "不对照"}},
		{[]capacity.Step{{Rate: 12, Verdict: m}, {Rate: 24, Verdict: m}, {Rate: 48, Verdict: capacity.Interrupted}}, false, false, []string{"不对照"}},
	} {
		line, meets, ok := AboveSaturation(ladder(c.steps...), sat)
		if meets != c.meets || ok != c.ok {
			t.Errorf("%+v: meets %v ok %v, want %v %v (%q)", c.steps, meets, ok, c.meets, c.ok, line)
		}
		for _, w := range c.must {
			if !strings.Contains(line, w) {
				t.Errorf("%q lacks %q", line, w)
			}
		}
	}
}

// The interval table of the two steps around the answer labels each by its
// rate and verdict; a search without the pair says so in Chinese.
func TestAnswerIntervalTable(t *testing.T) {
	tr := coursekit.Data("unit01/trace.jsonl")
	r := ladder(capacity.Step{Rate: 24, Verdict: capacity.Meets, Trace: tr}, capacity.Step{Rate: 48, Verdict: capacity.Fails, Trace: tr})
	rows, err := AnswerIntervalTable(r, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[1][0] != "答案 24 次/s" || rows[2][0] != "不达标 48 次/s" || rows[1][1] != "8" {
		t.Errorf("rows %q", rows)
	}
	if _, err := AnswerIntervalTable(ladder(capacity.Step{Rate: 24, Verdict: capacity.Meets, Trace: tr}), 0.95); err == nil || !strings.Contains(err.Error(), "没有") {
		t.Errorf("no step above the answer: %v", err)
	}
}

// An engine run's report ends with what its prompts could reuse of the
// cache (09's cache runs); a simulator run's, whose prompts the simulator
// never caches, says nothing of it.
func TestReportShowsPrefixReuse(t *testing.T) {
	l := small(t)
	load := loadgen.Config{Concurrency: 1, Duration: 100 * time.Millisecond, Timeout: 5 * time.Second, MaxTokens: 4, Seed: 3,
		Conditions: map[string]any{"prefix_reuse": "无：每个提示词的第一个词都不同"}}
	r, err := l.Run("with", "有条件", load)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Report(1000); strings.Contains(got, "前缀复用") {
		t.Errorf("a simulator run: report %q", got)
	}
	r.Engine = &EngineInfo{Threads: 1, Parallel: 1}
	if got := r.Report(1000); !strings.HasSuffix(got, "  前缀复用（conditions.prefix_reuse）：无：每个提示词的第一个词都不同\n") {
		t.Errorf("an engine run: report %q", got)
	}
}

// A step meets when its server is short of the offered rate by at most the
// search's resolution, so the answer may lie above what the server
// sustains. The CLI said so; notebook 10's answer and its chart's subtitle
// did not. All three read one formatter, which quotes the answer step's
// own margin, its keep-up bound (walk 35f, item 2), not the resolution.
func TestCapacityAnswerWithinResolutionInTheLab(t *testing.T) {
	load := func(w capacity.LoadWindow) *capacity.LoadCheck {
		l, err := capacity.CheckLoad(w)
		if err != nil {
			t.Fatal(err)
		}
		return &l
	}
	// 24 req/s: 44 completed in 2 s, 2 begun before: short by at most
	// 24 − 42/2 = 3/s, within --resolution 24.
	r := ladder(capacity.Step{Rate: 12, Verdict: capacity.Meets, Qualified: 30, Attempts: 30}, capacity.Step{Rate: 24, Verdict: capacity.Meets, Qualified: 50, Attempts: 50,
		Load: load(capacity.LoadWindow{OfferedPerS: 24, WindowS: 2, Arrivals: 50, Completions: 44, InFlightStart: 2, InFlightEnd: 8, Resolution: 24})},
		capacity.Step{Rate: 48, Verdict: capacity.Fails, Qualified: 20, Attempts: 90})
	r.Resolution = 24
	want := "该步窗口显示服务器能持续承受的速率可能比它低至多 3.00 次/s（该步测出的差额；一步在 --resolution 24 次/s 以内即可达标）"
	if got := CapacityAnswer(r); !strings.Contains(got, "取下界：达标的最高速率是 24 次/s，"+want) || strings.Contains(got, "至多 24 次/s") {
		t.Errorf("the lab's answer lacks the clause:\n%s", got)
	}
	var page bytes.Buffer
	if err := labfig.WriteCapacityPage(&page, CapacityChart(r), lang.ZH); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), want) {
		t.Errorf("the chart's subtitle lacks %q", want)
	}
	// At the limit: the ≥ is what the steps met; the margin is what the
	// step's window showed, a sentence of its own.
	at := ladder(r.Steps[:2]...)
	at.Resolution, at.BoundedBy = 24, capacity.BoundMaxRate
	limit := "24 次/s 这一步的窗口显示服务器每秒至少完成 21.00 次（最多比提供的速率少 3.00 次/s；一步在 --resolution 24 次/s 以内即可达标）"
	if got := CapacityAnswer(at); !strings.Contains(got, "请调高 MaxRate 再搜索。"+limit+"。") || strings.Contains(got, "可能比它低") {
		t.Errorf("the lab's answer at the limit:\n%s", got)
	}
	page.Reset()
	if err := labfig.WriteCapacityPage(&page, CapacityChart(at), lang.ZH); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), limit) || strings.Contains(page.String(), "可能比它低") {
		t.Errorf("the chart's subtitle at the limit lacks %q", limit)
	}
	// No rate answered: no clause anywhere.
	r.Steps = r.Steps[2:]
	r.MaxRateMeeting = nil
	if got := CapacityAnswer(r); strings.Contains(got, "--resolution 24") {
		t.Errorf("no answer, yet a resolution clause: %s", got)
	}
}

// Walk 35f, item 4: notebook 10's table printed offered − completed with a
// hyphen ("-0.16 [-0.60，+0.19]"); it prints the minus sign "−" as every
// other view does.
func TestCapacityTableMinusSign(t *testing.T) {
	l, err := capacity.CheckLoad(capacity.LoadWindow{OfferedPerS: 1, WindowS: 32, Arrivals: 36, Completions: 37, InFlightStart: 1, Resolution: 1})
	if err != nil {
		t.Fatal(err)
	}
	rows := CapacityTable(ladder(capacity.Step{Rate: 1, Verdict: capacity.Meets, Qualified: 36, Attempts: 36, WindowS: 32, Load: &l}))
	if got, want := rows[1][len(rows[1])-1], "−0.16 [−0.60，+0.19]"; got != want {
		t.Errorf("offered − completed %q, want %q", got, want)
	}
}
