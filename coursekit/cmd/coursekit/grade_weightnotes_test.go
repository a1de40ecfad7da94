package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// A weight change writes what it did to a typed score into that row of
// manual-review.csv, not only on stderr: full marks 2/2 rescaled to 4/4
// carry a "权重改了，分数按比例换算：2/2 → 4/4" note, kept by a plain re-grade while
// the score is the one grade made. A weight of 0 never rescales through
// 0: the typed "1" stays "1" against its typed maximum (counting 0 while
// the weight is 0), and restoring the weight counts it again, with no
// previous_score and nothing pending.
func TestGradeCLIWeightChangeNotesAndZero(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。", Uncertain: "样本太少。"},
		"bob":   {CounterEvidence: "GPU 很忙。", Uncertain: "不确定服务端排队。"},
	})
	out := filepath.Join(c.dir, "graded")
	grade := c.grader(t, out)
	weights := func(name, body string) string {
		p := filepath.Join(c.dir, name)
		os.WriteFile(p, []byte("criterion,points\n"+body), 0o644)
		return p
	}
	grade()
	manual := filepath.Join(out, "manual-review.csv")
	setManual(t, manual, "alice", "text.counter_evidence", "score", "2")
	for _, id := range []string{"alice", "bob"} {
		setManual(t, manual, id, "text.uncertain", "score", "1")
	}
	row := func(key string) (r []string, col map[string]int) {
		m, col := manualByLearner(t, manual)
		if m[key] == nil {
			t.Fatalf("no row %s", key)
		}
		return m[key], col
	}
	cell := func(id, crit string) string {
		g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
		for _, r := range g[1:] {
			if r[gc["id"]] == id {
				return r[gc[crit]] + "|" + r[gc["pending"]]
			}
		}
		return ""
	}

	// (a) rescaled, and the row says so, also after a plain re-grade.
	grade("--weights", weights("w4.csv", "text.counter_evidence,4\n"), "--change-weights")
	for run := 1; run <= 2; run++ {
		r, col := row("alice/text.counter_evidence")
		if r[col["score"]] != "4" || r[col["max"]] != "4" || !strings.Contains(r[col["note"]], "权重改了，分数按比例换算：2/2 → 4/4") {
			t.Errorf("run %d: the rescaled row: score %q max %q note %q", run, r[col["score"]], r[col["max"]], r[col["note"]])
		}
		if n := strings.Count(r[col["note"]], "按比例换算"); n != 1 {
			t.Errorf("run %d: note %q", run, r[col["note"]])
		}
		grade()
	}

	// (b) a weight of 0 keeps the typed scores as typed.
	e := grade("--weights", weights("w0.csv", "text.counter_evidence,4\ntext.uncertain,0\n"), "--change-weights")
	for run := 1; run <= 2; run++ {
		for _, id := range []string{"alice", "bob"} {
			r, col := row(id + "/text.uncertain")
			if r[col["score"]] != "1" || r[col["max"]] != "1" || r[col["previous_score"]] != "" {
				t.Errorf("run %d: %s's typed 1 under a weight of 0: score %q max %q previous %q note %q\n%s", run, id, r[col["score"]], r[col["max"]], r[col["previous_score"]], r[col["note"]], e)
			}
			if got := cell(id, "text.uncertain"); !strings.HasPrefix(got, "0|") {
				t.Errorf("run %d: %s's text.uncertain in grades.csv under a weight of 0: %q", run, id, got)
			}
		}
		e = grade()
	}
	grade("--weights", weights("w1.csv", "text.counter_evidence,4\n"), "--change-weights")
	for _, id := range []string{"alice", "bob"} {
		r, col := row(id + "/text.uncertain")
		if r[col["score"]] != "1" || r[col["max"]] != "1" || r[col["previous_score"]] != "" {
			t.Errorf("%s's typed 1 after restoring the weight: score %q max %q previous %q note %q", id, r[col["score"]], r[col["max"]], r[col["previous_score"]], r[col["note"]])
		}
		if got := cell(id, "text.uncertain"); !strings.HasPrefix(got, "1|") {
			t.Errorf("%s's text.uncertain in grades.csv after restoring the weight: %q", id, got)
		}
	}
	if got := cell("bob", "text.uncertain"); got != "1|4" {
		t.Errorf("bob: text.uncertain|pending %q, want 1|4 (only text.counter_evidence, now 4 points, pending)", got)
	}
}

