package main

import (
	"encoding/csv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/review"
)

// snapshot is every file under dir (hidden ones too) with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			m[rel] = string(b)
		}
		return nil
	})
	return m
}

// setManual sets column col (added to the header when the file has no
// such column, as an instructor adds one in a spreadsheet) in the row of
// learner id and criterion crit of OUT/manual-review.csv.
func setManual(t *testing.T, path, id, crit, col, value string) {
	t.Helper()
	rows, cols := csvRows(t, path)
	i, ok := cols[col]
	if !ok {
		i = len(rows[0])
		for k := range rows {
			rows[k] = append(rows[k], "")
		}
		rows[0][i] = col
	}
	found := false
	for _, r := range rows[1:] {
		if r[cols["id"]] == id && r[cols["criterion"]] == crit {
			r[i], found = value, true
		}
	}
	if !found {
		t.Fatalf("no row %s/%s in %s", id, crit, path)
	}
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	w.WriteAll(rows)
	os.WriteFile(path, []byte(sb.String()), 0o644)
}

// One late file graded into an OUT that holds the graded class never
// blanks the others: the run refuses, exit 2, OUT byte for byte as it
// was, and says the exact command that grades the class with the late
// file; that command works, and the late file counts.
func TestGradeCLIPartialRunKeepsTheClass(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\ncarol\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队。"}, "bob": {CounterEvidence: "GPU 很忙。"}, "carol": {CounterEvidence: "超时。"},
	})
	out := filepath.Join(c.dir, "graded")
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out}
	if code, o, e := runCLI(t, append(args, c.sub)...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	before := snapshot(t, out)

	// carol's late resubmission, in a folder of its own.
	late := filepath.Join(c.dir, "late")
	nb, _ := os.ReadFile(filepath.Join(c.rel, "carol", "06-deliverable.ipynb"))
	nb = selfCheckedCard(t, nb, filepath.Join(c.rel, "carol", "trace.jsonl"), &card.Card{Clock: "client", CounterEvidence: "迟交：排队和超时。"})
	os.MkdirAll(late, 0o755)
	os.WriteFile(filepath.Join(late, "carol.ipynb"), nb, 0o644)

	code, o, e := runCLI(t, append(args, late)...)
	if code == 0 {
		t.Fatalf("a partial run into a graded class: exit 0\n%s%s", o, e)
	}
	if after := snapshot(t, out); len(after) != len(before) {
		t.Errorf("refused run changed OUT: %d files, was %d", len(after), len(before))
	} else {
		for k, v := range before {
			if after[k] != v {
				t.Errorf("refused run changed %s", k)
			}
		}
	}
	var cmd []string
	for _, line := range strings.Split(e, "\n") {
		if i := strings.Index(line, "coursekit grade "); i >= 0 {
			cmd = strings.Fields(line[i:])[1:]
		}
	}
	if cmd == nil || !strings.Contains(e, "alice") || !strings.Contains(e, "bob") {
		t.Fatalf("no command to run, or the learners it would blank are not named:\n%s", e)
	}
	code, o, e = runCLI(t, cmd...)
	if code != 0 {
		t.Fatalf("the suggested command %q: exit %d\n%s%s", cmd, code, o, e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	for _, r := range g[1:] {
		if !strings.HasPrefix(r[gc["status"]], "graded") {
			t.Errorf("%s: %s", r[gc["id"]], r[gc["status"]])
		}
		if r[gc["id"]] == "carol" && (r[gc["stated.clock"]] != "1" || !strings.Contains(r[gc["status"]], "also handed in")) {
			t.Errorf("carol's late file did not count: %v", r)
		}
	}
	for _, id := range []string{"alice", "bob", "carol"} {
		if _, err := os.Stat(filepath.Join(out, "feedback", id+".md")); err != nil {
			t.Errorf("no feedback for %s: %v", id, err)
		}
	}
}

// A re-grade keeps what the instructor added to OUT: files grade did not
// write, an edited feedback file (in the backup, with a warning), columns
// added to manual-review.csv; the comment column reaches the learner's
// feedback, escaped. --force keeps the discarded typed scores in a
// backup; a missing --manual file is "not found"; a staging folder left
// by an interrupted run is cleaned up with a note.
func TestGradeCLIOutKeepsWhatTheInstructorAdds(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。"}, "bob": {CounterEvidence: "GPU 很忙，所以没问题。"},
	})
	out := filepath.Join(c.dir, "graded")
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out}
	if code, o, e := runCLI(t, append(args, c.sub)...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	os.WriteFile(filepath.Join(out, "notes-alice.txt"), []byte("talk to alice"), 0o644)
	os.MkdirAll(filepath.Join(out, "comments"), 0o755)
	os.WriteFile(filepath.Join(out, "comments", "bob.docx"), []byte("docx"), 0o644)
	fb := filepath.Join(out, "feedback", "alice.md")
	b, _ := os.ReadFile(fb)
	os.WriteFile(fb, append(b, "\n老师补充：做得好。\n"...), 0o644)
	manual := filepath.Join(out, review.ManualFile)
	setManual(t, manual, "bob", "text.counter_evidence", "score", "1")
	setManual(t, manual, "bob", "text.counter_evidence", "comment", "<b>论证</b>不够：忙不等于没问题。")
	setManual(t, manual, "bob", "text.counter_evidence", "ta", "Li")
	// An interrupted run's staging folder.
	stale := filepath.Join(c.dir, ".graded.new-1234")
	os.MkdirAll(filepath.Join(stale, "feedback"), 0o755)
	os.WriteFile(filepath.Join(stale, ".coursekit-grade"), []byte("written by coursekit grade\n"), 0o644)

	code, o, e := runCLI(t, append(args, c.sub)...)
	if code != 0 {
		t.Fatalf("re-grade: exit %d\n%s%s", code, o, e)
	}
	for f, want := range map[string]string{"notes-alice.txt": "talk to alice", "comments/bob.docx": "docx"} {
		if got, err := os.ReadFile(filepath.Join(out, f)); err != nil || string(got) != want {
			t.Errorf("re-grade lost %s (%v)", f, err)
		}
	}
	if !strings.Contains(e, filepath.Join("feedback", "alice.md")) {
		t.Errorf("no warning about the edited feedback/alice.md:\n%s", e)
	}
	backups, _ := filepath.Glob(filepath.Join(c.dir, "graded.bak-*"))
	if len(backups) != 1 {
		t.Fatalf("backups %v, want one", backups)
	}
	if b, _ := os.ReadFile(filepath.Join(backups[0], "feedback", "alice.md")); !strings.Contains(string(b), "老师补充") {
		t.Errorf("the edited feedback is not in the backup %s", backups[0])
	}
	m, col := manualByLearner(t, manual)
	r := m["bob/text.counter_evidence"]
	if _, ok := col["ta"]; !ok || r == nil || r[col["ta"]] != "Li" || r[col["score"]] != "1" {
		t.Errorf("manual-review.csv lost the added column or the score: %v %v", col, r)
	}
	if _, ok := col["comment"]; !ok || !strings.Contains(r[col["comment"]], "忙不等于没问题") {
		t.Errorf("manual-review.csv has no comment column or lost the comment: %v %v", col, r)
	}
	md, _ := os.ReadFile(filepath.Join(out, "feedback", "bob.md"))
	page, _ := os.ReadFile(filepath.Join(out, "feedback", "bob.html"))
	if !strings.Contains(string(md), "忙不等于没问题") || !strings.Contains(string(page), "&lt;b&gt;论证&lt;/b&gt;不够") || strings.Contains(string(page), "<b>论证") {
		t.Errorf("the comment does not reach bob's feedback, escaped:\n%s", md)
	}
	if _, err := os.Stat(stale); err == nil || !strings.Contains(e, ".graded.new-1234") {
		t.Errorf("stale staging folder left (or not mentioned):\n%s", e)
	}

	// A missing --manual file is "not found".
	code, _, e = runCLI(t, append(append(args, "--manual", filepath.Join(c.dir, "nosuch.csv"), "--force"), c.sub)...)
	if code != 2 || !strings.Contains(e, "nosuch.csv") || !strings.Contains(e, "not found") {
		t.Errorf("--manual nosuch.csv: exit %d\n%s", code, e)
	}
	// --force with a TA's file: OUT's typed scores are in a backup.
	ta := filepath.Join(c.dir, "ta.csv")
	mb, _ := os.ReadFile(manual)
	os.WriteFile(ta, []byte(strings.Split(string(mb), "\n")[0]+"\n"), 0o644)
	code, o, e = runCLI(t, append(append(args, "--manual", ta, "--force"), c.sub)...)
	if code != 0 {
		t.Fatalf("--force: exit %d\n%s%s", code, o, e)
	}
	backups, _ = filepath.Glob(filepath.Join(c.dir, "graded.bak-*"))
	kept := false
	for _, bk := range backups {
		if bm, _ := os.ReadFile(filepath.Join(bk, review.ManualFile)); strings.Contains(string(bm), "忙不等于没问题") {
			kept = kept || strings.Contains(o+e, filepath.Base(bk))
		}
	}
	if !kept {
		t.Errorf("--force: the typed scores are in no backup it names (%v):\n%s%s", backups, o, e)
	}
}

