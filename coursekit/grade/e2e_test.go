package grade

import (
	csvpkg "encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/report"
	"github.com/llmperf-course/course/coursekit/grade/roster"
)

// assign → fill two deliverables (one right, one with typical mistakes)
// the way a learner who ran the self-check would leave them → grade →
// the expected CSV, results.json and feedback.
func TestEndToEnd(t *testing.T) {
	dir := t.TempDir()
	release, err := os.ReadFile(releasePath)
	if err != nil {
		t.Fatal(err)
	}
	roster, err := roster.ReadRoster(strings.NewReader("id,name\nalice,爱丽丝\nbob,鲍勃\ncarol,卡萝尔\n"))
	if err != nil {
		t.Fatal(err)
	}
	as, err := assign.Assign(testKey, roster, release, "06-deliverable.ipynb", filepath.Join(dir, "release"))
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 3 || as[0].Notebook != "alice/06-deliverable.ipynb" || as[0].Trace != "alice/trace.jsonl" {
		t.Fatalf("assignments %+v", as)
	}

	// Learners fill in their copy: the card cell and the self-check's output.
	subDir := filepath.Join(dir, "submitted")
	for _, l := range []struct {
		id   string
		card func(testing.TB, []byte) *card.Card
	}{{"alice", correctCard}, {"bob", mistakenCard}} {
		nb, _ := os.ReadFile(filepath.Join(dir, "release", l.id, "06-deliverable.ipynb"))
		v, _ := os.ReadFile(filepath.Join(dir, "release", l.id, "trace.jsonl"))
		c := l.card(t, v)
		os.MkdirAll(filepath.Join(subDir, l.id), 0o755)
		if err := os.WriteFile(filepath.Join(subDir, l.id, "06-deliverable.ipynb"), fill(t, nb, goLiteral(c), payloadFor(t, c, v)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	g, err := grader.NewGrader(grader.Options{Key: testKey, Roster: roster})
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(subDir, "alice", "06-deliverable.ipynb"), filepath.Join(subDir, "bob", "06-deliverable.ipynb")}
	var progress strings.Builder
	subs := g.GradeAll(paths, &progress)
	if n := strings.Count(progress.String(), "\n"); n != 2 || !strings.Contains(progress.String(), "[2/2]") {
		t.Errorf("progress lines:\n%s", progress.String())
	}
	out := filepath.Join(dir, "out")
	if err := report.Write(batch.NewBatch(roster, nil, subs), out); err != nil {
		t.Fatal(err)
	}

	// grades.csv: one row per learner, a column per criterion; free text
	// blank until read; carol did not submit; the roster's name column carried.
	csv := read(t, out, "grades.csv")
	wantCSV := "\ufeffid,name,total,max,map.steps,map.marks,map.sampling,stated.clock,stated.window,stated.method,stated.samples,stated.attempts,conditions.slos,figures.p95,figures.failure_rate,figures.qualified,figures.qualified_rate,figures.goodput,figures.cost,units.p95,units.failure_rate,units.qualified_rate,units.goodput,units.cost,stream.recorded,stream.aggregation,text.counter_evidence,text.outputs,text.denominator,text.uncertain,hidden.goodput_consistency,hidden.cost_consistency,hidden.qualified_rate_consistency,hidden.samples_consistency,hidden.slo_invariants,hidden.qualified_bounds,hidden.request_view,hidden.own_variant,pending,status\n" +
		"alice,爱丽丝,40,48,2,2,2,1,1,1,1,1,1,2,2,2,2,2,2,1,1,1,1,1,1,,,,,,1,1,1,1,1,1,1,3,8,graded\n" +
		"bob,鲍勃,30,48,2,2,2,1,1,1,1,0,1,2,0,1,0,0,1,1,1,1,1,1,1,,0,,,,0,1,1,1,1,1,1,3,6,graded\n" +
		"carol,卡萝尔,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,no submission\n"
	if csv != wantCSV {
		t.Errorf("grades.csv:\n%s\nwant:\n%s", csv, wantCSV)
	}

	// results.json: valid against the schema; hidden tests after_published.
	for _, id := range []string{"alice", "bob"} {
		raw := []byte(read(t, out, "results", id+".json"))
		if err := gradescope.ValidateResultsJSON(raw); err != nil {
			t.Errorf("%s results.json: %v", id, err)
		}
		var r gradescope.GSResults
		json.Unmarshal(raw, &r)
		hidden := 0
		for _, x := range r.Tests {
			if strings.Contains(x.Name, "[hidden.") {
				hidden++
				if x.Visibility != "after_published" {
					t.Errorf("%s: hidden test %q visible as %q", id, x.Name, x.Visibility)
				}
			}
		}
		if hidden != len(card.HiddenIDs())+1 {
			t.Errorf("%s: %d hidden tests", id, hidden)
		}
	}
	var bob gradescope.GSResults
	json.Unmarshal([]byte(read(t, out, "results", "bob.json")), &bob)
	if *bob.Score != 30 {
		t.Errorf("bob's results.json score %v", *bob.Score)
	}

	// Feedback: Chinese, per criterion, hidden rows without expected values.
	md := read(t, out, "feedback", "bob.md")
	for _, want := range []string{"评分反馈", "公开检查", "隐藏检查", "不显示期望值", "✗ 未通过", "◐ 部分得分", "? 待阅读", "完整性", "全部尝试数", "自动评分 30/48 分"} {
		if !strings.Contains(md, want) {
			t.Errorf("bob.md lacks %q", want)
		}
	}
	// Hidden rows show their message and score, never an expected value:
	// the messages hold no number, and bob's failed one is in the feedback.
	failedHidden := 0
	for _, x := range subs[1].Scores {
		if x.Kind == criteria.KindHidden && x.Status != card.Pass {
			failedHidden++
			if regexp.MustCompile(`\d`).MatchString(x.Message) || x.Message == "" || !strings.Contains(md, feedback.MDEscape(x.Message)) {
				t.Errorf("hidden %s: message %q", x.ID, x.Message)
			}
		}
	}
	if failedHidden == 0 {
		t.Error("test premise: bob should fail a hidden criterion")
	}
	h := read(t, out, "feedback", "alice.html")
	if !strings.Contains(h, "<html lang=\"zh-CN\">") || !strings.Contains(h, "✓ 锁定的单元格没有改动") {
		t.Errorf("alice.html:\n%.600s", h)
	}
	sum := read(t, out, "summary.md")
	for _, want := range []string{"收到 2 份提交", "1 人没有提交", "失分最多的检查项", "stated.attempts", "人工阅读队列（9 条"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, sum)
		}
	}
	mr := read(t, out, "manual-review.csv")
	if recs, err := csvpkg.NewReader(strings.NewReader(mr)).ReadAll(); err != nil || len(recs) != 10 || !strings.HasPrefix(mr, "\ufeffid,criterion,title,max,keyword_assist,keywords_found,text,text_sha256,previous_score,note,score,comment\n") {
		t.Errorf("manual-review.csv:\n%s", mr)
	}
	// No machine path in any output.
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), dir) {
				t.Errorf("%s holds a machine path", p)
			}
		}
		return nil
	})
}

func read(t *testing.T, parts ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(parts...))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
