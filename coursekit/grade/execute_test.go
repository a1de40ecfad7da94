package grade

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/execute"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
)

func releaseBytes(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(releasePath)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func cellsOf(t testing.TB, nb []byte) []any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(nb, &m); err != nil {
		t.Fatal(err)
	}
	return m["cells"].([]any)
}

func srcOf(c any) string {
	switch s := c.(map[string]any)["source"].(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, l := range s {
			b.WriteString(l.(string))
		}
		return b.String()
	}
	return ""
}

// A learner who edited the data cell, duplicated it, deleted the
// self-check and added a cell of their own gets, for re-execution, the
// release's locked cells back with their own cells kept.
func TestRestorePutsLockedCellsBack(t *testing.T) {
	f := newFixture(t, "alice")
	sub := f.submitted(t, "alice", correctCard(t, f.variants["alice"]))
	sub = edit(t, sub, func(_ map[string]any, cells []any) []any {
		var out []any
		for _, c := range cells {
			switch role(c) {
			case notebook.RoleData:
				c.(map[string]any)["source"] = "var unit = must(trace.ReadFile(\"someone-else.jsonl\"))"
				dup := map[string]any{}
				for k, v := range c.(map[string]any) {
					dup[k] = v
				}
				out = append(out, c, dup)
				continue
			case notebook.RoleSelfCheck:
				continue
			}
			out = append(out, c)
		}
		return append(out, map[string]any{"cell_type": "code", "id": "mine", "metadata": map[string]any{}, "source": "%%\nfmt.Println(1)", "outputs": []any{}, "execution_count": 3})
	})

	restored, rep, err := execute.Restore(testKey, f.nb["alice"], sub)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Replaced, []string{"fd36a82c7b00"}) || !slices.Equal(rep.Duplicates, []string{"fd36a82c7b00"}) || !slices.Equal(rep.Inserted, []string{"a0fc14eea7d1"}) {
		t.Fatalf("report = %+v", rep)
	}
	rel := cellsOf(t, f.nb["alice"])
	got := cellsOf(t, restored)
	if len(got) != len(rel)+1 {
		t.Fatalf("%d cells, want the release's %d plus the learner's own", len(got), len(rel))
	}
	if srcOf(cellByRole(got, notebook.RoleData)) != srcOf(cellByRole(rel, notebook.RoleData)) {
		t.Errorf("data cell not restored: %q", srcOf(cellByRole(got, notebook.RoleData)))
	}
	// The self-check comes back where it was released (after the evidence
	// chart, before the lesson's closing 小结 and 练习), and the learner's
	// added cell stays last.
	at := func(cells []any) int {
		return slices.IndexFunc(cells, func(c any) bool { return role(c) == notebook.RoleSelfCheck })
	}
	if at(got) != at(rel) || got[len(got)-1].(map[string]any)["id"] != "mine" {
		t.Errorf("self-check put back at the wrong place: cell %d of the restored notebook, %d of the release", at(got), at(rel))
	}
	if !strings.Contains(srcOf(cellByRole(got, notebook.RoleCard)), "var myCard") {
		t.Errorf("the learner's card cell was not kept")
	}
	for i, c := range got {
		if outs := c.(map[string]any)["outputs"]; outs != nil && len(outs.([]any)) > 0 {
			t.Errorf("cell %d keeps its outputs", i)
		}
	}
}

