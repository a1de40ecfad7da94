package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// att is a complete success sent at start with its first event ttft later.
func att(id string, start, ttft float64, meta string) trace.Attempt {
	a := trace.Attempt{ID: id, StartMS: start, Outcome: trace.OK, Events: []trace.Event{{TMS: start + ttft, Tokens: 1}, {TMS: start + ttft + 10, Tokens: 1}}, EndMS: start + ttft + 20, HasEnd: true}
	if meta != "" {
		a.Meta = json.RawMessage(meta)
	}
	return a
}

func serverTrace() *trace.Trace {
	return &trace.Trace{
		Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}},
		Attempts: []trace.Attempt{
			// llama.cpp's timings as sent (a real chunk's shape).
			att("A1", 0, 160, `{"server_timings":{"cache_n":28,"prompt_n":19,"prompt_ms":157.1,"prompt_per_token_ms":8.27,"predicted_n":10,"predicted_ms":127.9,"predicted_per_token_ms":14.2,"predicted_per_second":70.3}}`),
			att("A2", 100, 100, `{"server_timings":{"cache_n":0,"prompt_n":40,"prompt_ms":90,"predicted_n":4,"predicted_ms":40}}`),
			// No decode part: the prompt split still counts.
			att("A3", 200, 50, `{"prompt":"easy.jsonl:1","server_timings":{"prompt_ms":45}}`),
			// TTFT below the server's own prefill: counted, left out of the gap.
			att("A4", 300, 20, `{"server_timings":{"prompt_ms":30,"predicted_n":1,"predicted_ms":5}}`),
			// The simulator and vLLM send none.
			att("N1", 400, 100, ""),
			att("N2", 500, 100, `{"prompt":"arith:1"}`),
			att("N3", 550, 100, `{"server_timings":null}`),
			// Bad and partial: reported, ignored whole.
			att("B1", 600, 100, `{"server_timings":"fast"}`),
			att("B2", 700, 100, `{"server_timings":{"prompt_n":3}}`),
			att("B3", 800, 100, `{"server_timings":{"prompt_ms":"12"}}`),
			att("B4", 900, 100, `{"server_timings":{"prompt_ms":-1}}`),
			att("B5", 950, 100, `{"server_timings":{"prompt_ms":5,"predicted_ms":3}}`),
			// Failures and attempts outside the window are not in the split.
			{ID: "F1", StartMS: 1000, Outcome: trace.Timeout, EndMS: 3000, HasEnd: true, Meta: json.RawMessage(`{"server_timings":{"prompt_ms":1}}`)},
			att("O1", 20000, 100, `{"server_timings":{"prompt_ms":1}}`),
		},
	}
}

func TestServerSplitUsesGoodTimingsAndReportsBadOnes(t *testing.T) {
	sp := Summarize(serverTrace(), Options{}).Server
	if sp == nil {
		t.Fatal("no split for a trace with server timings")
	}
	if sp.WithTimings != 4 || sp.WithoutTimings != 3 || sp.Bad != 5 || sp.TTFTBelowPrompt != 1 {
		t.Fatalf("with %d, without %d, bad %d, below %d", sp.WithTimings, sp.WithoutTimings, sp.Bad, sp.TTFTBelowPrompt)
	}
	if sp.PromptMS.N != 4 || *sp.PromptMS.Max != 157.1 || *sp.PromptMS.Min != 30 {
		t.Errorf("prompt_ms %+v", sp.PromptMS)
	}
	// A1 160−157.1, A2 100−90, A3 50−45; A4 is below.
	if sp.ClientOverPromptMS.N != 3 || *sp.ClientOverPromptMS.Max != 10 || *sp.ClientOverPromptMS.P50 != 5 {
		t.Errorf("ttft − prompt_ms %+v", sp.ClientOverPromptMS)
	}
	// Over predicted_n − 1 steps: A1 127.9 / 9, A2 40 / 3; A3 has no
	// decode part and A4's one token has no step.
	if sp.DecodePerTokenMS.N != 2 || math.Abs(*sp.DecodePerTokenMS.Min-40.0/3) > 1e-9 || math.Abs(*sp.DecodePerTokenMS.Max-127.9/9) > 1e-9 || sp.NoDecodeStep != 2 || sp.DecodeDefinition != DecodeDefinition {
		t.Errorf("decode %+v, no step %d, %q", sp.DecodePerTokenMS, sp.NoDecodeStep, sp.DecodeDefinition)
	}
	if sp.CacheHits != 1 || sp.CachedTokens != 28 || sp.PromptTokens != 59 {
		t.Errorf("cache hits %d, cached %d, prompt tokens %d", sp.CacheHits, sp.CachedTokens, sp.PromptTokens)
	}
	want := []string{
		"attempt B1: server_timings is not an object",
		"attempt B2: server_timings has no prompt_ms",
		`attempt B3: server_timings.prompt_ms is "12", not a number ≥ 0`,
	}
	if !reflect.DeepEqual(sp.BadExamples, want) {
		t.Errorf("bad examples %q", sp.BadExamples)
	}
}

// The streamed, parallel reader gives the same split as the in-memory one.
func TestServerSplitSameWhenStreamed(t *testing.T) {
	tr := serverTrace()
	var b bytes.Buffer
	w, err := trace.NewWriter(&b, tr.Header)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tr.Attempts {
		if err := w.Write(&tr.Attempts[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	s, err := SummarizeReader(strings.NewReader(b.String()), "t.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := Summarize(tr, Options{}).Server; !reflect.DeepEqual(s.Server, want) {
		t.Fatalf("streamed %+v\nin memory %+v", s.Server, want)
	}
}

// A trace without server timings has no split, and its JSON card has no
// server_timings key at all.
func TestNoServerSplitWithoutTimings(t *testing.T) {
	tr := serverTrace()
	tr.Attempts = tr.Attempts[4:6]
	s := Summarize(tr, Options{})
	if s.Server != nil {
		t.Fatalf("split %+v", s.Server)
	}
	b, _ := json.Marshal(s)
	if bytes.Contains(b, []byte("server_timings")) {
		t.Fatal("card JSON mentions server_timings")
	}
}
