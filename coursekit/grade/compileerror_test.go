package grade

import (
	"os"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/report"
)

// gonbError is a display_data output as GoNB saves a compile error: the
// recorded HTML of docker/test/testdata, with the compiler's words
// replaced by words.
func gonbError(t *testing.T, fixture, words string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../../docker/test/testdata/" + fixture)
	if err != nil {
		t.Fatal(err)
	}
	h := string(b)
	if words != "" {
		h = strings.Replace(h, "missing &#39;,&#39; before newline in composite literal (and 2 more errors)", words, 1)
		h = strings.Replace(h, "missing ',' before newline in composite literal (and 2 more errors)", words, 1)
	}
	return map[string]any{"output_type": "display_data", "metadata": map[string]any{}, "data": map[string]any{"text/html": h}}
}

// A card cell that did not compile in GoNB is graded as a compile error
// naming the line and the compiler's first words, not as "the self-check
// was not run": the learner did run it and saw the error.
func TestCardCellCompileError(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	for _, c := range []struct {
		name, fixture, words string
		want                 []string
	}{
		{"parse", "gonb-parse-error.html", "", []string{"编译错误", "口径卡单元格第 2 行", "missing ',' before newline in composite literal (and 2 more errors)", "自检单元格"}},
		{"build", "gonb-build-error.html", "", []string{"编译错误", "口径卡单元格第 2 行", "declared and not used: z"}},
		{"old card layout", "gonb-parse-error.html", "unknown field P95 in struct literal of type card.Condition", []string{"编译错误", "口径卡单元格第 2 行", "unknown field P95", "旧版口径卡", "只在卡上写一次"}},
		{"markup", "gonb-parse-error.html", "&lt;img src=x onerror=alert(1)&gt; " + strings.Repeat("很长", 200), []string{"编译错误", "<img src=x onerror=alert(1)>", "…"}},
	} {
		nb := edit(t, f.nb["alice"], func(_ map[string]any, cells []any) []any {
			cellByRole(cells, notebook.RoleCard)["source"] = "var myCard = card.Card{\n\tTask: card.InferenceTask\n}\n"
			cellByRole(cells, notebook.RoleCard)["outputs"] = []any{gonbError(t, c.fixture, c.words)}
			return cells
		})
		s := f.g.Grade("alice.ipynb", nb)
		if s.Gradable || s.ReasonCode != "compile_error" {
			t.Errorf("%s: gradable %v, reason %s: %s", c.name, s.Gradable, s.ReasonCode, s.Reason)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(s.Reason, w) {
				t.Errorf("%s: reason lacks %q: %s", c.name, w, s.Reason)
			}
		}
		if strings.Contains(s.Reason, "自检没有运行") || strings.Contains(s.Reason, "<div") || len([]rune(s.Reason)) > 400 {
			t.Errorf("%s: reason %q", c.name, s.Reason)
		}
		if h := feedback.FeedbackHTML(s); strings.Contains(h, "<img src=x") {
			t.Errorf("%s: feedback HTML holds the compiler's words unescaped", c.name)
		}
		if sm := report.Summarize(batch.NewBatch(f.roster, nil, []*grader.Submission{s})).Markdown(); !strings.Contains(sm, "编译错误") {
			t.Errorf("%s: summary does not name the reason:\n%s", c.name, sm)
		}
	}
}
