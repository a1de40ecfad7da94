package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
)

// compileErrorNotebook is id's released notebook whose card cell did not
// compile in GoNB (a missing comma; the error output as GoNB saves it).
func compileErrorNotebook(t *testing.T, c *classroom, id string) []byte {
	t.Helper()
	nb, _ := os.ReadFile(filepath.Join(c.rel, id, "06-deliverable.ipynb"))
	html, err := os.ReadFile("../../../docker/test/testdata/gonb-parse-error.html")
	if err != nil {
		t.Fatal(err)
	}
	return editCells(nb, func(role string, cm map[string]any) {
		if role == notebook.RoleCard {
			cm["source"] = "var myCard = card.Card{\n\tTask: card.InferenceTask\n}\n"
			cm["outputs"] = []any{map[string]any{"output_type": "display_data", "metadata": map[string]any{}, "data": map[string]any{"text/html": string(html)}}}
		}
	})
}

// OUT/overrides.csv (the instructor's, never written by grade) overrides
// an automatic score: partial credit for a file that did not compile (its
// total), or a criterion's points. Re-grades keep it and apply it;
// grades.csv, results.json, the Canvas export and the learner's feedback
// show it, the feedback as the instructor's decision with the reason. A
// bad row stops the run with FILE:LINE, nothing written.
func TestGradeCLIOverrides(t *testing.T) {
	c := newClassroom(t, "id,lms_id\nalice,501\nbob,502\n", map[string]*card.Card{
		"alice": {Clock: "client", CounterEvidence: "排队：有请求在首字前等待超时。"},
	})
	os.MkdirAll(filepath.Join(c.sub, "bob"), 0o755)
	os.WriteFile(filepath.Join(c.sub, "bob", "06-deliverable.ipynb"), compileErrorNotebook(t, c, "bob"), 0o644)
	out := filepath.Join(c.dir, "graded")
	export := filepath.Join(c.dir, "canvas.csv")
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, "--export", "canvas=" + export}
	if code, o, e := runCLI(t, append(args, c.sub)...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	before := map[string]string{}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	for _, r := range g[1:] {
		before[r[gc["id"]]] = r[gc["total"]] + "|" + r[gc["figures.goodput"]] + "|" + r[gc["status"]]
	}
	if !strings.Contains(before["bob"], "compile_error") || !strings.HasPrefix(before["bob"], "0|") || strings.Contains(before["alice"], "|2|") {
		t.Fatalf("premise: %v", before)
	}
	ov := filepath.Join(out, "overrides.csv")
	os.WriteFile(ov, []byte("id,criterion,score,reason\nbob,total,20,编译错误只差一个逗号，其余都对\nalice,figures.goodput,2,<b>四舍五入</b>造成的差别，不扣分\n"), 0o644)
	for run := 1; run <= 2; run++ {
		code, o, e := runCLI(t, append(args, c.sub)...)
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", run, code, o, e)
		}
		g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
		for _, r := range g[1:] {
			switch r[gc["id"]] {
			case "bob":
				if r[gc["total"]] != "20" || !strings.Contains(r[gc["status"]], "instructor override: total 20 ("+ov+":2)") {
					t.Errorf("run %d: bob's row: total %q status %q", run, r[gc["total"]], r[gc["status"]])
				}
			case "alice":
				if r[gc["figures.goodput"]] != "2" {
					t.Errorf("run %d: alice's figures.goodput %q", run, r[gc["figures.goodput"]])
				}
			}
		}
		md, _ := os.ReadFile(filepath.Join(out, "feedback", "bob.md"))
		if !strings.Contains(string(md), "老师的决定：这份作业计 20/") || !strings.Contains(string(md), "编译错误只差一个逗号") {
			t.Errorf("run %d: bob's feedback:\n%s", run, md)
		}
		// The decision stands: nobody asks bob to hand the file in again.
		for _, f := range []string{"bob.md", "bob.html"} {
			if b, _ := os.ReadFile(filepath.Join(out, "feedback", f)); strings.Contains(string(b), "重新提交") || strings.Contains(string(b), "再提交") {
				t.Errorf("run %d: feedback/%s asks to resubmit above the override:\n%s", run, f, b)
			}
		}
		// class.html and summary.md read the totals grades.csv holds:
		// bob's 20 is shown, and counts in the class mean.
		sum, n := 0.0, 0
		for _, r := range g[1:] {
			if v, err := strconv.ParseFloat(r[gc["total"]], 64); err == nil {
				sum, n = sum+v, n+1
			}
		}
		meanLine := "总分平均 " + criteria.FmtPts(sum/float64(n)) + " 分"
		page, _ := os.ReadFile(filepath.Join(out, "class.html"))
		summary, _ := os.ReadFile(filepath.Join(out, "summary.md"))
		if n != 2 || !strings.Contains(string(page), meanLine) || !strings.Contains(string(summary), meanLine) {
			t.Errorf("run %d: class.html or summary.md lacks %q (the mean of grades.csv's %d totals)", run, meanLine, n)
		}
		if !strings.Contains(string(page), "20/") || !strings.Contains(string(page), "老师覆盖总分：20/") {
			t.Errorf("run %d: class.html does not show bob's override", run)
		}
		if !strings.Contains(string(summary), "老师覆盖总分：20/") {
			t.Errorf("run %d: summary.md lists bob only as ungradable:\n%s", run, summary)
		}
		page, _ = os.ReadFile(filepath.Join(out, "feedback", "alice.html"))
		if !strings.Contains(string(page), "老师的决定：2/2 分") || !strings.Contains(string(page), "&lt;b&gt;四舍五入") || strings.Contains(string(page), "<b>四舍五入") {
			t.Errorf("run %d: alice's feedback does not show the decision, escaped", run)
		}
		var res struct{ Score float64 }
		b, _ := os.ReadFile(filepath.Join(out, "results", "bob.json"))
		json.Unmarshal(b, &res)
		if res.Score != 20 {
			t.Errorf("run %d: results/bob.json score %v", run, res.Score)
		}
		x, xc := csvRows(t, export)
		for _, r := range x[2:] {
			if r[xc["ID"]] == "502" && r[len(r)-1] != "20" {
				t.Errorf("run %d: the Canvas export gives bob %q", run, r[len(r)-1])
			}
		}
		if b, err := os.ReadFile(ov); err != nil || !strings.Contains(string(b), "bob,total,20") {
			t.Errorf("run %d: overrides.csv is gone from OUT (%v)", run, err)
		}
	}
	// A bad file: every bad row named, nothing written.
	snap, _ := os.ReadFile(filepath.Join(out, "grades.csv"))
	os.WriteFile(ov, []byte("id,criterion,score,reason\nalice,text.outputs,1,读过了\nbob,total,99,x\nzed,figures.p95,1,x\nalice,figures.cost,1,\n"), 0o644)
	code, o, e := runCLI(t, append(args, c.sub)...)
	for _, w := range []string{ov + ":2: alice text.outputs is a free-text criterion", ov + ":3: bob total: score 99 is outside", ov + ":5: alice figures.cost: no reason"} {
		if !strings.Contains(e, w) {
			t.Errorf("bad overrides: exit %d, stderr lacks %q\n%s%s", code, w, o, e)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(out, "grades.csv")); code != 2 || string(after) != string(snap) {
		t.Errorf("bad overrides: exit %d, grades.csv rewritten %v", code, string(after) != string(snap))
	}
	os.WriteFile(ov, []byte("id,criterion,score,reason\nzed,figures.p95,1,x\n"), 0o644)
	if code, _, e := runCLI(t, append(args, c.sub)...); code != 2 || !strings.Contains(e, ov+`:2: learner "zed" is not on the roster`) {
		t.Errorf("unknown learner in overrides: exit %d\n%s", code, e)
	}
}

