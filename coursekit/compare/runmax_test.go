package compare_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The third fresh walk's shape: three runs a side of n = 10–18 complete
// successes. P95 and P99 are then each run's maximum (⌈p·n⌉ = n), and
// Welch's t over run maxima estimates the expected maximum of n draws,
// not the percentile: no Welch verdict for them; the interval stays
// unbounded (~) with a note naming it. P50 still gets Welch's t.
func TestPercentileAtRunMaxGetsNoWelchVerdict(t *testing.T) {
	o := compare.Options{Resamples: 200}
	var a, b []compare.Run
	for i, n := range []int{10, 14, 18} {
		a = append(a, run(synth(load{n: n, windowS: 10, ttftMS: 200, tokens: 8}, uint64(1+i)), fmt.Sprintf("a%d.jsonl", i+1), o))
		b = append(b, run(synth(load{n: 28 - n, windowS: 10, ttftMS: 900, tokens: 8}, uint64(11+i)), fmt.Sprintf("b%d.jsonl", i+1), o))
	}
	r, err := compare.Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ttft_ms.p95", "ttft_ms.p99"} {
		m := metric(t, r, name)
		if strings.Contains(m.Method, compare.MethodWelchRuns) || m.WelchOnly() || m.Verdict != compare.Same || m.AtRunMax == nil || *m.AtRunMax != [2]int{10, 18} {
			t.Errorf("%s: %s by %s (%s), at run max %v: want unbounded ~, no Welch, n 10–18", name, bounds(m.CI95), m.Method, m.Verdict, m.AtRunMax)
		}
		if m.Unbounded == nil || !strings.Contains(*m.Unbounded, "is each run's maximum") {
			t.Errorf("%s: reason %v, want it to say the percentile is each run's maximum", name, m.Unbounded)
		}
	}
	// One run a side: no Welch's t over runs to withhold, no note.
	one, err := compare.Compare(a[:1], b[:1], o)
	if err != nil {
		t.Fatal(err)
	}
	if m := metric(t, one, "ttft_ms.p99"); m.AtRunMax != nil || kindsOf(one)[compare.WarnRunMax] != "" {
		t.Errorf("one run a side: ttft_ms.p99 at run max %v, warning %q: want none", m.AtRunMax, kindsOf(one)[compare.WarnRunMax])
	}
	if m := metric(t, r, "ttft_ms.p50"); m.AtRunMax != nil || m.Verdict != compare.Worse {
		t.Errorf("ttft_ms.p50: %s (%s), at run max %v: want Welch's verdict worse", bounds(m.CI95), m.Verdict, m.AtRunMax)
	}
	if w := kindsOf(r)[compare.WarnRunMax]; !strings.Contains(w, "P99 of n = 10–18 is each run's maximum") {
		t.Errorf("warning %q", w)
	}
	for l, want := range map[lang.Lang]string{lang.EN: "P99 of n = 10–18 is each run's maximum", lang.ZH: "n = 10–18 的 P99 就是每次运行的最大值"} {
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), want) {
			t.Errorf("%s report lacks %q:\n%s", l, want, buf.String())
		}
	}
}