// OUT records the weights it was graded with: a re-grade without
// --weights keeps them (and says so); other weights are refused unless
// --change-weights, and then a typed score is rescaled to the new
// maximum with a warning, never left silently partial.
func TestGradeCLIWeightsAreRecorded(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。"}, "bob": {CounterEvidence: "GPU 很忙。"},
	})
	out := filepath.Join(c.dir, "graded")
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out}
	w3 := filepath.Join(c.dir, "w3.csv")
	os.WriteFile(w3, []byte("criterion,points\ntext.outputs,3\n"), 0o644)
	if code, o, e := runCLI(t, append(args, "--weights", w3, c.sub)...); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	maxOf := func() string {
		g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
		return g[1][gc["max"]]
	}
	if maxOf() != "49" {
		t.Fatalf("weighted max %s", maxOf())
	}
	manual := filepath.Join(out, review.ManualFile)
	setManual(t, manual, "alice", "text.counter_evidence", "score", "2") // full marks

	// No --weights: the recorded ones, said on stderr.
	code, o, e := runCLI(t, append(args, c.sub)...)
	if code != 0 || maxOf() != "49" || !strings.Contains(e, "weights") {
		t.Errorf("re-grade without --weights: exit %d, max %s\n%s%s", code, maxOf(), o, e)
	}
	// Other weights: refused, OUT untouched.
	w4 := filepath.Join(c.dir, "w4.csv")
	os.WriteFile(w4, []byte("criterion,points\ntext.outputs,3\ntext.counter_evidence,4\n"), 0o644)
	before := snapshot(t, out)
	code, o, e = runCLI(t, append(args, "--weights", w4, c.sub)...)
	if code != 2 || !strings.Contains(e, "text.counter_evidence") || !strings.Contains(e, "--change-weights") {
		t.Errorf("other weights: exit %d\n%s%s", code, o, e)
	}
	if after := snapshot(t, out); after["grades.csv"] != before["grades.csv"] {
		t.Errorf("refused run changed grades.csv")
	}
	// Told to: the typed full marks become 4/4, with a warning.
	code, o, e = runCLI(t, append(args, "--weights", w4, "--change-weights", c.sub)...)
	if code != 0 || !strings.Contains(e, "rescaled") {
		t.Fatalf("--change-weights: exit %d\n%s%s", code, o, e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	if g[1][gc["text.counter_evidence"]] != "4" || g[1][gc["max"]] != "51" {
		t.Errorf("alice after the weight change: %v", g[1])
	}
	m, col := manualByLearner(t, manual)
	if r := m["alice/text.counter_evidence"]; r == nil || r[col["max"]] != "4" || r[col["score"]] != "4" {
		t.Errorf("manual-review.csv row after the weight change: %v", r)
	}
}