// A score in overrides.csv is a plain decimal number: Go's other float
// syntaxes ("0_2" read as 2, "0x1p1", "1e0", "Inf") are refused naming
// FILE:LINE, as a spreadsheet would not read them as the number; "-0" is
// 0, and no output ever shows "-0".
func TestGradeCLIOverrideScoresArePlainDecimals(t *testing.T) {
	_, out, args := gradedClass(t)
	ov := filepath.Join(out, "overrides.csv")
	os.WriteFile(ov, []byte("id,criterion,score,reason\nalice,figures.goodput,0_2,x\nalice,figures.p95,0x1p0,x\nbob,figures.goodput,1e0,x\nbob,figures.p95,Inf,x\n"), 0o644)
	code, o, e := runCLI(t, args...)
	for _, w := range []string{ov + `:2: alice figures.goodput: score "0_2" is not a number`, ov + `:3: alice figures.p95: score "0x1p0"`, ov + `:4: bob figures.goodput: score "1e0"`, ov + `:5: bob figures.p95: score "Inf"`} {
		if code != 2 || !strings.Contains(e, w) {
			t.Errorf("exit %d, stderr lacks %q\n%s%s", code, w, o, e)
		}
	}
	os.WriteFile(ov, []byte("id,criterion,score,reason\nalice,figures.goodput,-0,四舍五入\nbob,figures.goodput,0.00,x\n"), 0o644)
	if code, o, e := runCLI(t, args...); code != 0 {
		t.Fatalf("-0: exit %d\n%s%s", code, o, e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	for _, r := range g[1:] {
		if r[gc["figures.goodput"]] != "0" {
			t.Errorf("%s's figures.goodput %q, want 0", r[gc["id"]], r[gc["figures.goodput"]])
		}
	}
	for _, f := range []string{"grades.csv", "results/alice.json", "feedback/alice.md", "summary.md"} {
		if b, _ := os.ReadFile(filepath.Join(out, f)); negZero.Match(b) {
			t.Errorf("%s shows -0: %q", f, negZero.Find(b))
		}
	}
}

// negZero is -0 written as a number ("-0", "-0.00"), not inside a date.
var negZero = regexp.MustCompile(`(^|[^\w.-])-0(\.0+)?([^\w.]|$)`)

// gradedClass is a class of alice and bob graded once into OUT, and the
// grade command line that grades it again.
func gradedClass(t *testing.T) (c *classroom, out string, args []string) {
	t.Helper()
	c = newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。"}, "bob": {CounterEvidence: "GPU 很忙。"},
	})
	out = filepath.Join(c.dir, "graded")
	args = []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, c.sub}
	if code, o, e := runCLI(t, args...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	return c, out, args
}

