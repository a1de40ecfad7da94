package compare_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// startedAt is tr with its header's meta.started_at set to at.
func startedAt(tr *trace.Trace, at string) *trace.Trace {
	out := *tr
	out.Header.Meta = json.RawMessage(`{"started_at":"` + at + `"}`)
	return &out
}

// kindsOf are r's warnings by kind.
func kindsOf(r *compare.Result) map[string]string {
	out := map[string]string{}
	for _, w := range r.Warnings {
		out[w.Kind] += w.Text
	}
	return out
}

// A run whose client was late to wake carries the card's note into the
// comparison, naming the run; and when every A run started before every B
// run, the comparison warns that a drift between them reads as a
// difference. Both come before the table, in text, Markdown and JSON.
func TestCompareCarriesClientLagAndRunOrder(t *testing.T) {
	o := compare.Options{Resamples: 100}
	late := failing(40, 0)
	for i := range late.Attempts {
		late.Attempts[i].Meta = json.RawMessage(`{"client_lag_ms":30}`)
	}
	a1 := run(startedAt(late, "2026-12-05T06:00:00.000000Z"), "a1.jsonl", o)
	a2 := run(startedAt(failing(40, 0), "2026-12-05T06:01:00.000000Z"), "a2.jsonl", o)
	b1 := run(startedAt(failing(40, 0), "2026-12-05T06:02:00.000000Z"), "b1.jsonl", o)
	b2 := run(startedAt(failing(40, 0), "2026-12-05T06:03:00.000000Z"), "b2.jsonl", o)
	r, err := compare.Compare([]compare.Run{a1, a2}, []compare.Run{b1, b2}, o)
	if err != nil {
		t.Fatal(err)
	}
	w := kindsOf(r)
	if lag := w[compare.WarnClientLag]; !strings.Contains(lag, "the measuring client itself was late") || !strings.Contains(lag, "a1.jsonl") || strings.Contains(lag, "a2.jsonl") {
		t.Errorf("client_lag warning %q: want the card's note naming a1.jsonl only", lag)
	}
	if got := w[compare.WarnOrder]; !strings.Contains(got, "A ran entirely before B") || !strings.Contains(got, "alternate A and B") {
		t.Errorf("run_order warning %q", got)
	}
	for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
		for _, l := range []lang.Lang{lang.EN, lang.ZH} {
			var b bytes.Buffer
			if err := compare.Write(&b, r, f, l); err != nil {
				t.Fatal(err)
			}
			s := b.String()
			table := strings.Index(s, "ttft_ms.p50")
			for _, want := range map[lang.Lang][]string{lang.EN: {"the measuring client itself was late", "A ran entirely before B"}, lang.ZH: {"测量客户端自己迟到了", "A 全部在 B 之前运行"}}[l] {
				if i := strings.Index(s, want); i < 0 || i > table {
					t.Errorf("%v %s: %q not before the table:\n%s", f, l, want, s)
				}
			}
		}
	}
	var js bytes.Buffer
	if err := compare.Write(&js, r, cardfmt.JSON, lang.EN); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{compare.WarnClientLag, compare.WarnOrder} {
		if !strings.Contains(js.String(), `"kind": "`+k+`"`) {
			t.Errorf("JSON lacks warning %s", k)
		}
	}
	// Interleaved runs (A, B, A, B), and runs without a start, draw no
	// order warning; punctual clients no lag warning.
	b1 = run(startedAt(failing(40, 0), "2026-12-05T06:00:30.000000Z"), "b1.jsonl", o)
	for _, sides := range [][2][]compare.Run{
		{{a1, a2}, {b1, b2}},
		{{run(failing(40, 0), "a.jsonl", o)}, {run(failing(40, 0), "b.jsonl", o)}},
	} {
		r, err := compare.Compare(sides[0], sides[1], o)
		if err != nil {
			t.Fatal(err)
		}
		if w := kindsOf(r)[compare.WarnOrder]; w != "" {
			t.Errorf("order warning on interleaved or undated runs: %q", w)
		}
	}
	r, err = compare.Compare([]compare.Run{a2}, []compare.Run{b2}, o)
	if err != nil {
		t.Fatal(err)
	}
	if w := kindsOf(r)[compare.WarnClientLag]; w != "" {
		t.Errorf("client_lag warning on punctual runs: %q", w)
	}
}

// The order warning fires whichever side ran first, and names it: B's
// runs all before A's (the third fresh walk's `compare s1-4 s1-5 s1-6 --
// s1-1 s1-2 s1-3`) drift as much as A's before B's.
func TestRunOrderWarnsWhicheverSideRanFirst(t *testing.T) {
	o := compare.Options{Resamples: 100}
	at := func(name, when string) compare.Run {
		return run(startedAt(failing(40, 0), "2026-12-05T06:0"+when+":00.000000Z"), name, o)
	}
	a := []compare.Run{at("s1-4", "3"), at("s1-5", "4"), at("s1-6", "5")}
	b := []compare.Run{at("s1-1", "0"), at("s1-2", "1"), at("s1-3", "2")}
	for _, c := range []struct {
		a, b   []compare.Run
		en, zh string
	}{
		{a, b, "B ran entirely before A", "B 全部在 A 之前运行"},
		{b, a, "A ran entirely before B", "A 全部在 B 之前运行"},
	} {
		r, err := compare.Compare(c.a, c.b, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := kindsOf(r)[compare.WarnOrder]; !strings.Contains(got, c.en) {
			t.Errorf("run_order warning %q, want %q", got, c.en)
		}
		var zh bytes.Buffer
		if err := compare.Write(&zh, r, cardfmt.Text, lang.ZH); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(zh.String(), c.zh) {
			t.Errorf("zh report lacks %q:\n%s", c.zh, zh.String())
		}
	}
}
