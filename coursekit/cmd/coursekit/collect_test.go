package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// The instructor's flow on a hub's user directories: collect, then grade
// the collected folder. Each learner's row comes from their own file; a
// learner with no work folder is reported by collect and has no
// submission in grades.csv; the learners' files are left as they were.
func TestCollectThenGradeCLI(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\ncarol\n", map[string]*card.Card{"alice": {}, "bob": {}})
	homes := filepath.Join(c.dir, "home")
	for _, id := range []string{"alice", "bob"} {
		nb, err := os.ReadFile(filepath.Join(c.sub, id, "06-deliverable.ipynb"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(homes, id, "work", "notebooks", "unit01", "06-deliverable.ipynb")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nb, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(homes, "carol"), 0o755) // never opened the lab: no work folder
	collected := filepath.Join(c.dir, "collected")

	code, out, errs := runCLI(t, "collect", "--dirs", homes, "--layout", "{username}/work", "--roster", c.roster, "--out", collected)
	if code != 0 {
		t.Fatalf("collect: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "collected 2 notebooks of 2 learners") || !strings.Contains(errs, "on the roster with no volume or directory: carol") {
		t.Errorf("collect output:\n%s%s", out, errs)
	}
	for _, id := range []string{"alice", "bob"} {
		if _, err := os.Stat(filepath.Join(collected, id+".ipynb")); err != nil {
			t.Error(err)
		}
	}

	graded := filepath.Join(c.dir, "graded")
	code, out, errs = runCLI(t, "grade", "--key-file", c.key, "--roster", c.roster, "--out", graded, collected)
	if code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, out, errs)
	}
	rows, col := csvRows(t, filepath.Join(graded, "grades.csv"))
	status := map[string]string{}
	for _, r := range rows[1:] {
		status[r[0]] = r[col["status"]]
	}
	if status["carol"] != "no submission" || status["alice"] == "no submission" || status["bob"] == "no submission" ||
		strings.Contains(status["alice"]+status["bob"], "ungradable") {
		t.Errorf("grades.csv status = %v", status)
	}

	// Bad use is a clear error with exit 2.
	for name, args := range map[string][]string{
		"both sources": {"collect", "--dirs", homes, "--volumes", "v-{username}", "--out", collected},
		"no template":  {"collect", "--dirs", homes, "--layout", "work", "--out", collected},
		"nothing":      {"collect", "--dirs", filepath.Join(c.dir, "release", "alice"), "--layout", "none-{username}", "--out", filepath.Join(c.dir, "x")},
	} {
		if code, _, errs := runCLI(t, args...); code != 2 || errs == "" {
			t.Errorf("%s: exit %d, stderr %q", name, code, errs)
		}
	}
}

// A folder name with a newline or an escape code is one escaped line on
// stderr and stdout, not a forged line or a terminal command.
func TestCollectEscapesFolderNames(t *testing.T) {
	homes := t.TempDir()
	bad := "mallory\ncollect: all good\x1b[2J"
	p := filepath.Join(homes, bad, "06-deliverable.ipynb")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Skip("this file system refuses such names:", err)
	}
	os.WriteFile(p, []byte(`{"cells":[]}`), 0o644)
	_, out, errs := runCLI(t, "collect", "--dirs", homes, "--out", filepath.Join(t.TempDir(), "c"))
	if strings.Contains(out+errs, "\x1b") || strings.Contains(out+errs, "\ncollect: all good") || !strings.Contains(out+errs, `mallory\ncollect: all good\x1b[2J`) {
		t.Errorf("collect printed a folder name raw:\n%q\n%q", out, errs)
	}
}