// Jupyter saving as nbformat 4.4 drops cell ids; cells are then matched by
// their coursekit role.
func TestRestoreWithoutCellIDs(t *testing.T) {
	f := newFixture(t, "bob")
	sub := edit(t, f.submitted(t, "bob", correctCard(t, f.variants["bob"])), func(m map[string]any, cells []any) []any {
		m["nbformat_minor"] = 4
		for _, c := range cells {
			delete(c.(map[string]any), "id")
			if role(c) == notebook.RoleSelfCheck {
				c.(map[string]any)["source"] = "%%\nfmt.Println(\"全部通过\")"
			}
		}
		return cells
	})
	restored, rep, err := execute.Restore(testKey, f.nb["bob"], sub)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Replaced, []string{"a0fc14eea7d1"}) || len(rep.Inserted)+len(rep.Duplicates) != 0 {
		t.Fatalf("report = %+v", rep)
	}
	if got, want := srcOf(cellByRole(cellsOf(t, restored), notebook.RoleSelfCheck)), srcOf(cellByRole(cellsOf(t, f.nb["bob"]), notebook.RoleSelfCheck)); got != want {
		t.Errorf("self-check = %q, want the release's %q", got, want)
	}
}

// fakeRun stands in for the container in unit tests: it checks what it was
// given, then plays the self-check — reads the card cell (parsed, never
// run) and embeds the card checked against the trace in the folder.
type fakeRun struct {
	t       *testing.T
	release []byte
	mu      sync.Mutex
	seen    []string
	running atomic.Int32
	peak    atomic.Int32
	// behave may replace the result by learner card marker.
	behave func(ctx context.Context, job execute.ExecJob, nb []byte) (execute.ExecResult, bool)
}

func (r *fakeRun) Run(ctx context.Context, job execute.ExecJob) execute.ExecResult {
	n := r.running.Add(1)
	defer r.running.Add(-1)
	for {
		p := r.peak.Load()
		if n <= p || r.peak.CompareAndSwap(p, n) {
			break
		}
	}
	r.mu.Lock()
	r.seen = append(r.seen, job.Name)
	r.mu.Unlock()
	nb, err := os.ReadFile(filepath.Join(job.Dir, job.Notebook))
	if err != nil {
		return execute.ExecResult{Infra: err}
	}
	st, _ := os.Stat(job.Dir)
	if st.Mode().Perm()&0o005 != 0o005 {
		r.t.Errorf("%s: folder mode %v: the container's user could not read it", job.Name, st.Mode())
	}
	if r.behave != nil {
		if res, ok := r.behave(ctx, job, nb); ok {
			return res
		}
	}
	v, err := os.ReadFile(filepath.Join(job.Dir, assign.VariantTraceName))
	if err != nil {
		return execute.ExecResult{Infra: err}
	}
	cells := cellsOf(r.t, nb)
	c, err := notebook.CardFromSource(srcOf(cellByRole(cells, notebook.RoleCard)))
	if err != nil {
		return execute.ExecResult{ExitCode: 1, Log: "FAIL x.ipynb: cell 4: error output: " + err.Error()}
	}
	out := fill(r.t, nb, srcOf(cellByRole(cells, notebook.RoleCard)), payloadFor(r.t, c, v))
	return execute.ExecResult{Executed: out, Elapsed: time.Millisecond}
}

func executedBatch(t *testing.T, run *fakeRun, ids []string, subs map[string][]byte, o execute.ExecOptions) map[string]*grader.Submission {
	t.Helper()
	f := newFixture(t, ids...)
	g, err := grader.NewGrader(grader.Options{Key: testKey, Roster: f.roster, KeepSource: true})
	if err != nil {
		t.Fatal(err)
	}
	var all []*grader.Submission
	for _, id := range ids {
		b := subs[id]
		if b == nil {
			b = f.submitted(t, id, correctCard(t, f.variants[id]))
		}
		all = append(all, g.Grade(id+".ipynb", b))
	}
	o.Executor, o.Release, o.WorkDir = run, run.release, t.TempDir()
	if _, err := execute.ExecuteAll(context.Background(), g, all, o, nil); err != nil {
		t.Fatal(err)
	}
	byID := map[string]*grader.Submission{}
	for _, s := range all {
		byID[strings.TrimSuffix(s.File, ".ipynb")] = s
	}
	return byID
}

func findingCodes(s *grader.Submission) []string {
	var c []string
	for _, f := range s.Integrity {
		c = append(c, f.Code)
	}
	return c
}

