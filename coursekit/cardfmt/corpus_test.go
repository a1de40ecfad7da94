package cardfmt_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// corpusCase is one card the language tests print: the unit's traces and
// built traces that reach every note and line of the card.
type corpusCase struct {
	name string
	s    *metrics.Summary
}

func unitTrace(t *testing.T, name string) *trace.Trace {
	t.Helper()
	tr, err := trace.ReadFile(filepath.Join("..", "..", "data", "unit01", name))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// benchLike is a bench trace with every failure kind, retries, multi-token
// events, a usage mismatch and server timings (good, cached and bad).
func benchLike(h trace.Header) *trace.Trace {
	ev := func(start float64, toks ...int) []trace.Event {
		var out []trace.Event
		for i, k := range toks {
			out = append(out, trace.Event{TMS: start + 100 + float64(i)*20, Tokens: k})
		}
		return out
	}
	att := []trace.Attempt{
		{ID: "a1", Request: "r1", StartMS: 0, Outcome: trace.ConnectError, EndMS: 5, HasEnd: true, Error: "refused"},
		{ID: "a2", Request: "r1", StartMS: 10, Outcome: trace.OK, Events: ev(10, 1, 3, 1), EndMS: 300, HasEnd: true, Quality: trace.Pass, OutputTokens: 7,
			Meta: json.RawMessage(`{"server_timings":{"prompt_n":19,"prompt_ms":90,"predicted_n":10,"predicted_ms":120,"cache_n":0}}`)},
		{ID: "a3", Request: "r2", StartMS: 400, Outcome: trace.OK, Events: ev(400, 1, 1, 1, 1), EndMS: 700, HasEnd: true, Quality: trace.Fail, OutputTokens: 4,
			Meta: json.RawMessage(`{"server_timings":{"prompt_n":1,"prompt_ms":150,"predicted_n":4,"predicted_ms":60,"cache_n":18}}`)},
		{ID: "a4<b>", Request: "r3", StartMS: 800, Outcome: trace.OK, Events: ev(800, 1, 1), EndMS: 1000, HasEnd: true,
			Meta: json.RawMessage(`{"server_timings":{"prompt_ms":"<i>"}}`)},
		{ID: "a5", Request: "r4", StartMS: 1200, Outcome: trace.Timeout, Events: ev(1200, 1), EndMS: 3200, HasEnd: true},
		{ID: "a6", Request: "r5", StartMS: 1300, Outcome: trace.Timeout, EndMS: 3300, HasEnd: true},
		{ID: "a7", Request: "r6", StartMS: 1400, Outcome: trace.HTTPError, HTTPStatus: 503, EndMS: 1410, HasEnd: true},
		{ID: "a8", Request: "r7", StartMS: 1500, Outcome: trace.StreamError, Events: ev(1500, 1), EndMS: 1700, HasEnd: true},
		{ID: "a9", Request: "r8", StartMS: 1600, Outcome: trace.Cancelled, EndMS: 1650, HasEnd: true},
		{ID: "a10", Request: "r9", StartMS: 4000, Outcome: trace.InFlight, Events: ev(4000, 1)},
		{ID: "a11", Request: "r10", StartMS: 20000, Outcome: trace.OK, Events: ev(20000, 1), EndMS: 20300, HasEnd: true},
	}
	return &trace.Trace{Header: h, Attempts: att}
}

func corpus(t *testing.T) []corpusCase {
	t.Helper()
	var out []corpusCase
	add := func(name string, tr *trace.Trace, o metrics.Options) {
		out = append(out, corpusCase{name, metrics.Summarize(tr, o)})
	}
	for _, name := range []string{"trace.jsonl", "practice.jsonl"} {
		tr := unitTrace(t, name)
		add(name, tr, metrics.Options{SLOsMS: []float64{1000, 500}})
		add(name+" linear", tr, metrics.Options{SLOsMS: []float64{1500}, Method: metrics.Linear, Levels: []float64{0.5, 0.9, 0.99, 0.999}})
		add(name+" latency", tr, metrics.Options{SLOsMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 2000, ITLP95MS: 100, TPOTMS: 40}})
		un := *tr
		un.Attempts = slices.Clone(tr.Attempts)
		for j := range un.Attempts {
			un.Attempts[j].Quality = trace.Unrated
		}
		add(name+" unrated", &un, metrics.Options{SLOsMS: []float64{1000}})
		add(name+" latency unrated", &un, metrics.Options{SLOsMS: []float64{2000}, Latency: metrics.LatencySLO{E2EMS: 1500}})
	}
	cost, w := 12.5, trace.Window{StartMS: 0, EndMS: 10000}
	base := trace.Header{Trace: trace.Version, Clock: "client", Window: w, WindowCost: &cost, Currency: "CNY"}
	add("bench", benchLike(base), metrics.Options{SLOsMS: []float64{1000, 250}})
	add("bench latency", benchLike(base), metrics.Options{SLOsMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 500, ITLP95MS: 30, TPOTMS: 50}, Levels: []float64{0.5, 0.99}})
	usd := base
	usd.Currency, usd.Clock = "USD", "server"
	add("bench usd", benchLike(usd), metrics.Options{SLOsMS: []float64{1000}})
	empty := base
	empty.WindowCost = nil
	add("empty", &trace.Trace{Header: empty}, metrics.Options{SLOsMS: []float64{1000}})
	zero := empty
	zero.Window = trace.Window{}
	add("zero window", &trace.Trace{Header: zero}, metrics.Options{SLOsMS: []float64{1000}})
	at := func(v float64) *float64 { return &v }
	for _, re := range []trace.RunEnd{
		{Reason: trace.RunNotFinished},
		{Reason: trace.RunInterrupted, AtMS: at(500)},
		{Reason: trace.RunInterrupted, AtMS: at(3000)},
		{Reason: trace.RunInterrupted, AtMS: at(12000)},
		{Reason: trace.RunNumRequests, AtMS: at(8000), NumRequests: 9},
		{Reason: trace.RunCompleted, NumRequests: 50},
	} {
		h := trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 1000, EndMS: 11000}}
		re.PlannedDurationMS, re.PlannedWindow = 10000, h.Window
		h, err := h.WithRunEnd(re)
		if err != nil {
			t.Fatal(err)
		}
		add("run end "+re.Reason, benchLike(h), metrics.Options{SLOsMS: []float64{1000}})
	}
	return out
}
