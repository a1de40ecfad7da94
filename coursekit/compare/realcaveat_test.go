package compare_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The line of differences whose interval excludes 0 carries its caveats:
// A/A pairs of one command, one run a side, got 2–6 such metrics, listed
// with none. With one run a side it says the variance between runs is
// left out, and it says how many metrics were tested at once (some
// exclude 0 by chance), in both languages.
func TestDifferencesLineCarriesItsCaveats(t *testing.T) {
	o := compare.Options{Resamples: 300}
	a := run(synth(load{n: 200, windowS: 20, ttftMS: 200, tokens: 8}, 1), "a.jsonl", o)
	b := run(synth(load{n: 200, windowS: 20, ttftMS: 300, tokens: 8}, 2), "b.jsonl", o)
	line := func(r *compare.Result, l lang.Lang, head string) string {
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		for _, s := range strings.Split(buf.String(), "\n") {
			if strings.HasPrefix(s, head) {
				return s
			}
		}
		t.Fatalf("%s: no line %q:\n%s", l, head, buf.String())
		return ""
	}
	r, err := compare.Compare([]compare.Run{a}, []compare.Run{b}, o)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range r.Metrics {
		if m.Verdict != compare.NA {
			n++
		}
	}
	for _, c := range []struct {
		l          lang.Lang
		head       string
		want, many string
	}{
		{lang.EN, "Differences whose interval excludes 0:", "One run a side: these intervals leave out the variance between runs", " metrics are tested at once"},
		{lang.ZH, "区间不含 0 的差别：", "每边只有 1 次运行：这些区间没有计入运行之间的波动", " 个指标"},
	} {
		s := line(r, c.l, c.head)
		if !strings.Contains(s, "ttft_ms.p50") || !strings.Contains(s, c.want) || !strings.Contains(s, strconv.Itoa(n)+c.many) {
			t.Errorf("%s: the differences line lacks its caveats (%q, %d%s):\n%s", c.l, c.want, n, c.many, s)
		}
	}
	// Several runs on both sides: no one-run caveat, the count stays.
	r, err = compare.Compare([]compare.Run{a, run(synth(load{n: 200, windowS: 20, ttftMS: 200, tokens: 8}, 3), "a2.jsonl", o)},
		[]compare.Run{b, run(synth(load{n: 200, windowS: 20, ttftMS: 300, tokens: 8}, 4), "b2.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if s := line(r, lang.EN, "Differences whose interval excludes 0:"); strings.Contains(s, "One run a side") || !strings.Contains(s, "metrics are tested at once") {
		t.Errorf("two runs a side: %s", s)
	}
}