// A weight change never moves an override silently: overrides.csv is
// the instructor's and grade never rewrites it, so when the maximum of an
// overridden criterion (or, for a total, of the rubric) changes, the run
// that changes it warns, naming FILE:LINE, what the override counts now
// and what to write for another meaning. Before, full marks 2/2 on
// figures.goodput became 2/3 with no word.
func TestGradeCLIOverrideWeightChangeWarns(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{
		"alice": {Clock: "client", CounterEvidence: "排队：有请求在首字前等待超时。"},
	})
	os.MkdirAll(filepath.Join(c.sub, "bob"), 0o755)
	os.WriteFile(filepath.Join(c.sub, "bob", "06-deliverable.ipynb"), compileErrorNotebook(t, c, "bob"), 0o644)
	out := filepath.Join(c.dir, "graded")
	grade := c.grader(t, out)
	grade()
	ov := filepath.Join(out, "overrides.csv")
	os.WriteFile(ov, []byte("id,criterion,score,reason\nbob,total,20,只差一个逗号\nalice,figures.goodput,2,四舍五入的差别\nalice,figures.p95,2,不扣分\n"), 0o644)
	if e := grade(); strings.Contains(e, "overrides.csv:") {
		t.Errorf("a run with the same weights warns about the overrides:\n%s", e)
	}
	w := filepath.Join(c.dir, "w.csv")
	os.WriteFile(w, []byte("criterion,points\nfigures.goodput,3\n"), 0o644)
	e := grade("--weights", w, "--change-weights")
	for _, want := range []string{
		ov + ":2: bob total: the override 20 was within a maximum of 48 in the previous run, which is 49 now: it counts 20/49 as written",
		ov + ":3: alice figures.goodput: the override 2 was within a maximum of 2 in the previous run, which is 3 now: it counts 2/3 as written",
	} {
		if !strings.Contains(e, want) {
			t.Errorf("stderr lacks %q:\n%s", want, e)
		}
	}
	if strings.Contains(e, ov+":4:") {
		t.Errorf("warns about figures.p95, whose weight did not change:\n%s", e)
	}
	if e := grade(); strings.Contains(e, "overrides.csv:") {
		t.Errorf("a plain re-grade after the change warns again:\n%s", e)
	}
}
