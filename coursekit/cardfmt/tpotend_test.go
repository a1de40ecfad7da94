package cardfmt_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// TestCardSaysWhichTN: the card's TPOT method text says which t_N it used:
// the finish (finish_ms) for the attempts whose usage counts a token the
// events did not carry (llama.cpp's end-of-sequence token), else the last
// event; JSON counts them.
func TestCardSaysWhichTN(t *testing.T) {
	timed := func(id string, start float64, finish bool) trace.Attempt {
		a := trace.Attempt{ID: id, StartMS: start, Outcome: trace.OK, HasEnd: true, EndMS: start + 60, OutputTokens: 4,
			Events: []trace.Event{{TMS: start + 10, Tokens: 1}, {TMS: start + 20, Tokens: 1}, {TMS: start + 30, Tokens: 1}},
			Meta:   json.RawMessage(`{"server_timings":{"prompt_n":5,"prompt_ms":5,"predicted_n":4,"predicted_ms":30,"cache_n":0}}`)}
		if finish {
			a.FinishMS, a.HasFinish = start+40, true
		}
		return a
	}
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}},
		Attempts: []trace.Attempt{timed("A", 0, true), timed("B", 1000, true), timed("C", 2000, false)}}
	for _, tc := range []struct {
		l    lang.Lang
		want []string
	}{
		{lang.ZH, []string{"t_N：2 次尝试取带 finish_reason 的块到达的时刻（finish_ms）", "其余 1 次取最后一个文本事件"}},
		{lang.EN, []string{"t_N: the arrival of the chunk carrying finish_reason (finish_ms) in 2 attempts", "the last text event in the other 1"}},
	} {
		for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
			if c := cardIn(t, tr, f, tc.l); !containsAll(c, tc.want) {
				t.Errorf("%s %s card lacks %q:\n%s", tc.l, f, tc.want, c)
			}
		}
	}
	j := cardIn(t, tr, cardfmt.JSON, lang.ZH)
	// Both counts the text names are the summary's, not one of them
	// derived in the view (make test-engine's views-agree check).
	if !strings.Contains(j, `"tpot_at_finish": 2`) || !strings.Contains(j, `"tpot_at_last_event": 1`) {
		t.Errorf("card JSON lacks tpot_at_finish 2 and tpot_at_last_event 1:\n%s", j)
	}
	// Without finish_ms the card says t_N is the last event.
	tr.Attempts = []trace.Attempt{timed("C", 2000, false)}
	if c := cardIn(t, tr, cardfmt.Text, lang.ZH); !strings.Contains(c, "t_N：最后一个文本事件") {
		t.Errorf("card without finish_ms:\n%s", c)
	}
}

func containsAll(s string, subs []string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
