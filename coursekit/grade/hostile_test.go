package grade

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/report"
)

// Hostile submissions: links and FIFOs in a submissions folder and in
// Gradescope mode, case-folded JSON keys, control characters and invalid
// UTF-8 in zip entry names, and zips of many ignored entries.

// courseKey is a stand-in for the instructor's key: none of its bytes
// may reach anything a learner or the terminal reads.
const courseKey = "QSECRETKEY-0123456789abcdef\n"

// mkfifo makes a FIFO at p. Its cleanup opens the write end without
// blocking, which releases a reader stuck in open(2) if the code under
// test opened it (the test then fails on its bound, not hangs).
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
}

// within runs f and fails the test if it does not return in d: a
// submission that blocks the batch must fail the test, not hang it.
func within[T any](t *testing.T, d time.Duration, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("%s did not return within %v: one file blocks the whole batch", what, d)
	}
	var zero T
	return zero
}

// A submissions folder with a symlink to the key, a symlink to another
// learner's notebook and a FIFO: each is refused with a reason naming the
// file and its kind, none of the target's bytes is read, the batch does
// not block, and each refused learner is reported in their row.
func TestGradeFolderRefusesLinksAndFIFOs(t *testing.T) {
	f := newFixture(t, "s001", "s002", "s003", "s004")
	dir := t.TempDir()
	sub := filepath.Join(dir, "submitted")
	os.MkdirAll(sub, 0o755)
	key := filepath.Join(dir, "course.key")
	os.WriteFile(key, []byte(courseKey), 0o600)
	good := f.submitted(t, "s001", correctCard(t, f.variants["s001"]))
	os.WriteFile(filepath.Join(sub, "s001.ipynb"), good, 0o644)
	if err := os.Symlink(key, filepath.Join(sub, "s002.ipynb")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(sub, "s001.ipynb"), filepath.Join(sub, "s003.ipynb")); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(sub, "s004.ipynb"))

	col, err := grader.Collect([]string{sub})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	var progress bytes.Buffer
	subs := within(t, 20*time.Second, "grading the folder", func() []*grader.Submission { return f.g.GradeInputs(col.Inputs, &progress) })
	if len(subs) != 4 {
		t.Fatalf("%d submissions, want 4 (nothing dropped): %s", len(subs), progress.String())
	}
	kinds := map[string]string{"s002": "符号链接", "s003": "符号链接", "s004": "命名管道"}
	for _, s := range subs {
		if s.Learner == "s001" {
			if !s.Gradable {
				t.Errorf("s001 (a regular file): %s %s", s.ReasonCode, s.Reason)
			}
			continue
		}
		kind, ok := kinds[s.Learner]
		if !ok {
			t.Errorf("a submission of learner %q (%s): want s002, s003, s004 in their rows", s.Learner, s.Name)
			continue
		}
		if s.Gradable || s.ReasonCode != notebook.ReasonNotRegular {
			t.Errorf("%s: gradable %v, reason %s (%s); want %s", s.Learner, s.Gradable, s.ReasonCode, s.Reason, notebook.ReasonNotRegular)
		}
		if !strings.Contains(s.Reason, s.Learner+".ipynb") || !strings.Contains(s.Reason, kind) {
			t.Errorf("%s: reason %q does not name the file and %s", s.Learner, s.Reason, kind)
		}
		if strings.Contains(s.Reason, "'Q'") || strings.Contains(s.Reason, "QSECRET") || strings.Contains(s.Reason, "invalid character") {
			t.Errorf("%s: reason quotes the link target's bytes: %q", s.Learner, s.Reason)
		}
	}
	if strings.Contains(progress.String(), "QSECRET") {
		t.Errorf("progress shows the key:\n%s", progress.String())
	}
	b := batch.NewBatch(f.roster, f.g.Points(), subs)
	out := t.TempDir()
	if err := report.Write(b, out); err != nil {
		t.Fatal(err)
	}
	res, err := os.ReadFile(filepath.Join(out, "results", "s002.json"))
	if err != nil {
		res, _ = json.Marshal(subs)
	}
	if bytes.Contains(res, []byte("QSECRET")) || bytes.Contains(res, []byte(`'Q'`)) {
		t.Errorf("s002's results quote the key:\n%s", res)
	}
}