// Control codes and bidi overrides in folder names reach neither
// collected.csv nor the names of the files collect copies: they are
// written escaped, as on the terminal.
func TestCollectManifestAndNamesEscaped(t *testing.T) {
	homes := t.TempDir()
	for _, rel := range []string{"alice/a\x1b[2J/06-deliverable.ipynb", "alice/b\u202egnp/06-deliverable.ipynb", "eve\u202e\x07/06-deliverable.ipynb"} {
		p := filepath.Join(homes, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, []byte(`{"cells":[]}`), 0o644)
	}
	dst := filepath.Join(t.TempDir(), "c")
	if code, o, e := runCLI(t, "collect", "--dirs", homes, "--out", dst); code != 0 {
		t.Fatalf("collect: exit %d\n%s%s", code, o, e)
	}
	b, _ := os.ReadFile(filepath.Join(dst, "collected.csv"))
	if strings.ContainsAny(string(b), "\x1b\u202e\x07") || !strings.Contains(string(b), "eve") {
		t.Errorf("collected.csv holds a folder name raw:\n%q", b)
	}
	filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if strings.ContainsAny(p, "\x1b\u202e\x07") {
			t.Errorf("collect wrote a file named with a control code: %q", p)
		}
		return nil
	})
}

// A learner whose user directory is a symlink (here to a classmate's) is
// reported on collect's stderr and in collected.csv, by learner and link,
// and not followed: grade then has no submission for them, and nothing a
// learner reads names the link. The classmate is collected as usual.
func TestCollectReportsSymlinkedHome(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\ncarol\n", map[string]*card.Card{"alice": {}})
	homes := filepath.Join(c.dir, "home")
	nb, err := os.ReadFile(filepath.Join(c.sub, "alice", "06-deliverable.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(homes, "alice", "work", "06-deliverable.ipynb")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, nb, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(homes, "bob")
	if err := os.Symlink(filepath.Join(homes, "alice"), link); err != nil {
		t.Fatal(err)
	}
	collected := filepath.Join(c.dir, "collected")
	for run := 1; run <= 2; run++ { // a second collect into the same folder says the same
		code, out, errs := runCLI(t, "collect", "--dirs", homes, "--layout", "{username}/work", "--roster", c.roster, "--out", collected)
		if code != 0 {
			t.Fatalf("collect %d: exit %d\n%s%s", run, code, out, errs)
		}
		if !strings.Contains(errs, "collect: bob: ") || !strings.Contains(errs, link+" is a symlink") || !strings.Contains(errs, "not followed") ||
			strings.Contains(errs, "no volume or directory: bob") {
			t.Errorf("collect %d stderr does not name bob's link:\n%s", run, errs)
		}
		if !strings.Contains(out, "collected 1 notebook of 1 learner") || !strings.Contains(out, "2 without a deliverable") {
			t.Errorf("collect %d stdout:\n%s", run, out)
		}
	}
	rows, col := csvRows(t, filepath.Join(collected, "collected.csv"))
	var bobRows []string
	for _, r := range rows[1:] {
		if r[0] == "bob" {
			bobRows = append(bobRows, r[col["status"]]+" "+r[col["note"]])
		}
	}
	if len(bobRows) != 1 || !strings.HasPrefix(bobRows[0], "skipped ") || !strings.Contains(bobRows[0], link) {
		t.Errorf("collected.csv rows for bob = %q", bobRows)
	}
	if _, err := os.Stat(filepath.Join(collected, "bob.ipynb")); err == nil {
		t.Error("bob's link was followed")
	}

	graded := filepath.Join(c.dir, "graded")
	if code, out, errs := runCLI(t, "grade", "--key-file", c.key, "--roster", c.roster, "--out", graded, collected); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, out, errs)
	}
	rows, col = csvRows(t, filepath.Join(graded, "grades.csv"))
	for _, r := range rows[1:] {
		if want := map[string]bool{"alice": false, "bob": true, "carol": true}[r[0]]; (r[col["status"]] == "no submission") != want {
			t.Errorf("grades.csv: %s is %q", r[0], r[col["status"]])
		}
	}
	filepath.WalkDir(graded, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), homes) {
				t.Errorf("%s names the learners' folders", p)
			}
		}
		return nil
	})
}
