package compare_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// scrapeText is a long description like the one bench writes under
// conditions.metrics_scrape for --metrics-url.
const scrapeText = "one JSON line per scrape every 1s: t_ms on this trace's clock when the GET was sent, dur_ms until the answer was read, values of every gauge and counter by name{labels} (NaN and infinite values left out: JSON has none), or error (a redirect is not followed)"

// The walk's `compare run.jsonl run2.jsonl`, one run with --metrics-url
// and one without, read "Conditions: 2 differ" (metrics_scrape and
// metrics_url) and warned that more than one condition differs: one knob,
// whose scrape description is derived from it, is one condition.
func TestMetricsURLOneCondition(t *testing.T) {
	g := failing(40, 0)
	withURL := `{"max_tokens":8,"metrics_url":"http://127.0.0.1:8099/metrics","metrics_scrape":"` + scrapeText + `"}`
	r := compareConditions(t, g, withURL, `{"max_tokens":8}`)
	changedAlone(t, r, "metrics_url", "metrics_url", "metrics_scrape")
	if w := kindsOf(r)[compare.WarnConditions]; w != "" {
		t.Errorf("one knob warned as several conditions: %q", w)
	}
	for l, want := range map[lang.Lang]string{
		lang.EN: "Conditions: exactly one differs\n  metrics_url (itself, metrics_scrape): A http://127.0.0.1:8099/metrics → B (not recorded)\n",
		lang.ZH: "条件：只有 1 个不同\n  metrics_url（本身、metrics_scrape）：A http://127.0.0.1:8099/metrics → B （未记录）\n",
	} {
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), want) {
			t.Errorf("%v: the report does not say %q:\n%s", l, want, buf.String())
		}
	}
	// The scrape description changed alone (another --metrics-every)
	// stays a condition of its own.
	other := strings.Replace(withURL, "every 1s", "every 2s", 1)
	changedAlone(t, compareConditions(t, g, withURL, other), "metrics_scrape")
}

// A long condition value was cut at 60 characters, mid-word ("on this
// trace's cloc…"), on a line far shorter than the table of metrics under
// it. It may take the room the table's width leaves, and a cut ends at a
// word's end.
func TestLongConditionValueUsesTheTablesRoom(t *testing.T) {
	g := failing(40, 0)
	r := compareConditions(t, g, `{"metrics_scrape":"`+scrapeText+`"}`, `{}`)
	for _, l := range []lang.Lang{lang.EN, lang.ZH} {
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		var line string
		widest := 0
		for _, s := range strings.Split(buf.String(), "\n") {
			if strings.HasPrefix(s, "  metrics_scrape") {
				line = s
			}
			if strings.HasPrefix(s, "ttft_ms.p50 ") {
				widest = utf8.RuneCountInString(s)
			}
		}
		_, v, ok := strings.Cut(line, "A ")
		v, _, _ = strings.Cut(v, " → B")
		if !ok || widest == 0 {
			t.Fatalf("%v: no metrics_scrape line or no table:\n%s", l, buf.String())
		}
		shown, cut := strings.CutSuffix(v, "…")
		if !cut || !strings.HasPrefix(scrapeText, shown) {
			t.Fatalf("%v: value %q is not a cut of the recorded one", l, v)
		}
		if len(shown) <= 60 {
			t.Errorf("%v: value cut at %d characters beside a table %d wide: %q", l, len(shown), widest, v)
		}
		if next := scrapeText[len(shown)]; next != ' ' && next != ',' && next != ':' {
			t.Errorf("%v: value cut inside a word: %q", l, v)
		}
	}
}