// An LMS zip whose .ipynb entries are a symlink (its data is the link's
// target, "../course.key") and a FIFO by their mode: each grades as
// not_regular_file naming the entry and its kind, not as invalid JSON, and
// nothing of the target is quoted.
func TestZipLinkEntriesAreNotRegular(t *testing.T) {
	f := newFixture(t, "s001", "s002", "s003")
	z := filepath.Join(t.TempDir(), "lms.zip")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, mode os.FileMode, data []byte) {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	add("s001/06-deliverable.ipynb", 0o644, f.submitted(t, "s001", correctCard(t, f.variants["s001"])))
	add("s002/06-deliverable.ipynb", os.ModeSymlink|0o777, []byte("../course.key"))
	add("s003/06-deliverable.ipynb", os.ModeNamedPipe|0o644, []byte(courseKey))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(z, buf.Bytes(), 0o644)
	col, err := grader.Collect([]string{z})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	subs := f.g.GradeInputs(col.Inputs, nil)
	kinds := map[string]string{"s002": "符号链接", "s003": "命名管道"}
	for _, s := range subs {
		kind, refused := kinds[s.Learner]
		switch {
		case s.Learner == "s001":
			if !s.Gradable {
				t.Errorf("s001 (a regular entry): %s %s", s.ReasonCode, s.Reason)
			}
		case !refused:
			t.Errorf("a submission of %q (%s)", s.Learner, s.Name)
		case s.Gradable || s.ReasonCode != notebook.ReasonNotRegular || !strings.Contains(s.Reason, "06-deliverable.ipynb") || !strings.Contains(s.Reason, kind):
			t.Errorf("%s: gradable %v, %s: %q; want %s naming the entry and %s", s.Learner, s.Gradable, s.ReasonCode, s.Reason, notebook.ReasonNotRegular, kind)
		case strings.Contains(s.Reason, "course.key") || strings.Contains(s.Reason, "QSECRET"):
			t.Errorf("%s: the reason quotes the entry's data: %q", s.Learner, s.Reason)
		}
	}
}

// Gradescope mode: the one notebook uploaded is a symlink to the key, or
// a FIFO. Each is refused in results.json, naming the file and its kind,
// with none of the key's bytes, and the run returns.
func TestGradescopeRefusesLinkAndFIFO(t *testing.T) {
	g, _ := gsGrader(t)
	for _, kind := range []string{"symlink", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			root := gsRoot(t, gsMeta("alice", ""), nil)
			p := filepath.Join(root, gradescope.GSSubmissionDir, "06-deliverable.ipynb")
			switch kind {
			case "symlink":
				key := filepath.Join(root, "course.key")
				os.WriteFile(key, []byte(courseKey), 0o600)
				if err := os.Symlink(key, p); err != nil {
					t.Fatal(err)
				}
			case "fifo":
				mkfifo(t, p)
			}
			type ran struct {
				run *gradescope.GSRun
				err error
			}
			r := within(t, 20*time.Second, "the Gradescope run", func() ran {
				run, err := gradescope.RunGradescope(g, root)
				return ran{run, err}
			})
			if r.err != nil {
				t.Fatal(r.err)
			}
			s := r.run.Sub
			want := map[string]string{"symlink": "符号链接", "fifo": "命名管道"}[kind]
			if s.Gradable || s.ReasonCode != notebook.ReasonNotRegular || !strings.Contains(s.Reason, "06-deliverable.ipynb") || !strings.Contains(s.Reason, want) {
				t.Errorf("gradable %v, %s: %q; want %s naming the file and %s", s.Gradable, s.ReasonCode, s.Reason, notebook.ReasonNotRegular, want)
			}
			if bytes.Contains(r.run.Results, []byte("QSECRET")) || bytes.Contains(r.run.Results, []byte(`'Q'`)) || bytes.Contains(r.run.Results, []byte("invalid character")) {
				t.Errorf("results.json quotes the link target:\n%s", r.run.Results)
			}
		})
	}
}

