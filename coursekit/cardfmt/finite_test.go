package cardfmt_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Valid traces whose derived numbers overflow a float64: a window of
// 5e-324 ms (every rate over it is infinite or 0/0) and latencies and a
// window cost near the largest float. The JSON card still prints, each
// such number is null and named in "not_finite"; the text card says the
// value overflowed instead of printing +Inf or NaN.
func TestCardWithOverflowingNumbers(t *testing.T) {
	const max = "1.7976931348623157e308"
	for name, lines := range map[string][]string{
		"tiny window": {
			`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":5e-324}}`,
			`{"attempt":"a1","start_ms":0,"outcome":"ok","quality":"pass","events":[{"t_ms":0}],"end_ms":4e-324,"output_tokens":3}`,
		},
		"short window": {
			`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1e-310}}`,
			`{"attempt":"a1","start_ms":0,"outcome":"ok","quality":"pass","events":[{"t_ms":0}],"end_ms":1e-320,"output_tokens":3}`,
		},
		"huge times and cost": {
			`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000},"window_cost":` + max + `}`,
			`{"attempt":"a1","start_ms":0,"outcome":"ok","quality":"pass","events":[{"t_ms":1e308},{"t_ms":` + max + `}],"end_ms":` + max + `,"output_tokens":2}`,
			`{"attempt":"a2","start_ms":1,"outcome":"ok","quality":"pass","events":[{"t_ms":2}],"end_ms":3,"output_tokens":2}`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := trace.Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), "t.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []metrics.Method{metrics.NearestRank, metrics.Linear} {
				s := metrics.Summarize(tr, metrics.Options{Method: m, SLOsMS: []float64{1000, math.MaxFloat64}})
				var b bytes.Buffer
				if err := cardfmt.Write(&b, s, "t.jsonl", cardfmt.JSON); err != nil {
					t.Fatalf("%s: JSON card: %v", m, err)
				}
				var v map[string]any
				if err := json.Unmarshal(b.Bytes(), &v); err != nil {
					t.Fatalf("%s: JSON card is not JSON: %v", m, err)
				}
				nf, _ := v["not_finite"].(map[string]any)
				if fields, _ := nf["fields"].([]any); len(fields) == 0 || nf["note"] == "" {
					t.Errorf("%s: no not_finite note naming the fields: %v", m, v["not_finite"])
				}
				for _, l := range []lang.Lang{lang.ZH, lang.EN} {
					for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
						b.Reset()
						if err := cardfmt.WriteLang(&b, s, "t.jsonl", f, l); err != nil {
							t.Fatal(err)
						}
						out := b.String()
						if strings.Contains(out, "Inf") || strings.Contains(out, "NaN") {
							t.Errorf("%s %s %s card prints Inf or NaN:\n%s", m, l, f, out)
						}
						if note := map[lang.Lang]string{lang.ZH: "不是有限数", lang.EN: "are not finite"}[l]; !strings.Contains(out, note) {
							t.Errorf("%s %s %s card does not say a number overflowed:\n%s", m, l, f, out)
						}
					}
				}
			}
		})
	}
}

// The header's clock and currency are shown as text in the Markdown card (the attacker walk's
// <img onerror> in both reached the page raw).
func TestMarkdownEscapesHeaderText(t *testing.T) {
	evil := `<img src=x onerror=alert(1)>`
	wc := 3.6
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: evil, Currency: evil, WindowCost: &wc,
		Window: trace.Window{StartMS: 0, EndMS: 1000}}}
	s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}})
	var b strings.Builder
	if err := cardfmt.Write(&b, s, "t.jsonl", cardfmt.Markdown); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<img") {
		t.Errorf("raw HTML in the Markdown card:\n%s", b.String())
	}
}

// The JSON card writes the trace's C1 controls and bidi overrides (in the
// clock, the currency, the conditions and the source's name) as \u escapes:
// encoding/json may leave them raw, and a terminal acts on them (the
// attacker walk's CSI in the clock).
func TestJSONCardEscapesSpoofingCharacters(t *testing.T) {
	const evil = "c\u009b2J\u202eok\u2066\u0085"
	tr, err := trace.Read(strings.NewReader(`{"trace":"llm-serving/v1","clock":"`+evil+`","window":{"start_ms":0,"end_ms":1000},"window_cost":1,"currency":"`+evil+`","conditions":{"note":"`+evil+`"}}`+"\n"+
		`{"attempt":"a1","start_ms":0,"outcome":"ok","quality":"pass","events":[{"t_ms":10}],"end_ms":20}`+"\n"), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}})
	var b bytes.Buffer
	if err := cardfmt.Write(&b, s, evil+".jsonl", cardfmt.JSON); err != nil {
		t.Fatal(err)
	}
	for _, r := range "\u009b\u202e\u2066\u0085" {
		if strings.ContainsRune(b.String(), r) {
			t.Errorf("U+%04X raw in the JSON card:\n%s", r, b.String())
		}
	}
	var got struct {
		Clock      string            `json:"clock"`
		Currency   string            `json:"currency"`
		Conditions map[string]string `json:"trace_conditions"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Clock != evil || got.Currency != evil || got.Conditions["note"] != evil {
		t.Errorf("the escapes do not decode to the trace's strings: %+v", got)
	}
}

// The JSON card's not_qualified lists every reason the condition judges,
// a zero count included, and no reason of an SLO it does not have; the
// card's encoder and encoding/json write the same members.
func TestNotQualifiedListsEveryJudgedReason(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lat  metrics.LatencySLO
		want []string
	}{
		{metrics.LatencySLO{}, nil},
		{metrics.LatencySLO{E2EMS: 1e6}, []string{"e2e_over_slo"}},
		{metrics.LatencySLO{ITLP95MS: 1e6, TPOTMS: 1e6}, []string{"itl_p95_over_slo", "tpot_over_slo"}},
	} {
		s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}, Latency: c.lat})
		d := s.Conditions[0].NotQualified
		if d.E2EOverSLO+d.ITLOverSLO+d.TPOTOverSLO != 0 {
			t.Fatalf("%+v: a latency SLO dropped attempts; the test wants zeros: %+v", c.lat, d)
		}
		card, err := cardfmt.JSONIndent(s)
		if err != nil {
			t.Fatal(err)
		}
		std, err := json.Marshal(s.Conditions[0])
		if err != nil {
			t.Fatal(err)
		}
		var whole struct {
			Conditions []struct {
				NotQualified map[string]any `json:"not_qualified"`
			} `json:"conditions"`
		}
		var one struct {
			NotQualified map[string]any `json:"not_qualified"`
		}
		if err := json.Unmarshal(card, &whole); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(std, &one); err != nil {
			t.Fatal(err)
		}
		for view, nq := range map[string]map[string]any{"card JSON": whole.Conditions[0].NotQualified, "encoding/json": one.NotQualified} {
			for _, r := range []string{"e2e_over_slo", "itl_p95_over_slo", "tpot_over_slo"} {
				v, has := nq[r]
				if want := strings.Contains(strings.Join(c.want, ","), r); has != want || has && v != 0.0 {
					t.Errorf("%+v, %s: not_qualified.%s = %v (present %v), want present %v with 0", c.lat, view, r, v, has, want)
				}
			}
		}
	}
}
