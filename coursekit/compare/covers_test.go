package compare_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// With one run on a side, the caveat that the intervals leave out the
// variance between runs stands directly above the table, and the verdict
// column says what it judged, in both languages; the JSON names for every
// metric what its interval covers.
func TestOneRunCaveatStandsByTheVerdicts(t *testing.T) {
	o := compare.Options{Resamples: 100}
	one := func(name string) compare.Run { return run(failing(40, 4), name, o) }
	for _, c := range []struct {
		a, b   []compare.Run
		covers string
		caveat map[lang.Lang]string
	}{
		{[]compare.Run{one("a")}, []compare.Run{one("b")}, compare.CoversAttempts,
			map[lang.Lang]string{lang.EN: "One run per side", lang.ZH: "每边只有 1 次运行"}},
		{[]compare.Run{one("a1"), run(failing(40, 6), "a2", o)}, []compare.Run{one("b")}, compare.CoversRunsOfA,
			map[lang.Lang]string{lang.EN: "B has one run only", lang.ZH: "B 只有 1 次运行"}},
		{[]compare.Run{one("a1"), run(failing(40, 6), "a2", o)}, []compare.Run{one("b1"), run(failing(40, 2), "b2", o)}, compare.CoversRuns, nil},
	} {
		r, err := compare.Compare(c.a, c.b, o)
		if err != nil {
			t.Fatal(err)
		}
		for l, caveat := range c.caveat {
			var b bytes.Buffer
			if err := compare.Write(&b, r, cardfmt.Text, l); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(b.String(), "\n")
			for i, line := range lines {
				if !strings.HasPrefix(line, map[lang.Lang]string{lang.EN: "metric ", lang.ZH: "指标 "}[l]) {
					continue
				}
				if i < 2 || !strings.Contains(lines[i-2], caveat) {
					t.Errorf("%s: the line above the table is %q, want the caveat %q:\n%s", l, lines[max(0, i-2)], caveat, b.String())
				}
				if want := map[lang.Lang]string{lang.EN: "verdict (within-run noise only)", lang.ZH: "结论（只计运行内波动）"}[l]; !strings.HasSuffix(line, want) {
					t.Errorf("%s: header %q, want it to end %q", l, line, want)
				}
			}
		}
		var js bytes.Buffer
		if err := compare.Write(&js, r, cardfmt.JSON, lang.EN); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Metrics []struct{ Name, Covers string }
		}
		if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		for _, m := range doc.Metrics {
			if m.Covers != c.covers {
				t.Errorf("%d vs %d runs: %s covers %q, want %q", len(c.a), len(c.b), m.Name, m.Covers, c.covers)
			}
		}
	}
}
