package cardfmt

import (
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Every outcome, quality, currency and clock has a name in both languages,
// distinct within a language, and the English one has no Chinese in it.
func TestNamesInBothLanguages(t *testing.T) {
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		seen := map[string]bool{}
		for _, o := range trace.Outcomes {
			firsts := []bool{false}
			if o == trace.Timeout { // named by whether the first output came
				firsts = []bool{false, true}
			}
			for _, first := range firsts {
				n := OutcomeNameAtIn(l, o, first)
				if n == "" || seen[n] {
					t.Errorf("%s: %v (first output %v) reads %q", l, o, first, n)
				}
				seen[n] = true
			}
		}
		for _, q := range []trace.Quality{trace.Pass, trace.Fail, trace.Unrated} {
			if n := QualityNameIn(l, q); n == "" || seen[n] {
				t.Errorf("%s: quality %v reads %q", l, q, n)
			} else {
				seen[n] = true
			}
		}
	}
	for _, m := range []map[string]lang.Msg{currencyNames, clockNames, unitNames} {
		for code, n := range m {
			if n.In(lang.ZH) == "" || n.In(lang.EN) == "" {
				t.Errorf("%q: empty name %q", code, n)
			}
			if i, _ := lang.FirstCJK(n.In(lang.EN)); i >= 0 {
				t.Errorf("%q: English name %q", code, n.In(lang.EN))
			}
		}
	}
	for _, o := range trace.Outcomes {
		if i, _ := lang.FirstCJK(OutcomeNameIn(lang.EN, o)); i >= 0 {
			t.Errorf("%v: English name %q", o, OutcomeNameIn(lang.EN, o))
		}
	}
	if CurrencyNameIn(lang.EN, "rmb") != "CNY" || CurrencyNameIn(lang.EN, "JPY") != "JPY" || ClockNameIn(lang.EN, "server") != "server" {
		t.Error("English currency or clock names")
	}
}
