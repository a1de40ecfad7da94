package cardfmt_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// drained is a 1 s window whose throughput counts 3 attempts by send time:
// one complete success ends within the window, one after it, and a
// timeout after it too (walk 35e F3).
func drained() *trace.Trace {
	good := func(id string, start, end float64) trace.Attempt {
		return trace.Attempt{ID: id, Request: id, StartMS: start, Outcome: trace.OK, Quality: trace.Pass,
			Events: []trace.Event{{TMS: start + 100, Tokens: 1}, {TMS: end, Tokens: 1}}, EndMS: end, HasEnd: true}
	}
	return &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1000}},
		Attempts: []trace.Attempt{good("a", 100, 400), good("b", 700, 1400),
			{ID: "c", Request: "c", StartMS: 900, Outcome: trace.Timeout, EndMS: 1900, HasEnd: true}}}
}

// TestCardSaysWhatEndedAfterTheWindow: beside throughput and goodput, every
// view says how many of the attempts they count ended after the window
// closed, from the one count in the Summary.
func TestCardSaysWhatEndedAfterTheWindow(t *testing.T) {
	tr := drained()
	for _, tc := range []struct {
		l    lang.Lang
		want []string
	}{
		{lang.EN, []string{"Complete-success throughput: 2 / 1 s = 2 /s (1 of them ended after the window closed; 1 ended within it)",
			"Attempt throughput (failures included): 3 / 1 s = 3 /s (2 of them ended after the window closed; 1 ended within it)"}},
		{lang.ZH, []string{"完整成功吞吐：2 / 1 s = 2 次/s（其中 1 次在窗口关闭后才结束，1 次在窗口内结束）",
			"尝试吞吐（含失败）：3 / 1 s = 3 次/s（其中 2 次在窗口关闭后才结束，1 次在窗口内结束）"}},
	} {
		for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
			c := cardIn(t, tr, f, tc.l)
			if !containsAll(c, tc.want) {
				t.Errorf("%s %s card lacks %q:\n%s", tc.l, f, tc.want, c)
			}
			// goodput: 2 qualified, 1 of them ended after the window
			if want := cardfmt.EndedAfterTextIn(tc.l, 1, 1, 0); !strings.Contains(c, "2 / 1 s") || strings.Count(c, want) < 2 {
				t.Errorf("%s %s card: goodput lacks %q:\n%s", tc.l, f, want, c)
			}
		}
	}
	var j struct {
		Throughput struct {
			Late struct {
				Attempts          int64 `json:"attempts"`
				CompleteSuccesses int64 `json:"complete_successes"`
			} `json:"ended_after_window"`
		} `json:"throughput"`
		Conditions []struct {
			Late *int64 `json:"qualified_ended_after_window"`
		} `json:"conditions"`
	}
	if err := json.Unmarshal([]byte(card(t, tr, cardfmt.JSON)), &j); err != nil {
		t.Fatal(err)
	}
	if l := j.Throughput.Late; l.Attempts != 2 || l.CompleteSuccesses != 1 || len(j.Conditions) != 1 || j.Conditions[0].Late == nil || *j.Conditions[0].Late != 1 {
		t.Errorf("JSON ended_after_window %+v, conditions %+v; want 2 attempts, 1 complete success, 1 qualified", l, j.Conditions)
	}
	// Nothing ended after the window: no clause.
	tr.Attempts = tr.Attempts[:1]
	for _, l := range []lang.Lang{lang.EN, lang.ZH} {
		if c := cardIn(t, tr, cardfmt.Text, l); strings.Contains(c, "ended after") || strings.Contains(c, "窗口关闭后") {
			t.Errorf("%s card without a drain names one:\n%s", l, c)
		}
	}
}

