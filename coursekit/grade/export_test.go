package grade

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/report"
)

const injection = `</script><script>alert(1)</script><img src=x onerror=alert(2)>`

// Learner strings are escaped in every HTML and Markdown output: card
// text echoed in hints, free-text answers, the file name and cell ids.
func TestLearnerStringsAreEscapedEverywhere(t *testing.T) {
	f := newFixture(t, "alice")
	c := correctCard(t, f.variants["alice"])
	c.Path.SamplingPoint = injection // echoed in its hint
	c.Path.Steps[1].Name = c.Path.Steps[0].Name + injection
	c.CounterEvidence = "排队超时 " + injection
	c.DenominatorError = "分母" + injection + "\n| 伪造 | 表格 |"
	nb := edit(t, f.submitted(t, "alice", c), func(_ map[string]any, cells []any) []any {
		// a cell id with markup, duplicated, so it is echoed in a finding
		x := map[string]any{"cell_type": "code", "id": injection, "metadata": map[string]any{}, "source": "", "outputs": []any{}}
		return append(cells, x, x)
	})
	s := f.g.Grade(filepath.Join("alice", "06<img src=x onerror=alert(3)>.ipynb"), nb)
	if !s.Gradable {
		t.Fatal(s.Reason)
	}
	sub2 := f.g.Grade("x<script>.ipynb", []byte("{"))
	sm := report.Summarize(batch.NewBatch(f.roster, nil, []*grader.Submission{s, sub2}))
	outputs := map[string]string{
		"feedback.md": feedback.FeedbackMarkdown(s), "feedback.html": feedback.FeedbackHTML(s),
		"ungradable.md": feedback.FeedbackMarkdown(sub2), "ungradable.html": feedback.FeedbackHTML(sub2),
		"summary.md": sm.Markdown(), "summary.html": sm.HTML(),
	}
	gs, _ := gradescope.GradescopeJSON(s)
	outputs["results.json output"] = gradescope.Gradescope(s).Output // rendered as md
	for name, out := range outputs {
		for _, bad := range []string{"<script", "</script", "<img"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s contains %q unescaped", name, bad)
			}
		}
	}
	if !strings.Contains(outputs["feedback.html"], "&lt;/script&gt;") || !strings.Contains(outputs["summary.html"], "&lt;img") {
		t.Error("escaped learner text missing from HTML")
	}
	// A learner's "|" cannot add table cells to the Markdown.
	for _, line := range strings.Split(outputs["summary.md"], "\n") {
		if strings.HasPrefix(line, "| alice | `text.denominator`") && strings.Count(line, "|")-strings.Count(line, `\|`) != 6 {
			t.Errorf("table row broken: %s", line)
		}
	}
	if err := gradescope.ValidateResultsJSON(gs); err != nil {
		t.Error(err)
	}
}

