package compare_test

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The third fresh walk: the Methods text quoted the A/A coverage of the
// bootstrap over three runs a side as "83–87%" in one paragraph and
// "81–87%" in the next. One report quotes one figure.
func TestMethodsQuoteOneCoverageFigure(t *testing.T) {
	o := compare.Options{Resamples: 100}
	var a, b []compare.Run
	for i := range 3 {
		a = append(a, run(synth(load{n: 60, windowS: 10, ttftMS: 200, tokens: 8}, uint64(1+i)), "a"+string(rune('1'+i)), o))
		b = append(b, run(synth(load{n: 60, windowS: 10, ttftMS: 210, tokens: 8}, uint64(11+i)), "b"+string(rune('1'+i)), o))
	}
	r, err := compare.Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	figure := regexp.MustCompile(`\d+%?–\d+%`)
	for _, l := range []lang.Lang{lang.EN, lang.ZH} {
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, f := range figure.FindAllString(buf.String(), -1) {
			seen[f] = true
		}
		if len(seen) != 1 {
			t.Errorf("%s: coverage figures %v, want one:\n%s", l, seen, buf.String())
		}
	}
}