// An honest notebook re-runs to the same card: full execution points.
// One whose saved output was edited by hand re-runs to a different card:
// half the points and an integrity warning. A run that hangs, crashes or
// meets a broken environment marks only its own submission.
func TestExecuteAllScoresEachRunOnItsOwn(t *testing.T) {
	ids := []string{"ann", "ben", "cat", "dan", "eve"}
	f := newFixture(t, ids...)
	// ben's card cell says one thing, the saved self-check output another.
	right := correctCard(t, f.variants["ben"])
	faked := correctCard(t, f.variants["ben"])
	faked.Attempts = 7
	ben := fill(t, f.nb["ben"], goLiteral(faked), payloadFor(t, right, f.variants["ben"]))
	// eve edited the data cell to read the public example; restore undoes it.
	eve := edit(t, f.submitted(t, "eve", correctCard(t, f.variants["eve"])), func(_ map[string]any, cells []any) []any {
		cellByRole(cells, notebook.RoleData)["source"] = `var unit = must(trace.ReadFile(coursekit.Data("unit01/trace.jsonl")))`
		return cells
	})
	run := &fakeRun{t: t, release: releaseBytes(t)}
	run.behave = func(ctx context.Context, job execute.ExecJob, nb []byte) (execute.ExecResult, bool) {
		switch {
		case strings.HasSuffix(job.Name, "-cat"): // an endless loop
			<-ctx.Done()
			return execute.ExecResult{TimedOut: true, ExitCode: -1}, true
		case strings.HasSuffix(job.Name, "-dan"):
			return execute.ExecResult{ExitCode: 1, Log: "== x\nFAIL /tmp/w/submission.ipynb: cell 6: error output: panic: index out of range [3] with length 3\n"}, true
		case strings.HasSuffix(job.Name, "-ann") && !strings.Contains(string(nb), assign.VariantTraceName):
			t.Errorf("ann's notebook does not read her variant")
		}
		return execute.ExecResult{}, false
	}
	got := executedBatch(t, run, ids, map[string][]byte{"ben": ben, "eve": eve}, execute.ExecOptions{Timeout: 300 * time.Millisecond, Jobs: 2})

	want := map[string]struct {
		status card.Status
		points float64
		msg    string
	}{
		"ann": {card.Pass, 2, "一致"},
		"ben": {card.Fail, 1, "attempts"},
		"cat": {card.Fail, 0, "总时限"},
		"dan": {card.Fail, 0, "第 7 个单元格出错：error output: panic: index out of range"},
		"eve": {card.Pass, 2, "一致"},
	}
	for id, w := range want {
		x, ok := got[id].Score(criteria.ExecutionID)
		if !ok {
			t.Errorf("%s: no execution score", id)
			continue
		}
		if x.Status != w.status || x.Points != w.points || x.Max != 2 || !strings.Contains(x.Message, w.msg) {
			t.Errorf("%s: execution = %s %v/%v %q, want %s %v containing %q", id, x.Status, x.Points, x.Max, x.Message, w.status, w.points, w.msg)
		}
	}
	if c := findingCodes(got["ben"]); !slices.Contains(c, "exec_card_differs") {
		t.Errorf("ben's findings %v lack exec_card_differs", c)
	}
	if c := findingCodes(got["eve"]); !slices.Contains(c, "exec_restored") {
		t.Errorf("eve's findings %v lack exec_restored", c)
	}
	// Totals include the execution points exactly once.
	for id, s := range got {
		var sum, max float64
		for _, x := range s.Scores {
			max += x.Max
			if !x.Pending {
				sum += x.Points
			}
		}
		if s.Total != sum || s.Max != max {
			t.Errorf("%s: total %v/%v, scores add up to %v/%v", id, s.Total, s.Max, sum, max)
		}
	}
	if p := run.peak.Load(); p > 2 {
		t.Errorf("%d runs at once with Jobs 2", p)
	}
	if len(run.seen) != len(ids) {
		t.Errorf("ran %v, want all %d", run.seen, len(ids))
	}
}

