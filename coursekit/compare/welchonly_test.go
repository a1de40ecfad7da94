package compare_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The walk's 3-vs-3 A/B: one run with n = 4 left ttft_ms.p50 at [−∞, +∞]
// for the whole comparison, though the runs' own values separate clearly.
// With several runs on both sides, each with a value, the interval is
// Welch's t over the runs alone, named so, and the too-few note stays.
func TestShortRunFallsBackToWelchOverRuns(t *testing.T) {
	o := compare.Options{Resamples: 300}
	var a, b []compare.Run
	for i := range 3 {
		n := 120
		if i == 2 {
			n = 4 // one short run
		}
		a = append(a, run(synth(load{n: n, windowS: 10, ttftMS: 200, tokens: 8}, uint64(1+i)), "a"+string(rune('1'+i))+".jsonl", o))
		b = append(b, run(synth(load{n: 120, windowS: 10, ttftMS: 900, tokens: 8}, uint64(11+i)), "b"+string(rune('1'+i))+".jsonl", o))
	}
	r, err := compare.Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	m := metric(t, r, "ttft_ms.p50")
	if m.CI95.Low == nil || m.CI95.High == nil {
		t.Fatalf("ttft_ms.p50 over runs %v against %v: interval %s, want Welch's over the runs", values(t, m.ARuns), values(t, m.BRuns), bounds(m.CI95))
	}
	lo, hi := welchOf(values(t, m.ARuns), values(t, m.BRuns))
	if m.Method != compare.MethodWelchRuns || !m.WelchOnly() || m.Verdict != compare.Worse ||
		*m.CI95.Low != lo && (*m.CI95.Low-lo)/lo > 1e-9 || *m.CI95.High != hi && (*m.CI95.High-hi)/hi > 1e-9 {
		t.Errorf("ttft_ms.p50: %s by %s (%s), want Welch's [%v, %v] by %s, worse", bounds(m.CI95), m.Method, m.Verdict, lo, hi, compare.MethodWelchRuns)
	}
	if m.Unbounded == nil || !strings.Contains(*m.Unbounded, "a3.jsonl") {
		t.Errorf("ttft_ms.p50: reason %v, want it to name the short run a3.jsonl", m.Unbounded)
	}
	for l, want := range map[lang.Lang]string{lang.EN: "Too few samples, Welch's t over runs instead: ttft_ms.p50", lang.ZH: "样本太少，改用运行间 Welch t：ttft_ms.p50"} {
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), want) || !strings.Contains(buf.String(), map[lang.Lang]string{lang.EN: "A a3.jsonl: n = 4", lang.ZH: "A 边 a3.jsonl：n = 4"}[l]) {
			t.Errorf("%s report lacks the note %q naming a3.jsonl:\n%s", l, want, buf.String())
		}
	}
	// One run on a side: no runs to take a t over; the interval stays
	// unbounded.
	one, err := compare.Compare(a[2:], b, o)
	if err != nil {
		t.Fatal(err)
	}
	if m := metric(t, one, "ttft_ms.p50"); m.CI95.Low != nil && m.CI95.High != nil {
		t.Errorf("one short A run: ttft_ms.p50 %s by %s, want a side unbounded", bounds(m.CI95), m.Method)
	}
}