// The validator enforces the schema in the notes, so a wrong results.json
// is caught here and not by Gradescope.
func TestValidateResultsJSON(t *testing.T) {
	good := []string{
		// The notes' minimal example.
		`{"score": 7.5, "output": "Deliverable card graded against 12 criteria.", "output_format": "md",
		 "stdout_visibility": "hidden", "visibility": "visible",
		 "tests": [
		  {"name": "card.trace.p99_latency_ms", "number": "1.1", "score": 2, "max_score": 2,
		   "output": "expected 41.7±0.5, got 41.6", "tags": ["trace"], "visibility": "visible"},
		  {"name": "card.path_map", "number": "2.1", "score": 0.5, "max_score": 2, "status": "failed",
		   "output": "2 of 4 hops match", "visibility": "after_due_date"},
		  {"name": "Notebook integrity", "status": "passed", "output": "locked cells unchanged"}]}`,
		`{"tests": [{"score": 1, "max_score": 1}], "leaderboard": [{"name": "p95", "value": 2, "order": "asc"}, {"name": "x", "value": "y"}]}`,
		`{"score": 0, "execution_time": 1.5, "extra_data": {"a": [1]}, "test_output_format": "ansi", "test_name_format": "simple_format"}`,
	}
	for i, g := range good {
		if err := gradescope.ValidateResultsJSON([]byte(g)); err != nil {
			t.Errorf("good %d: %v", i, err)
		}
	}
	bad := map[string]string{
		"no score anywhere":     `{"tests": [{"name": "a"}]}`,
		"empty":                 `{}`,
		"score as string":       `{"score": "7"}`,
		"unknown visibility":    `{"score": 1, "visibility": "public"}`,
		"unknown format":        `{"score": 1, "output_format": "markdown"}`,
		"unknown status":        `{"score": 1, "tests": [{"status": "ok"}]}`,
		"unknown top-level key": `{"score": 1, "grade": 1}`,
		"unknown test key":      `{"score": 1, "tests": [{"points": 1}]}`,
		"tags not strings":      `{"score": 1, "tests": [{"tags": [1]}]}`,
		"leaderboard no value":  `{"score": 1, "leaderboard": [{"name": "x"}]}`,
		"leaderboard bad order": `{"score": 1, "leaderboard": [{"name": "x", "value": 1, "order": "up"}]}`,
		"not JSON":              `{"score": 1`,
		"trailing data":         `{"score": 1} {}`,
		"extra_data not object": `{"score": 1, "extra_data": []}`,
		"number as test":        `{"score": 1, "tests": [1]}`,
	}
	for name, b := range bad {
		if err := gradescope.ValidateResultsJSON([]byte(b)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Every submission's results.json is valid, ungradable ones included, and
// hidden criteria are after_published with their score.
func TestGradescopeShape(t *testing.T) {
	f := newFixture(t, "alice")
	for _, s := range []*grader.Submission{
		f.g.Grade("alice.ipynb", f.submitted(t, "alice", mistakenCard(t, f.variants["alice"]))),
		f.g.Grade("alice.ipynb", []byte("not json")),
	} {
		b, err := gradescope.GradescopeJSON(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := gradescope.ValidateResultsJSON(b); err != nil {
			t.Errorf("%s: %v\n%s", s.File, err, b)
		}
		r := gradescope.Gradescope(s)
		if r.Score == nil {
			t.Error("no top-level score")
		}
		if !s.Gradable {
			if *r.Score != 0 || len(r.Tests) != 1 || r.Tests[0].Status != "failed" || r.Tests[0].Output != s.Reason {
				t.Errorf("ungradable: %+v", r)
			}
			continue
		}
		sum := 0.0
		for _, x := range r.Tests {
			if x.Score != nil {
				sum += *x.Score
			}
			hidden := strings.Contains(x.Name, "[hidden.")
			if hidden != (x.Visibility == "after_published") || hidden && x.Score == nil {
				t.Errorf("test %q: visibility %s, score %v", x.Name, x.Visibility, x.Score)
			}
		}
		if sum != *r.Score {
			t.Errorf("tests sum to %v, score %v", sum, *r.Score)
		}
	}
}

// grades.csv has one row per roster learner and a fixed column count,
// whatever happened to their submission.
func TestGradesCSVShape(t *testing.T) {
	f := newFixture(t, "alice", "bob", "carol")
	subs := []*grader.Submission{
		f.g.Grade("alice.ipynb", f.submitted(t, "alice", correctCard(t, f.variants["alice"]))),
		f.g.Grade("bob.ipynb", []byte(`{"nbformat":3}`)),
		f.g.Grade("zed.ipynb", f.submitted(t, "alice", correctCard(t, f.variants["alice"]))),
	}
	dir := t.TempDir()
	b := batch.NewBatch(f.roster, nil, subs)
	if err := report.Write(b, dir); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "grades.csv"))
	recs, err := csv.NewReader(strings.NewReader(string(raw))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || recs[1][0] != "alice" || recs[2][len(recs[2])-1] != "ungradable: "+notebook.ReasonNBFormat || recs[3][len(recs[3])-1] != "no submission" {
		t.Errorf("grades.csv:\n%s", raw)
	}
	// zed's file is alice's notebook under another name: identified by the
	// signed record, so it replaces nothing but is reported.
	for _, name := range []string{"alice.json", "alice~2.json", "bob.json"} {
		if _, err := os.Stat(filepath.Join(dir, "results", name)); err != nil {
			t.Errorf("results/%s: %v", name, err)
		}
	}
}
