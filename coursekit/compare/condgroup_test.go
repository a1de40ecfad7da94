package compare_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// A condition is counted once, however many of its keys differ:
// prefix_reuse is a string in one bench mode ("none") and an object in
// dataset mode, and the walk's "17 differ" counted that one change four
// times. Its row names the keys that differ. A value a side does not
// record prints as such, never as "none", which a recorded value can be
// (the walk read "prefix_reuse: A none → B none").
func TestConditionCountedOnce(t *testing.T) {
	o := compare.Options{}
	o.Card.TTFTMS = []float64{1000} // not each run's recorded SLOs
	g := failing(40, 4)
	a := run(withConditions(g, `{"max_tokens":8,"prefix_reuse":{"mode":"dataset","salted":false},"slo":{"slo_ttft_ms":[1000],"slo_e2e_ms":2000}}`), "a.jsonl", o)
	b := run(withConditions(g, `{"max_tokens":32,"prefix_reuse":"none","slo":{"slo_ttft_ms":[1000]},"engine":{"parallel":1}}`), "b.jsonl", o)
	r, err := compare.Compare([]compare.Run{a}, []compare.Run{b}, o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range r.ConditionsChanged {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"engine.parallel", "max_tokens", "prefix_reuse"}) || len(r.RecordedSLOs) != 1 || r.RecordedSLOs[0].Name != "slo.slo_e2e_ms" {
		t.Fatalf("changed conditions %v, recorded SLOs differ %v: want engine.parallel, max_tokens, prefix_reuse once, and slo.slo_e2e_ms apart (a judgement)", names, r.RecordedSLOs)
	}
	pr := r.ConditionsChanged[2]
	if string(pr.A) != `{"mode":"dataset","salted":false}` || string(pr.B) != `"none"` || !slices.Equal(pr.Keys, []string{"prefix_reuse", "prefix_reuse.mode", "prefix_reuse.salted"}) {
		t.Errorf("prefix_reuse: %s → %s, keys %v", pr.A, pr.B, pr.Keys)
	}
	for l, want := range map[lang.Lang][]string{
		lang.EN: {"Conditions: 3 differ", "engine.parallel: A (not recorded) → B 1", `prefix_reuse (itself, mode, salted): A {"mode":"dataset","salted":false} → B none`, "slo.slo_e2e_ms: A 2000 → B (not recorded)", "judged under one set, the one given (--slo-* flags)"},
		lang.ZH: {"条件：有 3 个不同", "engine.parallel：A （未记录） → B 1"},
	} {
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%v: the report does not say %q:\n%s", l, w, buf.String())
			}
		}
	}
}

// The third fresh walk: `--prompt-reuse same` gave "2 differ"
// (prefix_reuse and prompt) and `--prompt-tokens 64` counted prompt and
// prompt_tokens apart, though bench derives conditions.prompt from them:
// one change each, the derived prompt listed among its keys.
func TestDerivedPromptFoldsIntoItsCondition(t *testing.T) {
	g := failing(40, 0)
	for _, c := range []struct {
		a, b, name string
		keys       []string
	}{
		{`{"prompt_tokens":32,"prompt":"32 whitespace words: the request's key","prefix_reuse":"none"}`,
			`{"prompt_tokens":32,"prompt":"32 whitespace words: the salt, then filler","prefix_reuse":{"mode":"same","shared":"the whole prompt"}}`,
			"prefix_reuse", []string{"prefix_reuse", "prefix_reuse.mode", "prefix_reuse.shared", "prompt"}},
		{`{"prompt_tokens":32,"prompt":"32 whitespace words: the request's key","prefix_reuse":"none"}`,
			`{"prompt_tokens":64,"prompt":"64 whitespace words: the request's key","prefix_reuse":"none"}`,
			"prompt_tokens", []string{"prompt_tokens", "prompt"}},
	} {
		r := compareConditions(t, g, c.a, c.b)
		changedAlone(t, r, c.name, c.keys...)
		if w := kindsOf(r)[compare.WarnConditions]; w != "" {
			t.Errorf("one change warned as several: %q", w)
		}
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, lang.EN); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "Conditions: exactly one differs") || !strings.Contains(buf.String(), ", prompt): A ") {
			t.Errorf("the report does not say one condition differs, its keys with prompt:\n%s", buf.String())
		}
	}
	// A prompt changed alone stays a condition of its own.
	changedAlone(t, compareConditions(t, g, `{"prompt":"x"}`, `{"prompt":"y"}`), "prompt")
}

// The third fresh walk: two long condition values cut at 60 characters
// printed alike, hiding the difference. The text shows both from shortly
// before the place they differ.
func TestLongConditionValuesShowTheirDifference(t *testing.T) {
	o := compare.Options{}
	g := failing(40, 0)
	long := strings.Repeat("the same long description of how a prompt is made, ", 3)
	r, err := compare.Compare(
		[]compare.Run{run(withConditions(g, `{"prompt":"`+long+`then the request id"}`), "a.jsonl", o)},
		[]compare.Run{run(withConditions(g, `{"prompt":"`+long+`then filler"}`), "b.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := compare.Write(&buf, r, cardfmt.Text, lang.EN); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "is made, then the request id → B …") || !strings.Contains(buf.String(), "is made, then filler\n") {
		t.Errorf("the long values' difference is not shown:\n%s", buf.String())
	}
}