// A broken environment is nobody's fault in the notebook: the score says
// so and a finding tells the instructor to re-run. An ungradable
// submission is not run at all.
func TestExecuteAllEnvironmentFailureAndUngradable(t *testing.T) {
	run := &fakeRun{t: t, release: releaseBytes(t)}
	run.behave = func(context.Context, execute.ExecJob, []byte) (execute.ExecResult, bool) {
		return execute.ExecResult{ExitCode: 125, Infra: errors.New("podman run exited 125: image not known")}, true
	}
	got := executedBatch(t, run, []string{"fay", "gus"}, map[string][]byte{"gus": []byte(`{"nbformat": 4, "cells": [`)}, execute.ExecOptions{})
	x, _ := got["fay"].Score(criteria.ExecutionID)
	if x.Status != card.Fail || x.Points != 0 || !strings.Contains(x.Message, "不是你的错") || !strings.Contains(x.Detail, "image not known") {
		t.Errorf("fay: %+v", x)
	}
	if c := findingCodes(got["fay"]); !slices.Contains(c, "exec_environment") {
		t.Errorf("fay's findings %v lack exec_environment", c)
	}
	if got["gus"].Gradable {
		t.Fatal("truncated notebook graded")
	}
	if _, ok := got["gus"].Score(criteria.ExecutionID); ok || slices.Contains(run.seen, "2-gus") {
		t.Errorf("an ungradable submission was executed")
	}
}

// Options that cannot work stop before anything runs.
func TestExecuteAllChecksOptionsFirst(t *testing.T) {
	f := newFixture(t, "hal")
	run := &fakeRun{t: t}
	sub := f.g.Grade("hal.ipynb", f.submitted(t, "hal", correctCard(t, f.variants["hal"])))
	if _, err := execute.ExecuteAll(context.Background(), f.g, []*grader.Submission{sub}, execute.ExecOptions{Executor: run, Release: releaseBytes(t)}, nil); err == nil || !strings.Contains(err.Error(), "KeepSource") {
		t.Errorf("err = %v, want the KeepSource error", err)
	}
	g, _ := grader.NewGrader(grader.Options{Key: testKey, Roster: f.roster, KeepSource: true})
	sub = g.Grade("hal.ipynb", f.submitted(t, "hal", correctCard(t, f.variants["hal"])))
	if _, err := execute.ExecuteAll(context.Background(), g, []*grader.Submission{sub}, execute.ExecOptions{Executor: run, Release: []byte(`{"cells": []}`)}, nil); err == nil {
		t.Error("a release without locked cells was accepted")
	}
	if len(run.seen) != 0 {
		t.Errorf("ran %v before the options were checked", run.seen)
	}
}

