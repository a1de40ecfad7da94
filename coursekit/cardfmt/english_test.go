package cardfmt_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The English text and Markdown cards of the whole corpus (the unit's
// traces, a bench trace with failures, latency SLOs, throughput rows,
// every note) have no Chinese character and no full-width punctuation.
func TestEnglishCardsHaveNoChinese(t *testing.T) {
	for _, c := range corpus(t) {
		for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
			var b bytes.Buffer
			if err := cardfmt.WriteLang(&b, c.s, c.name, f, lang.EN); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if i, r := lang.FirstCJK(out); i >= 0 {
				line := out[strings.LastIndex(out[:i], "\n")+1:]
				line, _, _ = strings.Cut(line, "\n")
				t.Errorf("%s %s card: %q in English:\n%s", c.name, f, r, line)
			}
			for _, want := range []string{"Failure rate", "Throughput", "TTFT"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s %s card lacks %q:\n%s", c.name, f, want, out)
				}
			}
		}
	}
}

// JSON is language-neutral: the same bytes in both languages.
func TestJSONCardIgnoresLang(t *testing.T) {
	for _, c := range corpus(t) {
		var zh, en bytes.Buffer
		errZH := cardfmt.WriteLang(&zh, c.s, c.name, cardfmt.JSON, lang.ZH)
		errEN := cardfmt.WriteLang(&en, c.s, c.name, cardfmt.JSON, lang.EN)
		if fmt.Sprint(errZH) != fmt.Sprint(errEN) || zh.String() != en.String() {
			t.Errorf("%s: JSON card differs between zh and en (errors %v, %v)", c.name, errZH, errEN)
		}
		if errEN == nil && !json.Valid(en.Bytes()) {
			t.Errorf("%s: invalid JSON", c.name)
		}
	}
}
