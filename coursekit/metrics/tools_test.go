package metrics

import (
	"math"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// Fig. 01.2: events at 700, 800 and 950 ms, stream end at 1000 ms.
func fig012() trace.Attempt {
	return trace.Attempt{ID: "T1", Outcome: trace.OK, HasEnd: true, EndMS: 1000, OutputTokens: 3,
		Events: []trace.Event{{TMS: 700, Tokens: 1}, {TMS: 800, Tokens: 1}, {TMS: 950, Tokens: 1}}}
}

// TPOT is the mean gap after the first token, (t_N − t_1)/(N − 1): the
// wait for the stream to close (950 → 1000 ms) is not in it. vLLM writes
// it as (E2EL − TTFT)/(N − 1) with E2EL ending at the last data message,
// which is the same number; the stream-end E2E in its place would give 150.
func TestTPOTIsTheMeanTokenGapAsVLLMComputesIt(t *testing.T) {
	a := fig012()
	unit, _ := a.TPOT()
	e2el, _ := VLLME2EL(&a)
	vllm, ok := VLLMTPOT(&a)
	e2e, _ := a.E2E()
	ttft, _ := a.TTFT()
	if !ok || unit != 125 || e2el != 950 || vllm != 125 || (e2e-ttft)/2 != 150 {
		t.Fatalf("TPOT %v (want 125, the mean of the gaps 100 and 150), vLLM E2EL %v (950), vLLM TPOT %v (125)", unit, e2el, vllm)
	}
	// The second event carries 3 tokens: 5 tokens in all, (950 − 700)/4.
	a.Events[1].Tokens = 3
	a.OutputTokens = a.StreamedTokens()
	unit, _ = a.TPOT()
	vllm, _ = VLLMTPOT(&a)
	if unit != 62.5 || vllm != 62.5 {
		t.Fatalf("multi-token: TPOT %v, vLLM %v (want 62.5)", unit, vllm)
	}
	// Only the first token's time recorded (one event, 3 tokens): no t_N,
	// so no TPOT, rather than 0.
	one := trace.Attempt{ID: "g", Outcome: trace.OK, HasEnd: true, EndMS: 900, OutputTokens: 3, Events: []trace.Event{{TMS: 200, Tokens: 1}}}
	if v, ok := one.TPOT(); ok {
		t.Fatalf("one event of 3 tokens: TPOT %v, want none", v)
	}
}

func TestVLLMTPOTNeedsAFirstEventAndTwoTokens(t *testing.T) {
	none := trace.Attempt{ID: "x", Outcome: trace.Timeout, HasEnd: true, EndMS: 2500}
	if _, ok := VLLMTPOT(&none); ok {
		t.Error("no event, no TPOT")
	}
	if _, ok := VLLME2EL(&none); ok {
		t.Error("no event, no E2EL")
	}
	one := trace.Attempt{ID: "y", Outcome: trace.OK, HasEnd: true, EndMS: 300, Events: []trace.Event{{TMS: 200, Tokens: 1}}}
	if _, ok := VLLMTPOT(&one); ok {
		t.Error("one token, no TPOT")
	}
}

func TestVLLMTPOTDistUsesTheUnitsSample(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := VLLMTPOTDist(tr, Linear)
	s := Summarize(tr, Options{Method: Linear})
	if d.N != s.TPOT.N || d.N != 8 || d.Method != Linear || d.Unit != "ms/token" {
		t.Fatalf("n %d (unit TPOT n %d), method %s, unit %s", d.N, s.TPOT.N, d.Method, d.Unit)
	}
	// The trace's events are the streamed data messages, so vLLM's TPOT is
	// the unit's, attempt by attempt.
	if *d.Max != *s.TPOT.Max || *d.P50 != *s.TPOT.P50 {
		t.Fatalf("vLLM TPOT P50 %v max %v vs unit P50 %v max %v", *d.P50, *d.Max, *s.TPOT.P50, *s.TPOT.Max)
	}
}

func TestVLLMSummarizeLeavesFailuresOutOfPercentiles(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	v := VLLMSummarize(tr)
	if v.Completed != 8 || v.Failed != 2 || v.TTFT.N != 8 || v.TTFTColumn.N != 10 {
		t.Fatalf("%+v", v)
	}
	// Linear over the 8 successes: the unit's 1720 ms.
	if math.Abs(*v.TTFT.P95-1720) > 1e-9 || v.TTFT.Method != Linear {
		t.Errorf("TTFT P95 %v (%s), want 1720 linear", *v.TTFT.P95, v.TTFT.Method)
	}
	// The two 0.0 placeholders pull the column's median down.
	if *v.TTFTColumn.P50 >= *v.TTFT.P50 || *v.TTFTColumn.Min != 0 {
		t.Errorf("column P50 %v vs TTFT P50 %v, min %v", *v.TTFTColumn.P50, *v.TTFT.P50, *v.TTFTColumn.Min)
	}
	// First send at 0 ms, last end at R9's 9700 ms.
	if math.Abs(v.DurationS-9.7) > 1e-12 || math.Abs(v.RequestThroughput-8/9.7) > 1e-12 {
		t.Errorf("duration %v, throughput %v", v.DurationS, v.RequestThroughput)
	}
}