// The weights a run graded with are in summary.md, summary.html and
// class.html, not only in OUT's run record and results.json: the maximum
// and every criterion that differs from the defaults.
func TestGradeCLIWeightsShownInReports(t *testing.T) {
	c := newClassroom(t, "id\nalice\n", map[string]*card.Card{"alice": {Clock: "client"}})
	w := filepath.Join(c.dir, "w.csv")
	os.WriteFile(w, []byte("criterion,points\ntext.counter_evidence,4\nstream.aggregation,0\n"), 0o644)
	out := filepath.Join(c.dir, "graded")
	for run := 1; run <= 2; run++ {
		if code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, "--weights", w, c.sub); code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", run, code, o, e)
		}
		for f, want := range map[string][]string{
			"summary.md":   {"本次评分的权重", "满分 49 分", "`text.counter_evidence` 4（默认 2）", "`stream.aggregation` 0（默认 1）"},
			"summary.html": {"本次评分的权重", "<code>text.counter_evidence</code> 4（默认 2）"},
			"class.html":   {"本次评分的权重", "text.counter_evidence 4（默认 2）", "stream.aggregation 0（默认 1）"},
		} {
			b, _ := os.ReadFile(filepath.Join(out, f))
			for _, x := range want {
				if !strings.Contains(string(b), x) {
					t.Errorf("run %d: %s lacks %q", run, f, x)
				}
			}
		}
	}
}

// A score set aside because its answer changed (previous_score) keeps the
// maximum it was typed against once the weights change: after 2/2 was set
// aside and the weight raised to 4, the row's max reads 4 and its
// previous_score "2/2", and the note says 原来的 2/2 分, never a bare
// "2" that reads as half marks. Before, previous_score stayed "2" beside
// max 4.
func TestGradeCLIPreviousScoreKeepsItsMaximum(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。"},
		"bob":   {CounterEvidence: "GPU 很忙。"},
	})
	out := filepath.Join(c.dir, "graded")
	grade := c.grader(t, out)
	grade()
	manual := filepath.Join(out, "manual-review.csv")
	setManual(t, manual, "alice", "text.counter_evidence", "score", "2")
	c.submit(t, "alice", &card.Card{CounterEvidence: "改过：首字前超时说明在排队。"})
	grade()
	w := filepath.Join(c.dir, "w4.csv")
	os.WriteFile(w, []byte("criterion,points\ntext.counter_evidence,4\n"), 0o644)
	grade("--weights", w, "--change-weights")
	for run := 1; run <= 2; run++ {
		m, col := manualByLearner(t, manual)
		r := m["alice/text.counter_evidence"]
		if r == nil {
			t.Fatal("no row for alice")
		}
		if r[col["max"]] != "4" || r[col["previous_score"]] != "2/2" || r[col["score"]] != "" || !strings.Contains(r[col["note"]], "原来的 2/2 分") {
			t.Errorf("run %d: max %q previous_score %q score %q note %q; want 4, 2/2, blank, 原来的 2/2 分", run, r[col["max"]], r[col["previous_score"]], r[col["score"]], r[col["note"]])
		}
		grade()
	}
}

// grader is a function that grades c's submissions into out with the
// given extra flags (quietly), fails the test unless it exits 0, and
// returns stderr.
func (c *classroom) grader(t *testing.T, out string) func(extra ...string) string {
	return func(extra ...string) string {
		t.Helper()
		args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out}
		code, o, e := runCLI(t, append(append(args, extra...), c.sub)...)
		if code != 0 {
			t.Fatalf("grade %v: exit %d\n%s%s", extra, code, o, e)
		}
		return e
	}
}
