package compare_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// A percentile left unbounded by one run's few samples names that run
// and its n, in the JSON reason and in the text and Markdown reports: the
// walk's 3-vs-3 A/B had every percentile at [−∞, +∞] because one B run
// had 1 success of 8, and the output said only "n ≥ 6 per run needed".
func TestTooFewSamplesNamesTheRun(t *testing.T) {
	o := compare.Options{}
	var a, b []compare.Run
	for i := range 3 {
		a = append(a, run(synth(load{n: 120, windowS: 10, ttftMS: 200, tokens: 8}, uint64(1+i)), "s1-"+string(rune('1'+i))+".jsonl", o))
	}
	b = append(b, run(synth(load{n: 120, windowS: 10, ttftMS: 150, tokens: 8}, 7), "s4-1.jsonl", o))
	b = append(b, run(synth(load{n: 120, windowS: 10, ttftMS: 150, tokens: 8}, 8), "s4-2.jsonl", o))
	b = append(b, run(failing(8, 7), "s4-3.jsonl", o))
	r, err := compare.Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	if m := metric(t, r, "ttft_ms.p99"); m.Unbounded == nil || !strings.Contains(*m.Unbounded, "all 6 runs: n = 1–120") {
		t.Errorf("ttft_ms.p99, which no run bounds: reason %v, want all 6 runs and their range of n", m.Unbounded)
	}
	m := metric(t, r, "ttft_ms.p50")
	if m.Unbounded == nil || !strings.Contains(*m.Unbounded, "s4-3.jsonl") || !strings.Contains(*m.Unbounded, "n = 1") || strings.Contains(*m.Unbounded, "s4-1.jsonl") {
		t.Errorf("ttft_ms.p50's reason %v: want it to name s4-3.jsonl (B) and its n = 1, and no other run", m.Unbounded)
	}
	for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
		for _, l := range []lang.Lang{lang.ZH, lang.EN} {
			var buf bytes.Buffer
			if err := compare.Write(&buf, r, f, l); err != nil {
				t.Fatal(err)
			}
			want := map[lang.Lang]string{lang.ZH: "B 边 s4-3.jsonl：n = 1", lang.EN: "B s4-3.jsonl: n = 1"}[l]
			if !strings.Contains(buf.String(), want) {
				t.Errorf("%v %v: the too-few note does not name s4-3.jsonl and its n:\n%s", f, l, buf.String())
			}
		}
	}
}
