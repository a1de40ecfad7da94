package grade

import (
	"encoding/csv"
	"fmt"
	"html"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/report"
	"github.com/llmperf-course/course/coursekit/grade/review"
	"github.com/llmperf-course/course/coursekit/grade/roster"
)

func csvQuote(s string) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write([]string{s})
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// checkClassNames: the class report and summary.md name everyone (the
// learner who handed in nothing, the file with no known learner, every
// ungradable file), the per-learner table has a row per learner, and the
// copied free text is a finding for both, naming the other, that changes
// no score. TestClassReport's class: olga hands in nothing, one file has
// no learner, ivan copies alice's card, bob and carol share a short answer.
func checkClassNames(t *testing.T, b *batch.Batch, page, summary string, ids []string) {
	t.Helper()
	olga := "olga（" + html.EscapeString(hostileName) + "）"
	unknown := "unknown-1：" + html.EscapeString(xssName)
	for _, w := range []string{"没有提交的 1 人：" + olga, unknown, "nick/06-deliverable.ipynb", "文件不完整", "ken/06-deliverable.ipynb", "自检没有运行",
		`id="class_learners"`, "文字题答案完全相同（5 组）", "alice、ivan", html.EscapeString("<script>alert(2)</script>")} {
		if !strings.Contains(page, w) {
			t.Errorf("class.html lacks %q", w)
		}
	}
	// One row per learner in the sortable table, with the name escaped.
	tbl := page[strings.Index(page, `id="class_learners"`):]
	tbl = tbl[:strings.Index(tbl, "</table>")]
	if n := strings.Count(tbl, "<tr>") - 1; n != len(ids)+1 {
		t.Errorf("learner table: %d rows, want %d (every learner and the unknown file)", n, len(ids)+1)
	}
	for _, id := range append(ids, "unknown-1") {
		if !strings.Contains(tbl, `">`+id+`</td>`) {
			t.Errorf("learner table has no row for %s", id)
		}
	}
	for _, w := range []string{html.EscapeString(hostileName), "艾丽斯", "没有提交", "无法评分：自检没有运行", "已评分"} {
		if !strings.Contains(tbl, w) {
			t.Errorf("learner table lacks %q", w)
		}
	}
	if i := strings.Index(tbl, `">ivan</td>`); i < 0 || !strings.Contains(tbl[i:], "疑似抄袭") {
		t.Error("learner table: ivan's row does not say the numbers are copied")
	}
	if !strings.Contains(page, "<script>\n(function () {") {
		t.Error("the learner table has no inline sort script")
	}
	for _, w := range []string{"olga", "unknown-1", "没有提交的学习者", "认不出学习者的文件", "nick/06-deliverable.ipynb", "文字题答案完全相同", "alice、ivan"} {
		if !strings.Contains(summary, w) {
			t.Errorf("summary.md lacks %q", w)
		}
	}
	if strings.Contains(summary, "<img src") || strings.Contains(summary, "<script>") {
		t.Error("summary.md holds markup unescaped")
	}
	sh := report.Summarize(b).HTML()
	for _, w := range []string{olga, "unknown-1：" + html.EscapeString(xssName), "nick/06-deliverable.ipynb", "ken/06-deliverable.ipynb", "alice、ivan"} {
		if !strings.Contains(sh, w) {
			t.Errorf("summary.html lacks %q", w)
		}
	}
	if strings.Contains(sh, "<img src") || strings.Contains(sh, "<script>") {
		t.Error("summary.html holds markup unescaped")
	}
	for id, other := range map[string]string{"alice": "ivan", "ivan": "alice"} {
		f := findingOf(b.Chosen[id], batch.FindSameAnswer)
		if f == nil || !strings.Contains(f.Message, other) || f.Warn || !f.Private {
			t.Errorf("%s: same-answer finding %+v, want a private info finding naming %s", id, f, other)
		}
		// Private: the learner's feedback neither names the other nor
		// says the answers are the same.
		if md := feedback.FeedbackMarkdown(b.Chosen[id]); strings.Contains(md, "一字不差") || strings.Contains(md, other) {
			t.Errorf("%s's feedback names the same-answer finding", id)
		}
	}
	for _, id := range []string{"bob", "carol", "dave"} {
		if f := findingOf(b.Chosen[id], batch.FindSameAnswer); f != nil {
			t.Errorf("%s: same-answer finding %q for a short or own answer", id, f.Message)
		}
	}
	// The reader sees it next to the answer in manual-review.csv.
	var mr strings.Builder
	if err := report.WriteManualCSV(b, &mr); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(mr.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	notes := 0
	for _, r := range rows[1:] {
		if strings.HasPrefix(r[9], review.GradeNoteMark+"与 ") {
			notes++
			if (r[0] != "alice" && r[0] != "ivan") || !strings.Contains(r[9], map[string]string{"alice": "ivan", "ivan": "alice"}[r[0]]) {
				t.Errorf("manual-review.csv: note %q on %s %s", r[9], r[0], r[1])
			}
		}
	}
	if notes != 10 {
		t.Errorf("manual-review.csv: %d same-answer notes, want 10 (alice's and ivan's five answers)", notes)
	}
	// The finding changes no score: alice scores as carol, another right card.
	if a, c := b.Chosen["alice"], b.Chosen["carol"]; a.Total != c.Total || a.Max != c.Max {
		t.Errorf("alice %v/%v, carol %v/%v: the same-answer finding changed a score", a.Total, a.Max, c.Total, c.Max)
	}
}

func findingOf(s *grader.Submission, code string) *integrity.Finding {
	if s == nil {
		return nil
	}
	for i := range s.Integrity {
		if s.Integrity[i].Code == code {
			return &s.Integrity[i]
		}
	}
	return nil
}

// Whitespace does not hide a copy; a short answer is never one.
func TestSameAnswers(t *testing.T) {
	ro, err := roster.NewRoster("a", "b", "c", "d")
	if err != nil {
		t.Fatal(err)
	}
	long := "删掉失败请求后只在成功请求里数失败，分母错了。"
	mk := func(id string, texts ...string) *grader.Submission {
		s := &grader.Submission{Learner: id, Name: filepath.Join(id, "06-deliverable.ipynb"), Gradable: true}
		for i, x := range texts {
			s.Manual = append(s.Manual, grader.ManualItem{Learner: id, ID: []string{"text.denominator", "text.uncertain"}[i], Title: "题", Text: x})
		}
		return s
	}
	b := batch.NewBatch(ro, nil, []*grader.Submission{
		mk("a", long, "同上"),
		mk("b", "  删掉失败请求后只在成功请求里数失败，\n\n分母错了。 ", "同上"),
		mk("c", "我自己的话：分母应当是全部尝试，而不是成功的请求。", "同上"),
		mk("d", "", ""),
	})
	if len(b.Same) != 1 || strings.Join(b.Same[0].Learners, ",") != "a,b" || b.Same[0].Criterion != "text.denominator" {
		t.Fatalf("same answers %+v, want a and b on text.denominator only", b.Same)
	}
	for _, id := range []string{"c", "d"} {
		if f := findingOf(b.Chosen[id], batch.FindSameAnswer); f != nil {
			t.Errorf("%s: %q", id, f.Message)
		}
	}
	if f := findingOf(b.Chosen["b"], batch.FindSameAnswer); f == nil || !strings.Contains(f.Message, "a 的答案相同") {
		t.Errorf("b: finding %+v", f)
	}
}

// A whole class with one answer: each finding names five others and the
// count, not the whole class; the report's group names everyone.
func TestSameAnswersManyNamesCapped(t *testing.T) {
	var ids []string
	for i := range 12 {
		ids = append(ids, fmt.Sprintf("s%02d", i))
	}
	ro, err := roster.NewRoster(ids...)
	if err != nil {
		t.Fatal(err)
	}
	var subs []*grader.Submission
	for _, id := range ids {
		subs = append(subs, &grader.Submission{Learner: id, Name: id + ".ipynb", Gradable: true,
			Manual: []grader.ManualItem{{Learner: id, ID: "text.uncertain", Title: "题", Text: "成功样本很少，我不确定换一个窗口 P95 是否还成立。"}}})
	}
	b := batch.NewBatch(ro, nil, subs)
	if len(b.Same) != 1 || len(b.Same[0].Learners) != 12 {
		t.Fatalf("same %+v", b.Same)
	}
	f := findingOf(b.Chosen["s00"], batch.FindSameAnswer)
	if f == nil || !strings.Contains(f.Message, "s01、s02、s03、s04、s05 等 11 人") || strings.Contains(f.Message, "s06") {
		t.Errorf("s00: %+v", f)
	}
}
