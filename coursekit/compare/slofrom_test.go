package compare_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// Without --slo-* flags, compare judges every run under the first A
// trace's recorded SLOs. A B run recorded under others is told so, naming
// that run, not that flags (none were given) replaced its SLOs; with flags
// the card's own note stays.
func TestSLOsFromTheFirstRunAreNotBlamedOnFlags(t *testing.T) {
	dir := t.TempDir()
	g := failing(20, 2)
	a := writeTrace(t, dir, "a.jsonl", withConditions(g, `{"slo":{"slo_ttft_ms":[1000]}}`))
	b := writeTrace(t, dir, "b.jsonl", withConditions(g, `{"slo":{"slo_ttft_ms":[1000],"slo_e2e_ms":2000}}`))
	r, err := compare.Files([]string{a}, []string{b}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var dropped []string
	for _, w := range r.Warnings {
		if w.Kind == compare.WarnSLODropped {
			dropped = append(dropped, w.Text)
		}
	}
	if len(dropped) != 1 || !strings.Contains(dropped[0], "the SLOs of the first A run ("+a+")") {
		t.Errorf("JSON warnings: %q", dropped)
	}
	for _, c := range []struct {
		l         lang.Lang
		want, not string
	}{
		{lang.EN, "no --slo-* flag was given, so every run is judged under the SLOs of the first A run (" + a + ")", "--slo-* flags replace"},
		{lang.ZH, "没有给 --slo-*，所以每次运行都按第一个 A 运行（" + a + "）记录的门槛判定", "命令行的 --slo-* 会替换"},
	} {
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, c.l); err != nil {
			t.Fatal(err)
		}
		if out := buf.String(); !strings.Contains(out, c.want) || strings.Contains(out, c.not) || !strings.Contains(out, b) {
			t.Errorf("%s: want %q (naming %s), not %q:\n%.1500s", c.l, c.want, b, c.not, out)
		}
	}
}