// TestCardPrintsTPOTWithItsIntervals: TPOT and its 95 % intervals are
// printed whenever the summary has them, in text and Markdown: with one
// token per event (the unit's traces) and beside the server's decode time
// (engine traces) (walk 35e F4).
func TestCardPrintsTPOTWithItsIntervals(t *testing.T) {
	oneTok := func(id string, start, gap float64) trace.Attempt {
		return trace.Attempt{ID: id, Request: id, StartMS: start, Outcome: trace.OK, HasEnd: true, EndMS: start + 100 + 2*gap,
			Events: []trace.Event{{TMS: start + 100, Tokens: 1}, {TMS: start + 100 + gap, Tokens: 1}, {TMS: start + 100 + 2*gap, Tokens: 1}}}
	}
	timed := func(a trace.Attempt) trace.Attempt {
		a.OutputTokens = 3
		a.Meta = json.RawMessage(`{"server_timings":{"prompt_n":5,"prompt_ms":5,"predicted_n":3,"predicted_ms":30,"cache_n":0}}`)
		return a
	}
	h := trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 100000}}
	var plain, engine []trace.Attempt
	for i := range 10 {
		a := oneTok(string(rune('a'+i)), float64(i)*1000, float64(10+i))
		plain, engine = append(plain, a), append(engine, timed(a))
	}
	for _, tc := range []struct {
		name string
		as   []trace.Attempt
		tpot map[lang.Lang]string
	}{
		{"one token per event", plain, map[lang.Lang]string{lang.EN: "TPOT = (t_N − t_1) / (N − 1) (n=10", lang.ZH: "TPOT = (t_N − t_1) / (N − 1)（n=10"}},
		{"engine", engine, map[lang.Lang]string{lang.EN: "Client TPOT = (t_N − t_1) / (N − 1)", lang.ZH: "客户端 TPOT = (t_N − t_1) / (N − 1)"}},
	} {
		tr := &trace.Trace{Header: h, Attempts: tc.as}
		for _, l := range []lang.Lang{lang.EN, lang.ZH} {
			ci := map[lang.Lang]string{lang.EN: "95% confidence intervals", lang.ZH: "95% 置信区间"}[l]
			for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
				c := cardIn(t, tr, f, l)
				lines := strings.Split(c, "\n")
				found := 0
				for i, ln := range lines {
					if strings.Contains(ln, tc.tpot[l]) {
						found++
						if i+1 >= len(lines) || !strings.Contains(lines[i+1], ci) || !strings.Contains(lines[i+1], "ms/token") {
							t.Errorf("%s, %s %s: TPOT line without its intervals below it:\n%s", tc.name, l, f, c)
						}
					}
				}
				if found != 1 {
					t.Errorf("%s, %s %s: %d TPOT lines %q, want 1:\n%s", tc.name, l, f, found, tc.tpot[l], c)
				}
			}
		}
	}
}

// TestMissingTTFTNoneReadsNone: a count of 0 missing TTFTs reads "none",
// never "0 (not 0)"; a count above 0 keeps "(not 0)".
func TestMissingTTFTNoneReadsNone(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}},
		Attempts: []trace.Attempt{ok("a", 0, trace.Pass), ok("b", 1000, trace.Pass)}}
	none := map[lang.Lang]map[cardfmt.Format]string{
		lang.EN: {cardfmt.Text: "Missing TTFT: none", cardfmt.Markdown: "missing TTFT: none"},
		lang.ZH: {cardfmt.Text: "缺失 TTFT：无", cardfmt.Markdown: "缺失 TTFT：无"},
	}
	for l, byF := range none {
		for f, want := range byF {
			c := cardIn(t, tr, f, l)
			if !strings.Contains(c, want) || strings.Contains(c, "TTFT 0") || strings.Contains(c, "TTFT 0 次") || strings.Contains(c, "0 attempts received no first output") || strings.Contains(c, "0 次尝试没有收到首个输出") {
				t.Errorf("%s %s card: want %q for no missing TTFT:\n%s", l, f, want, c)
			}
		}
	}
	tr.Attempts = append(tr.Attempts, trace.Attempt{ID: "c", StartMS: 2000, Outcome: trace.Timeout, EndMS: 3000, HasEnd: true})
	if c := cardIn(t, tr, cardfmt.Markdown, lang.EN); !strings.Contains(c, "missing TTFT 1 (not 0)") {
		t.Errorf("markdown card with a missing TTFT:\n%s", c)
	}
	if c := cardIn(t, tr, cardfmt.Text, lang.EN); !strings.Contains(c, "Missing TTFT: 1 attempt received no first output; recorded as missing, not 0") {
		t.Errorf("text card with a missing TTFT:\n%s", c)
	}
}
