package compare_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The third fresh walk: `failure_rate 2.1% → 17.2% ~` beside
// `ttft_ms.p95 … better`, and nothing said that the percentiles count
// complete successes only, so B's slowest attempts (timeouts) are gone.
// When the failure rates differ (a verdict, or 5 points or more), a note
// says so, naming the side with more failures; when they agree, none.
func TestFailuresDifferNoteOnPercentiles(t *testing.T) {
	o := compare.Options{Resamples: 200}
	a := run(synth(load{n: 50, windowS: 10, fail: 0.02, ttftMS: 300, tokens: 8}, 1), "a.jsonl", o)
	b := run(synth(load{n: 50, windowS: 10, fail: 0.18, ttftMS: 200, tokens: 8}, 2), "b.jsonl", o)
	same := run(synth(load{n: 50, windowS: 10, fail: 0.02, ttftMS: 200, tokens: 8}, 3), "c.jsonl", o)
	for _, c := range []struct {
		a, b compare.Run
		more string
	}{{a, b, "B"}, {b, a, "A"}, {a, same, ""},
		// 1/20 against 3/20: ~, yet 10 points apart.
		{run(failing(20, 1), "a20.jsonl", o), run(failing(20, 3), "b20.jsonl", o), "B"}} {
		r, err := compare.Compare([]compare.Run{c.a}, []compare.Run{c.b}, o)
		if err != nil {
			t.Fatal(err)
		}
		f := metric(t, r, "failure_rate")
		w := kindsOf(r)[compare.WarnFailures]
		if c.more == "" {
			if w != "" {
				t.Errorf("failure_rate %v → %v (%s): note %q, want none", *f.A, *f.B, f.Verdict, w)
			}
			continue
		}
		if c.a.Name == "a20.jsonl" && f.Verdict != compare.Same {
			t.Errorf("1/20 against 3/20: %s, want ~ (the case of a note without a verdict)", f.Verdict)
		}
		if !strings.Contains(w, "cover complete successes only") || !strings.Contains(w, c.more+", with more failures, may look faster") {
			t.Errorf("failure_rate %v → %v (%s): note %q, want it naming %s", *f.A, *f.B, f.Verdict, w, c.more)
		}
		for l, want := range map[lang.Lang]string{lang.EN: "latency percentiles cover complete successes only", lang.ZH: "失败多的 " + c.more + " 可能因此显得更快"} {
			var buf bytes.Buffer
			if err := compare.Write(&buf, r, cardfmt.Text, l); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), want) {
				t.Errorf("%s report lacks %q:\n%s", l, want, buf.String())
			}
		}
	}
}
