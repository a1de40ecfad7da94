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

// When the runs of one side differ among themselves, the text, markdown
// and JSON list every differing key on its own (engine.parallel and
// engine.threads apart, not one merged line), each with every run's value
// in the order of the side's traces, in both languages. A run that records
// a condition in another shape (prefix_reuse as an object where the
// others say "itself") shows its value there, not "(not recorded)".
func TestRunsDifferKeyByKey(t *testing.T) {
	g := failing(20, 2)
	o := compare.Options{Resamples: 20}
	a := []compare.Run{
		run(withConditions(g, `{"model":"m1","engine":{"parallel":1,"threads":1},"prefix_reuse":"itself"}`), "a1.jsonl", o),
		run(withConditions(g, `{"model":"m1","engine":{"parallel":2,"threads":1},"prefix_reuse":{"mode":"salted","n":3}}`), "a2.jsonl", o),
		run(withConditions(g, `{"model":"m2","engine":{"parallel":2,"threads":4},"prefix_reuse":"itself"}`), "a3.jsonl", o),
	}
	b := []compare.Run{
		run(withConditions(g, `{"model":"m1","engine":{"parallel":4,"threads":1},"prefix_reuse":"itself"}`), "b1.jsonl", o),
		run(withConditions(g, `{"model":"m1","engine":{"parallel":4,"threads":1},"prefix_reuse":"itself","x":1}`), "b2.jsonl", o),
	}
	r, err := compare.Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	const obj = `{"mode":"salted","n":3}`
	type line struct{ key, en, zh string }
	lines := []line{
		{"engine.parallel", "1 · 2 · 2", "1 · 2 · 2"},
		{"engine.threads", "1 · 1 · 4", "1 · 1 · 4"},
		{"model", "m1 · m1 · m2", "m1 · m1 · m2"},
		{"prefix_reuse", "itself · " + obj + " · itself", "itself · " + obj + " · itself"},
		{"prefix_reuse.mode", "(not recorded) · salted · (not recorded)", "（未记录） · salted · （未记录）"},
		{"prefix_reuse.n", "(not recorded) · 3 · (not recorded)", "（未记录） · 3 · （未记录）"},
		{"x", "(not recorded) · 1", "（未记录） · 1"},
	}
	for _, c := range []struct {
		f      cardfmt.Format
		l      lang.Lang
		bullet string
		heads  []string
	}{
		{cardfmt.Text, lang.EN, "  ", []string{"the runs of A (3 of them) differ among themselves", "the runs of B (2 of them) differ among themselves"}},
		{cardfmt.Text, lang.ZH, "  ", []string{"A 的 3 次运行之间条件不一致", "B 的 2 次运行之间条件不一致"}},
		{cardfmt.Markdown, lang.EN, "- ", []string{"the runs of A (3 of them) differ among themselves", "the runs of B (2 of them) differ among themselves"}},
		{cardfmt.Markdown, lang.ZH, "- ", []string{"A 的 3 次运行之间条件不一致", "B 的 2 次运行之间条件不一致"}},
	} {
		var out bytes.Buffer
		if err := compare.Write(&out, r, c.f, c.l); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		for _, h := range c.heads {
			if !strings.Contains(s, h) {
				t.Errorf("%s %v lacks %q:\n%s", c.f, c.l, h, s)
			}
		}
		// A's lines come after A's warning, B's after B's, one key a line.
		after := s[strings.Index(s, c.heads[0]):]
		for _, ln := range lines {
			sep, v := ": ", ln.en
			if c.l == lang.ZH {
				sep, v = "：", ln.zh
			}
			want := "\n" + c.bullet + ln.key + sep + v + "\n"
			if !strings.Contains(after, want) {
				t.Errorf("%s %v: no line %q:\n%s", c.f, c.l, strings.TrimSpace(want), s)
			}
		}
		if i, j := strings.Index(s, c.heads[1]), strings.LastIndex(s, "\n"+c.bullet+"x"+map[lang.Lang]string{lang.EN: ": ", lang.ZH: "："}[c.l]); i < 0 || j < i {
			t.Errorf("%s %v: B's differing key is not under B's warning:\n%s", c.f, c.l, s)
		}
	}
	var js bytes.Buffer
	if err := compare.Write(&js, r, cardfmt.JSON, lang.EN); err != nil {
		t.Fatal(err)
	}
	var back struct {
		RunsDiffer []struct {
			Side   string            `json:"side"`
			Name   string            `json:"name"`
			Values []json.RawMessage `json:"values"`
		} `json:"runs_differ"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a engine.parallel":   `[1,2,2]`,
		"a engine.threads":    `[1,1,4]`,
		"a model":             `["m1","m1","m2"]`,
		"a prefix_reuse":      `["itself",` + obj + `,"itself"]`,
		"a prefix_reuse.mode": `[null,"salted",null]`,
		"a prefix_reuse.n":    `[null,3,null]`,
		"b x":                 `[null,1]`,
	}
	if len(back.RunsDiffer) != len(want) {
		t.Errorf("runs_differ has %d entries, want %d (one a key): %s", len(back.RunsDiffer), len(want), js.String())
	}
	for _, d := range back.RunsDiffer {
		var compact bytes.Buffer
		vs, _ := json.Marshal(d.Values)
		json.Compact(&compact, vs)
		if w, ok := want[d.Side+" "+d.Name]; !ok || compact.String() != w {
			t.Errorf("runs_differ %s %s: values %s, want %s", d.Side, d.Name, compact.String(), w)
		}
	}
}
