package lab

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/trace"
)

func TestPromptsRepeatOrShareNoPrefix(t *testing.T) {
	r := RepeatedPrompt(40)
	if len(r.Items) != 1 || len(strings.Fields(r.Items[0].Prompt)) != 40 {
		t.Fatalf("repeated %+v", r.Items)
	}
	d := DistinctPrompts(40, 12)
	firsts := map[string]bool{}
	for _, it := range d.Items {
		w := strings.Fields(it.Prompt)
		if len(w) != 40 || firsts[w[0]] {
			t.Fatalf("%s: %d words, first word %q seen before", it.Ref, len(w), w[0])
		}
		firsts[w[0]] = true
	}
	if len(d.Items) != 12 {
		t.Fatalf("%d distinct prompts", len(d.Items))
	}
	set, err := EasySet()
	if err != nil || set.Rated() != len(set.Items) {
		t.Fatalf("easy set: %v", err)
	}
}

func engineTrace() *Run {
	at := func(id string, start, ttft float64, q trace.Quality, meta string) trace.Attempt {
		return trace.Attempt{ID: id, StartMS: start, Outcome: trace.OK, Quality: q, Meta: json.RawMessage(meta),
			Events: []trace.Event{{TMS: start + ttft, Tokens: 1}, {TMS: start + ttft + 10, Tokens: 1}}, EndMS: start + ttft + 20, HasEnd: true}
	}
	return &Run{Label: "真实引擎", Trace: &trace.Trace{
		Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 2000}},
		Attempts: []trace.Attempt{
			at("q1", 300, 30, trace.Fail, `{"prompt":"easy.jsonl:2","judge":{"reason":"no match"},"server_timings":{"prompt_ms":25,"cache_n":0}}`),
			at("q0", 0, 200, trace.Pass, `{"prompt":"easy.jsonl:1","answer":"Paris.","server_timings":{"prompt_ms":190,"cache_n":0}}`),
			at("q2", 600, 40, trace.Pass, `{"prompt":"easy.jsonl:3","answer":"4","server_timings":{"prompt_ms":20,"cache_n":12}}`),
			{ID: "q3", StartMS: 900, Outcome: trace.Timeout, EndMS: 1900, HasEnd: true},
		}}}
}

func TestColdWarmAndTables(t *testing.T) {
	r := engineTrace()
	first, rest, ok := r.ColdWarm()
	if !ok || first != 200 || rest != 30 {
		t.Fatalf("cold %v, warm P50 %v, %v", first, rest, ok)
	}
	if v := r.OutputTokensPerS(); v != 3 {
		t.Errorf("output token/s %v: want 6 tokens / 2 s", v)
	}
	rows := EngineTable(r)
	if rows[0][3] != "token 间隔（ITL）P50" {
		t.Errorf("one token per event: the gap column %q should be ITL", rows[0][3])
	}
	r.Trace.Attempts[0].Events[0].Tokens = 2
	if h := EngineTable(r)[0][3]; !strings.Contains(h, "不是 ITL") {
		t.Errorf("a two-token event: the gap column %q must not be called ITL", h)
	}
	r.Trace.Attempts[0].Events[0].Tokens = 1
	r.Trace.Attempts[0].OutputTokens = 3 // the server counts a token with no text
	if h := EngineTable(r)[0][3]; !strings.Contains(h, "不是 ITL") {
		t.Errorf("usage counts more tokens than the events: the gap column %q must not be called ITL", h)
	}
	r.Trace.Attempts[0].OutputTokens = 0
	if got := strings.Join(rows[1], "|"); !strings.Contains(got, "3 / 4") || !strings.Contains(got, "1 / 3") || !strings.Contains(got, "2 / 3") {
		t.Errorf("table row %q", got)
	}
	ans := r.Answers(5)
	if len(ans) != 4 || ans[1][3] != "Paris." || !strings.Contains(ans[2][3], "no match") || ans[2][1] != "easy.jsonl:2" {
		t.Errorf("answers %q", ans)
	}
	if rep := r.SplitReport(); !strings.Contains(rep, "服务器 prompt_ms") {
		t.Errorf("split report:\n%s", rep)
	}
	r.Trace.Attempts[1].Meta = nil
	if _, _, ok := (&Run{Trace: &trace.Trace{Header: r.Trace.Header}}).ColdWarm(); ok {
		t.Error("ColdWarm without successes")
	}
}

// The readings a notebook cell compares are the card's numbers as plain
// float64s, NaN (never 0) when the run has no sample.
func TestReadingsAreTheCardsNumbers(t *testing.T) {
	r := engineTrace()
	if got := r.TTFTP50(); got != 40 { // 30, 40, 200: nearest-rank P50 is the 2nd
		t.Errorf("TTFT P50 %v", got)
	}
	if got := r.GapP50(); got != 10 {
		t.Errorf("gap P50 %v", got)
	}
	if got := r.QualityPass(); math.Abs(got-2.0/3) > 1e-12 {
		t.Errorf("quality pass %v", got)
	}
	if got := r.ClientOverPromptP50(); got != 10 { // 5, 10, 20
		t.Errorf("TTFT − prompt_ms P50 %v", got)
	}
	if got := TTFTRatio(r, r); got != 1 {
		t.Errorf("ratio to itself %v", got)
	}
	empty := &Run{Label: "空", Trace: &trace.Trace{Header: r.Trace.Header}}
	for name, v := range map[string]float64{"TTFT": empty.TTFTP50(), "gap": empty.GapP50(), "quality": empty.QualityPass(),
		"split": empty.ClientOverPromptP50(), "ratio": TTFTRatio(r, empty)} {
		if !math.IsNaN(v) {
			t.Errorf("%s of a run without samples: %v, want NaN", name, v)
		}
	}
	if line := MedianLine(r); !strings.Contains(line, "真实引擎：TTFT 中位数 40 ms") || !strings.Contains(line, "（n = 3）") || !strings.Contains(line, "无") {
		t.Errorf("three samples give the median no two-sided interval: %q", line)
	}
	if lines := MedianLines([]*Run{r, empty}); lines != MedianLine(r)+"\n"+MedianLine(empty)+"\n" {
		t.Errorf("MedianLines is MedianLine of each run, one a line, in order: %q", lines)
	}
	if c := Requests(8, easySet(t), "chat", 16, time.Minute); c.NumRequests != 8 || c.Concurrency != 1 {
		t.Errorf("requests %+v", c)
	}
	if e := (Engine{Threads: 1}); e.WithoutPromptCache().NoPromptCache != true || e.NoPromptCache || e.WithSlots(4).Parallel != 4 || e.Parallel != 0 {
		t.Errorf("the With copies change the copy only: %+v", e)
	}
}

func easySet(t *testing.T) *dataset.Set {
	set, err := EasySet()
	if err != nil {
		t.Fatal(err)
	}
	return set
}