// A learner who filled the card but never ran the self-check is ungradable
// from the file alone; under --execute the re-run grades them. An edit to a
// locked cell is still a warning, since only the restore saw it; and a
// re-run that fails too leaves the submission ungradable, saying why.
func TestExecuteAllGradesANotebookWhoseSelfCheckNeverRan(t *testing.T) {
	ids := []string{"ida", "jon", "kim"}
	f := newFixture(t, ids...)
	notRun := func(id string) []byte { return fill(t, f.nb[id], goLiteral(correctCard(t, f.variants[id])), nil) }
	jon := edit(t, notRun("jon"), func(_ map[string]any, cells []any) []any {
		cellByRole(cells, notebook.RoleData)["source"] = `var unit = must(trace.ReadFile("other.jsonl"))`
		return cells
	})
	run := &fakeRun{t: t, release: releaseBytes(t)}
	run.behave = func(_ context.Context, job execute.ExecJob, _ []byte) (execute.ExecResult, bool) {
		if strings.HasSuffix(job.Name, "-kim") {
			return execute.ExecResult{ExitCode: 1, Log: "FAIL x: cell 4: error output: undefined: myCard\n"}, true
		}
		return execute.ExecResult{}, false
	}
	// Before the re-run all three are ungradable for the same reason.
	for _, id := range ids {
		if s := f.g.Grade(id+".ipynb", notRun(id)); s.Gradable || s.ReasonCode != notebook.ReasonSelfCheck {
			t.Fatalf("%s: gradable %v, reason %q", id, s.Gradable, s.ReasonCode)
		}
	}
	got := executedBatch(t, run, ids, map[string][]byte{"ida": notRun("ida"), "jon": jon, "kim": notRun("kim")}, execute.ExecOptions{})

	ida := got["ida"]
	if !ida.Gradable || ida.File != "ida.ipynb" || ida.Name != "ida.ipynb" {
		t.Fatalf("ida: gradable %v (%s), file %q, name %q", ida.Gradable, ida.Reason, ida.File, ida.Name)
	}
	if ida.SavedAt != "" { // her file had no saved time; the re-run's is not hers
		t.Errorf("ida: saved at %s (%s), want none", ida.SavedAt, ida.SavedAtFrom)
	}
	if x, _ := ida.Score(criteria.ExecutionID); x.Status != card.Pass || !strings.Contains(x.Message, "没有运行自检") {
		t.Errorf("ida: execution %+v", x)
	}
	if x, _ := ida.Score("figures.failure_rate"); x.Status != card.Pass {
		t.Errorf("ida: the re-run card was not graded: figures.failure_rate %+v", x)
	}
	if !slices.Contains(findingCodes(ida), "graded_from_rerun") || !ida.IntegrityOK() {
		t.Errorf("ida: integrity %+v", ida.Integrity)
	}
	jonS := got["jon"]
	if !jonS.Gradable || jonS.IntegrityOK() || !slices.Contains(findingCodes(jonS), "exec_restored") {
		t.Errorf("jon: gradable %v, integrity %+v: the edited data cell must stay a warning", jonS.Gradable, jonS.Integrity)
	}
	kim := got["kim"]
	if kim.Gradable || kim.ReasonCode != notebook.ReasonSelfCheck || !strings.Contains(kim.Reason, "也没有得到口径卡") || !strings.Contains(kim.Reason, "undefined: myCard") {
		t.Errorf("kim: gradable %v, reason %q", kim.Gradable, kim.Reason)
	}
	if _, ok := kim.Score(criteria.ExecutionID); ok {
		t.Errorf("kim: an ungradable submission got an execution score")
	}
}

// An executed copy that cannot be kept is a note for the instructor, not
// a lost fact and not a stopped batch.
func TestExecuteAllReportsACopyItCouldNotKeep(t *testing.T) {
	f := newFixture(t, "lea")
	g, _ := grader.NewGrader(grader.Options{Key: testKey, Roster: f.roster, KeepSource: true})
	sub := g.Grade("lea.ipynb", f.submitted(t, "lea", correctCard(t, f.variants["lea"])))
	keep := t.TempDir()
	if err := os.Mkdir(filepath.Join(keep, "1-lea.ipynb"), 0o755); err != nil { // a folder where the copy goes
		t.Fatal(err)
	}
	run := &fakeRun{t: t, release: releaseBytes(t)}
	notes, err := execute.ExecuteAll(context.Background(), g, []*grader.Submission{sub}, execute.ExecOptions{Executor: run, Release: run.release, WorkDir: t.TempDir(), KeepDir: keep}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0].Text, "lea.ipynb: the executed copy was not kept") || !strings.Contains(notes[0].Zh, "没有保存下来") {
		t.Errorf("notes = %q", notes)
	}
	if x, _ := sub.Score(criteria.ExecutionID); x.Status != card.Pass {
		t.Errorf("the run itself was fine: %+v", x)
	}
	if _, err := os.Stat(filepath.Join(keep, "1-lea.log")); err != nil {
		t.Errorf("the log was not kept beside it: %v", err)
	}
}