// A key of nbformat's structure that Go's encoding/json would match
// case-insensitively shadows the real one (Jupyter and Python read only
// the exact key): such a notebook is refused, the reason saying where.
func TestNotebookCaseFoldedKeysRefused(t *testing.T) {
	f := newFixture(t, "alice")
	good := f.submitted(t, "alice", correctCard(t, f.variants["alice"]))
	if _, err := notebook.ParseNotebook(good); err != nil {
		t.Fatal(err)
	}
	card := func(cells []any) map[string]any { return cellByRole(cells, notebook.RoleCard) }
	for _, tc := range []struct {
		name  string
		edit  func(m map[string]any, cells []any) []any
		where string // in the reason
	}{
		{"CELLS beside cells", func(m map[string]any, cells []any) []any { m["CELLS"] = []any{}; return cells }, `"CELLS"`},
		{"Cells beside cells", func(m map[string]any, cells []any) []any { m["Cells"] = cells[:1]; return cells }, `"Cells"`},
		{"NBFormat", func(m map[string]any, cells []any) []any { m["NBFormat"] = 4; return cells }, `"NBFormat"`},
		{"Metadata.Coursekit", func(m map[string]any, cells []any) []any {
			m["metadata"].(map[string]any)["Coursekit"] = map[string]any{}
			return cells
		}, `metadata`},
		{"cell Source", func(m map[string]any, cells []any) []any {
			card(cells)["Source"] = "var myCard = card.Card{}\n"
			return cells
		}, `"Source"`},
		{"cell CELL_TYPE", func(m map[string]any, cells []any) []any { card(cells)["CELL_TYPE"] = "raw"; return cells }, `"CELL_TYPE"`},
		{"cell Outputs", func(m map[string]any, cells []any) []any {
			cellByRole(cells, notebook.RoleSelfCheck)["Outputs"] = []any{}
			return cells
		}, `"Outputs"`},
		{"output Data", func(m map[string]any, cells []any) []any {
			o := cellByRole(cells, notebook.RoleSelfCheck)["outputs"].([]any)[0].(map[string]any)
			o["DATA"] = map[string]any{}
			return cells
		}, `"DATA"`},
		{"cell metadata Tags", func(m map[string]any, cells []any) []any {
			cells[0].(map[string]any)["metadata"].(map[string]any)["Tags"] = []any{"card"}
			return cells
		}, `"Tags"`},
		{"Kelvin sign", func(m map[string]any, cells []any) []any {
			m["metadata"].(map[string]any)["course\u212ait"] = map[string]any{}
			return cells
		}, `metadata`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := edit(t, good, tc.edit)
			_, err := notebook.ParseNotebook(nb)
			u, _ := err.(*notebook.Ungradable)
			if u == nil || u.Code != notebook.ReasonFoldedKey || !strings.Contains(u.Msg, tc.where) {
				t.Fatalf("ParseNotebook: %v; want %s naming %s", err, notebook.ReasonFoldedKey, tc.where)
			}
			if s := f.g.Grade("alice.ipynb", nb); s.Gradable || s.ReasonCode != notebook.ReasonFoldedKey {
				t.Errorf("graded: gradable %v %s %s", s.Gradable, s.ReasonCode, s.Reason)
			}
		})
	}
	// Keys that are not nbformat's stay allowed, whatever their case.
	other := edit(t, good, func(m map[string]any, cells []any) []any {
		m["metadata"].(map[string]any)["Kernelspec_Extra"] = 1
		card(cells)["metadata"].(map[string]any)["ExecuteTime"] = map[string]any{}
		return cells
	})
	if s := f.g.Grade("alice.ipynb", other); !s.Gradable {
		t.Errorf("other keys: %s %s", s.ReasonCode, s.Reason)
	}
}

