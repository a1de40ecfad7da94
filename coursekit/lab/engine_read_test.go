package lab

import (
	"encoding/json"
	"strings"
	"testing"

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
