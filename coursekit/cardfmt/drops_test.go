package cardfmt_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// "Why not qualified" lists exactly the checks the condition's rule makes,
// as the JSON card's not_qualified does: a TTFT ∧ TPOT condition with
// quality not judged lists no "E2E over SLO 0 · ITL P95 over SLO 0" (walk
// 35), and no quality reason; one that requires quality lists both. Text
// and Markdown, zh and en.
func TestDropsListTheJudgedReasons(t *testing.T) {
	cases := corpus(t)
	un := unitTrace(t, "trace.jsonl")
	for j := range un.Attempts {
		un.Attempts[j].Quality = trace.Unrated
	}
	cases = append(cases, corpusCase{"tpot only, unrated", metrics.Summarize(un, metrics.Options{SLOsMS: []float64{1300, 1000}, Latency: metrics.LatencySLO{TPOTMS: 12}})})
	names := map[string]lang.Msg{
		"quality_fail":     {"质量不通过", "quality fail"},
		"quality_unrated":  {"未评分", "unrated"},
		"e2e_over_slo":     {"E2E 超过门槛", "E2E over SLO"},
		"itl_p95_over_slo": {"ITL P95 超过门槛", "ITL P95 over SLO"},
		"tpot_over_slo":    {"TPOT 超过门槛", "TPOT over SLO"},
	}
	checked := 0
	for _, c := range cases {
		for _, l := range []lang.Lang{lang.ZH, lang.EN} {
			for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
				var b bytes.Buffer
				if err := cardfmt.WriteLang(&b, c.s, "t.jsonl", f, l); err != nil {
					t.Fatal(err)
				}
				var lines []string
				for _, line := range strings.Split(b.String(), "\n") {
					head := lang.Msg{"未合格原因", "Why not qualified"}.In(l)
					if f == cardfmt.Text && strings.HasPrefix(strings.TrimSpace(line), head+lang.Msg{"：", ":"}.In(l)) ||
						f == cardfmt.Markdown && strings.HasPrefix(line, "| "+head+" |") {
						lines = append(lines, line)
					}
				}
				if f == cardfmt.Markdown { // one row, a cell per condition
					if len(lines) == 0 {
						continue // a table without latency SLOs has no such row
					}
					lines = strings.Split(strings.Trim(lines[0], "| "), " | ")[1:]
				}
				if len(lines) != len(c.s.Conditions) {
					t.Fatalf("%s %v %v: %d drops lines for %d conditions:\n%s", c.name, l, f, len(lines), len(c.s.Conditions), b.String())
				}
				for i, cd := range c.s.Conditions {
					js, _ := json.Marshal(cd.NotQualified)
					var keys map[string]int64
					if err := json.Unmarshal(js, &keys); err != nil {
						t.Fatal(err)
					}
					for key, name := range names {
						_, inJSON := keys[key]
						want := inJSON
						if strings.HasPrefix(key, "quality_") { // the JSON keeps both always
							want = cd.Rule().QualityRequired || keys[key] != 0
						}
						if got := strings.Contains(lines[i], name.In(l)); got != want {
							t.Errorf("%s %v %v condition %s: %q lists %q: %v, want %v", c.name, l, f, cardfmt.CondName(cd), lines[i], name.In(l), got, want)
						}
						checked++
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no drops line checked")
	}
}