// A zip whose entry names carry terminal control codes and invalid UTF-8:
// progress lines and warnings show them escaped, grades.csv, the HTML and
// the summary hold valid UTF-8 (U+FFFD), and the summary shows the
// original bytes escaped so the instructor can find the entry.
func TestZipEntryNamesControlAndInvalidUTF8(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	dir := t.TempDir()
	z := filepath.Join(dir, "lms.zip")
	good := string(f.submitted(t, "alice", correctCard(t, f.variants["alice"])))
	writeZip(t, z,
		[2]string{"alice/06-deliverable.ipynb", good},
		[2]string{"bob\x1b[2K\r\xff\xfe/06-deliverable.ipynb", "{"},
		[2]string{"notes\x1b]0;pwned\x07\x9b\xc2\x9b.txt", "x"},
	)
	col, err := grader.Collect([]string{z})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	var progress bytes.Buffer
	subs := f.g.GradeInputs(col.Inputs, &progress)
	var text bytes.Buffer
	text.Write(progress.Bytes())
	for _, w := range col.Notes {
		text.WriteString(w.Text + "\n")
	}
	if bytes.ContainsAny(text.Bytes(), "\x1b\r\x07") || bytes.Contains(text.Bytes(), []byte("\xc2\x9b")) || !utf8.Valid(text.Bytes()) {
		t.Errorf("progress and warnings carry control codes or invalid UTF-8:\n%q", text.String())
	}
	if !strings.Contains(text.String(), `\x1b`) {
		t.Errorf("the control codes are not shown escaped:\n%s", text.String())
	}
	b := batch.NewBatch(f.roster, f.g.Points(), subs)
	b.Warnings = append(append([]grader.Warning(nil), col.Notes...), b.Warnings...)
	out := t.TempDir()
	if err := report.Write(b, out); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"grades.csv", "summary.md", "summary.html", "class.html"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(data) {
			t.Errorf("%s is not valid UTF-8", name)
		}
		if bytes.ContainsAny(data, "\x1b\x07") {
			t.Errorf("%s carries control codes", name)
		}
		if name == "grades.csv" && !bytes.Contains(data, []byte("\uFFFD")) {
			t.Errorf("grades.csv does not show the bad bytes as U+FFFD:\n%s", data)
		}
		// Markdown escapes the backslash: \\xff renders as \xff.
		if name == "summary.md" && !bytes.Contains(bytes.ReplaceAll(data, []byte(`\\`), []byte(`\`)), []byte(`\xff\xfe`)) {
			t.Errorf("summary.md does not show the entry's original bytes escaped:\n%s", data)
		}
	}
}

// 1,000 ignored entries in one zip: the warning lists the first 20 and
// says how many more, on stderr and in the summary.
func TestZipManyIgnoredEntriesSummarised(t *testing.T) {
	f := newFixture(t, "alice")
	dir := t.TempDir()
	z := filepath.Join(dir, "lms.zip")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("alice/06-deliverable.ipynb")
	w.Write(f.submitted(t, "alice", correctCard(t, f.variants["alice"])))
	for i := range 1000 {
		zw.Create(fmt.Sprintf("alice/junk-%04d.txt", i))
	}
	zw.Close()
	os.WriteFile(z, buf.Bytes(), 0o644)
	col, err := grader.Collect([]string{z})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	notes := joinWarnings(col.Notes)
	if !strings.Contains(notes, "ignored 1000 entries") || !strings.Contains(notes, "junk-0019.txt") || strings.Contains(notes, "junk-0020.txt") || !strings.Contains(notes, "and 980 more") {
		t.Errorf("warning (%d bytes) does not list the first 20 and the count of the rest:\n%.600s", len(notes), notes)
	}
	subs := f.g.GradeInputs(col.Inputs, nil)
	b := batch.NewBatch(f.roster, f.g.Points(), subs)
	b.Warnings = append(append([]grader.Warning(nil), col.Notes...), b.Warnings...)
	out := t.TempDir()
	if err := report.Write(b, out); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if bytes.Contains(md, []byte("junk-0020.txt")) || !bytes.Contains(md, []byte("另有 980 个")) {
		t.Errorf("summary.md (%d bytes) lists every ignored entry or lacks the count of the rest", len(md))
	}
}

// A learner's folder that is a symlink (here to another learner's folder) is not walked into
// and not skipped silently: it grades as not_regular_file in the row its name says, like a
// symlinked file (the attacker walk's s002 showed "no submission").
func TestGradeFolderReportsSymlinkedLearnerFolder(t *testing.T) {
	f := newFixture(t, "s001", "s002")
	sub := filepath.Join(t.TempDir(), "submitted")
	os.MkdirAll(filepath.Join(sub, "s001"), 0o755)
	os.WriteFile(filepath.Join(sub, "s001", "06-deliverable.ipynb"), f.submitted(t, "s001", correctCard(t, f.variants["s001"])), 0o644)
	if err := os.Symlink(filepath.Join(sub, "s001"), filepath.Join(sub, "s002")); err != nil {
		t.Fatal(err)
	}
	col, err := grader.Collect([]string{sub})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	subs := within(t, 20*time.Second, "grading the folder", func() []*grader.Submission { return f.g.GradeInputs(col.Inputs, nil) })
	var s002 *grader.Submission
	for _, s := range subs {
		if s.Learner == "s002" {
			s002 = s
		}
	}
	if len(subs) != 2 || s002 == nil {
		t.Fatalf("%d submissions, s002 %v: the symlinked folder is dropped", len(subs), s002)
	}
	if s002.Gradable || s002.ReasonCode != notebook.ReasonNotRegular || !strings.Contains(s002.Reason, "符号链接") {
		t.Errorf("s002: gradable %v, %s (%s); want %s naming a symlink", s002.Gradable, s002.ReasonCode, s002.Reason, notebook.ReasonNotRegular)
	}
}

// A small zip whose entries together declare more than grader.MaxZipUncompressedBytes (many
// entries of one highly compressible stream) is refused whole, at once, with the reason; the
// attacker walk's 66 KB zip took 33.5 s to grade.
func TestZipTotalUncompressedCap(t *testing.T) {
	f := newFixture(t, "alice")
	const each = 4 << 20
	big := bytes.Repeat([]byte(" "), each)
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(big)
	fw.Close()
	crc := crc32.ChecksumIEEE(big)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	n := grader.MaxZipUncompressedBytes/each + 1
	for i := range n {
		rw, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("alice/%04d.ipynb", i), Method: zip.Deflate, CRC32: crc, CompressedSize64: uint64(comp.Len()), UncompressedSize64: each})
		if err != nil {
			t.Fatal(err)
		}
		rw.Write(comp.Bytes())
	}
	zw.Close()
	p := filepath.Join(t.TempDir(), "bomb.zip")
	os.WriteFile(p, buf.Bytes(), 0o644)
	col, err := grader.Collect([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	if len(col.Inputs) != 1 {
		t.Fatalf("%d inputs for a zip over the total cap: want it refused whole", len(col.Inputs))
	}
	subs := within(t, 5*time.Second, "grading the zip", func() []*grader.Submission { return f.g.GradeInputs(col.Inputs, nil) })
	if s := subs[0]; s.Gradable || s.ReasonCode != notebook.ReasonTooLarge || !strings.Contains(s.Reason, fmt.Sprint(grader.MaxZipUncompressedBytes)) {
		t.Errorf("zip over the total cap: %s (%s)", s.ReasonCode, s.Reason)
	}
	if !strings.Contains(joinWarnings(col.Notes), "over the cap") {
		t.Errorf("no note: %s", joinWarnings(col.Notes))
	}
}
