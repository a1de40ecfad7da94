package compare_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// A qualified rate or goodput missing because nothing is rated (the
// summary's goodput_unknown) says so, not "no complete success": the runs
// have successes, and the reader's fix is a quality pass, not a rerun.
func TestNoValueSaysUnrated(t *testing.T) {
	o := compare.Options{Card: cardopts.TTFT(3000), Resamples: 100}
	unrated := func(name string) compare.Run {
		tr := failing(20, 2)
		for i := range tr.Attempts {
			tr.Attempts[i].Quality = trace.Unrated
		}
		return run(withConditions(tr, `{"slo":{"slo_ttft_ms":[2000],"slo_e2e_ms":4000}}`), name, o)
	}
	r, err := compare.Compare([]compare.Run{unrated("a")}, []compare.Run{unrated("b")}, o)
	if err != nil {
		t.Fatal(err)
	}
	var noValue string
	for _, w := range r.Warnings {
		if w.Kind == compare.WarnNoValue {
			noValue += w.Text
		}
	}
	if !strings.Contains(noValue, "goodput@3000ms: unknown on both sides: no complete success is rated") || strings.Contains(noValue, "no complete success)") {
		t.Errorf("no_value warning %q: want the unrated reason", noValue)
	}
	// The hint says what fixes it: rate the answers (--dataset), or judge
	// on latency alone with an SLO beyond TTFT. "Judge under their recorded
	// latency SLOs" did not help a run whose recorded SLO is TTFT alone.
	if !strings.Contains(noValue, "rate the answers: measure again with coursekit bench --dataset") || !strings.Contains(noValue, "--slo-e2e") || strings.Contains(noValue, "recorded latency SLOs") {
		t.Errorf("no_value warning %q: want the fix (--dataset, or an SLO beyond TTFT)", noValue)
	}
	var text bytes.Buffer
	if err := compare.Write(&text, r, cardfmt.Text, lang.ZH); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "goodput@3000ms：两边都未知：没有一次完整成功有质量评分") || strings.Contains(text.String(), "例如没有完整成功") {
		t.Errorf("the text does not give the unrated reason:\n%s", text.String())
	}
	// A side without complete success keeps the general reason.
	none := run(failing(20, 20), "none", o)
	r, err = compare.Compare([]compare.Run{none}, []compare.Run{run(failing(20, 2), "b", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range r.Warnings {
		if w.Kind == compare.WarnNoValue && !strings.Contains(w.Text, "no complete success") {
			t.Errorf("no_value without successes: %q", w.Text)
		}
	}
}

// An unrated side's qualified rate and goodput read as the card reads
// them, "unknown (unrated)", in the table and in each run's values, not
// "missing".
func TestUnratedCellsUseTheCardsWords(t *testing.T) {
	o := compare.Options{Card: cardopts.TTFT(3000), Resamples: 100}
	tr := failing(20, 2)
	for i := range tr.Attempts {
		tr.Attempts[i].Quality = trace.Unrated
	}
	rated := []compare.Run{run(failing(20, 2), "b1", o), run(failing(20, 3), "b2", o)}
	r, err := compare.Compare([]compare.Run{run(tr, "a", o)}, rated, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		for _, c := range compare.Cells(r, l) {
			if strings.HasPrefix(c.Name, "qualified_rate@") || strings.HasPrefix(c.Name, "goodput@") {
				if c.A != cardfmt.UnknownUnrated.In(l) || c.B == cardfmt.UnknownUnrated.In(l) {
					t.Errorf("%v %s: A %q, B %q; want A %q", l, c.Name, c.A, c.B, cardfmt.UnknownUnrated.In(l))
				}
			}
		}
		var text bytes.Buffer
		if err := compare.Write(&text, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text.String(), map[lang.Lang]string{lang.ZH: "缺失", lang.EN: "missing"}[l]) {
			t.Errorf("%v: an unrated value printed as missing:\n%s", l, text.String())
		}
	}
}
