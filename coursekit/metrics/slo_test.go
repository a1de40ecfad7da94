package metrics_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// sloTrace has one attempt per way to drop out of a joint SLO, all
// unrated unless judged adds a quality pass.
func sloTrace(conditions string, judged bool) string {
	lines := []string{
		`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":10000},"conditions":` + conditions + `}`,
		// qualifies: e2e 210, gaps 50 50, tpot (200 − 100)/2 = 50
		`{"attempt":"A1","start_ms":0,"outcome":"ok","events":[{"t_ms":100},{"t_ms":150},{"t_ms":200}],"end_ms":210,"output_tokens":3}`,
		// its own ITL P95 is 300 > 200
		`{"attempt":"A2","start_ms":1000,"outcome":"ok","events":[{"t_ms":1100},{"t_ms":1400}],"end_ms":1420,"output_tokens":2}`,
		// E2E 3000 > 2000 (checked before ITL)
		`{"attempt":"A3","start_ms":2000,"outcome":"ok","events":[{"t_ms":2100},{"t_ms":2200},{"t_ms":4900}],"end_ms":5000,"output_tokens":3}`,
		// failure: stays in the denominator
		`{"attempt":"A4","start_ms":3000,"outcome":"timeout","events":[],"end_ms":4000}`,
		// TTFT 1500 > 1000
		`{"attempt":"A5","start_ms":4000,"outcome":"ok","events":[{"t_ms":5500}],"end_ms":5510,"output_tokens":1}`,
		// one event, one token: no gap and no TPOT to exceed
		`{"attempt":"A6","start_ms":5000,"outcome":"ok","events":[{"t_ms":5100}],"end_ms":5120,"output_tokens":1}`,
		// TPOT (6400 − 6100)/2 = 150 > 100: gaps 150 150 within the ITL SLO, E2E 800
		`{"attempt":"A7","start_ms":6000,"outcome":"ok","events":[{"t_ms":6100},{"t_ms":6250},{"t_ms":6400}],"end_ms":6800,"output_tokens":3}`,
	}
	if judged {
		lines = append(lines, `{"attempt":"A8","start_ms":7000,"outcome":"ok","events":[{"t_ms":7100}],"end_ms":7120,"output_tokens":1,"quality":"pass"}`)
	}
	return strings.Join(lines, "\n") + "\n"
}

var jointSLO = metrics.LatencySLO{E2EMS: 2000, ITLP95MS: 200, TPOTMS: 100}

func TestLatencySLOWithoutJudge(t *testing.T) {
	s, err := metrics.SummarizeReader(strings.NewReader(sloTrace(`{}`, false)), "t.jsonl", metrics.Options{SLOsMS: []float64{1000}, Latency: jointSLO})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Conditions[0]
	if c.Qualified != 2 || c.QualifiedRate.Den != 7 || c.Goodput.Num != 2 || c.Goodput.Den != 10 {
		t.Errorf("qualified %d of %v, goodput %v/%v; want A1 and A6 of 7, 2/10", c.Qualified, c.QualifiedRate.Den, c.Goodput.Num, c.Goodput.Den)
	}
	if d := c.NotQualified; d.NotComplete != 1 || d.QualityFail != 0 || d.QualityUnrated != 0 || d.TTFTOverSLO != 1 || d.E2EOverSLO != 1 || d.ITLOverSLO != 1 || d.TPOTOverSLO != 1 {
		t.Errorf("drops %+v, want 1 not complete and 1 over each SLO", d)
	}
	if c.QualityRule != metrics.QualityNotJudged || c.LatencySLO != jointSLO {
		t.Errorf("rule %q, SLO %+v", c.QualityRule, c.LatencySLO)
	}
	if c.RequestsQualified != 2 {
		t.Errorf("request view: %d qualified, want 2", c.RequestsQualified)
	}
	b, _ := json.Marshal(c)
	for _, k := range []string{`"slo_e2e_ms":2000`, `"slo_itl_p95_ms":200`, `"slo_tpot_ms":100`, `"quality_rule":"not judged: latency only"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("card JSON lacks %s: %s", k, b)
		}
	}
}

// Once any attempt is rated, a judge was asked for: unrated successes drop out.
func TestLatencySLOWithJudge(t *testing.T) {
	s, err := metrics.SummarizeReader(strings.NewReader(sloTrace(`{}`, true)), "t.jsonl", metrics.Options{SLOsMS: []float64{1000}, Latency: jointSLO})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Conditions[0]
	if c.Qualified != 1 || c.NotQualified.QualityUnrated != 6 || c.QualityRule != metrics.QualityJudged || c.RequestsQualified != 1 {
		t.Errorf("qualified %d, unrated drops %d, rule %q, requests %d; want 1, 6, judged, 1", c.Qualified, c.NotQualified.QualityUnrated, c.QualityRule, c.RequestsQualified)
	}
	// A judge asked for (a header that names a dataset, read by
	// coursekit/cardopts), even if nothing was rated.
	s, err = metrics.SummarizeReader(strings.NewReader(sloTrace(`{}`, false)), "t.jsonl", metrics.Options{SLOsMS: []float64{1000}, Latency: jointSLO, Judged: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Conditions[0]; c.Qualified != 0 || c.QualityRule != metrics.QualityJudged {
		t.Errorf("judge asked for: qualified %d, rule %q; want 0, judged", c.Qualified, c.QualityRule)
	}
}

// The TTFT-only condition is unchanged: unrated successes never qualify,
// and the JSON has no new keys.
func TestTTFTOnlyUnchanged(t *testing.T) {
	s, err := metrics.SummarizeReader(strings.NewReader(sloTrace(`{}`, false)), "t.jsonl", metrics.Options{SLOsMS: []float64{1000}})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Conditions[0]
	if c.Qualified != 0 || c.NotQualified.QualityUnrated != 6 {
		t.Errorf("qualified %d, unrated %d; want 0, 6", c.Qualified, c.NotQualified.QualityUnrated)
	}
	b, _ := json.Marshal(c)
	for _, k := range []string{"slo_e2e", "quality_rule", "e2e_over_slo"} {
		if strings.Contains(string(b), k) {
			t.Errorf("TTFT-only JSON has %s: %s", k, b)
		}
	}
}

// A summary uses exactly its options: a recorded conditions.slo is read
// into them by coursekit/cardopts, not by metrics (cardopts_test).
func TestHeaderSLOIsNotReadByMetrics(t *testing.T) {
	h := `{"slo":{"slo_ttft_ms":[1000,500],"slo_e2e_ms":2000}}`
	s, err := metrics.SummarizeReader(strings.NewReader(sloTrace(h, false)), "t.jsonl", metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 1 || s.Conditions[0].SLOTTFTMS != metrics.DefaultSLOMS || s.Conditions[0].LatencySLO.Set() {
		t.Errorf("conditions %+v, want the default TTFT ≤ 1 s alone", s.Conditions)
	}
	// A lone key that is slo_ttft_ms but for case was read as it, and set the card's SLO to
	// 1 ms; other readers see no SLO there. It is refused, located and named.
	s, err = metrics.SummarizeReader(strings.NewReader(sloTrace(`{"slo":{"SLO_TTFT_MS":[1]}}`, false)), "t.jsonl", metrics.Options{})
	if err == nil || !strings.Contains(err.Error(), "t.jsonl:1: conditions.slo.SLO_TTFT_MS") {
		t.Errorf("SLO_TTFT_MS alone: %v, card %+v", err, s)
	}
}

func TestAttemptITLP95IsNearestRank(t *testing.T) {
	// 20 gaps 1..20: nearest rank ceil(0.95*20) = 19th.
	var b strings.Builder
	b.WriteString(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":10000}}` + "\n")
	b.WriteString(`{"attempt":"A","start_ms":0,"outcome":"ok","events":[`)
	at := 0.0
	for i := 0; i <= 20; i++ {
		if i > 0 {
			at += float64(i)
			b.WriteString(",")
		}
		b.WriteString(`{"t_ms":` + formatF(100+at) + `}`)
	}
	b.WriteString(`],"end_ms":1000}` + "\n")
	for _, c := range []struct {
		slo  float64
		want int64
	}{{19, 1}, {18.9, 0}} {
		s, err := metrics.SummarizeReader(strings.NewReader(b.String()), "t.jsonl", metrics.Options{SLOsMS: []float64{1000}, Latency: metrics.LatencySLO{ITLP95MS: c.slo}})
		if err != nil {
			t.Fatal(err)
		}
		if q := s.Conditions[0].Qualified; q != c.want {
			t.Errorf("ITL P95 SLO %v: qualified %d, want %d", c.slo, q, c.want)
		}
	}
}

func formatF(v float64) string { b, _ := json.Marshal(v); return string(b) }

// SLOSet writes conditions.slo in the layout trace's ReadConditions reads:
// every field written comes back.
func TestSLOSetReadsBack(t *testing.T) {
	want := metrics.SLOSet{TTFTMS: []float64{1000, 500}, LatencySLO: metrics.LatencySLO{E2EMS: 2000, ITLP95MS: 200, TPOTMS: 100}}
	b, err := json.Marshal(map[string]any{"slo": want})
	if err != nil {
		t.Fatal(err)
	}
	got, err := metrics.HeaderSLO(&trace.Header{Conditions: b})
	if err != nil || got == nil || !slices.Equal(got.TTFTMS, want.TTFTMS) || got.LatencySLO != want.LatencySLO {
		t.Errorf("%s read back as %+v, %v", b, got, err)
	}
}
