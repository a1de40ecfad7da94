//go:build unix

package main

import (
	"github.com/llmperf-course/course/coursekit/grade/report"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/review"
)

// The files of OUT the instructor edits (overrides.csv, manual-review.csv)
// are read as a learner's file is: a symlink or a FIFO there is refused,
// naming the file and reading nothing, and a file that is not the CSV it
// should be is named with its line, never quoted: the key's bytes (the
// walk linked OUT/overrides.csv to course.key) reach no message.
func TestGradeCLIOutFilesFollowNoLink(t *testing.T) {
	c, out, args := gradedClass(t)
	key, _ := os.ReadFile(c.key)
	secret := strings.TrimSpace(string(key))
	manual := filepath.Join(out, review.ManualFile)
	saved, _ := os.ReadFile(manual)
	for _, name := range []string{review.OverridesFile, review.ManualFile} {
		p := filepath.Join(out, name)
		for _, tc := range []struct {
			kind string
			make func() error
			want string
		}{
			{"symlink", func() error { return os.Symlink(c.key, p) }, p + " is a symlink, not a regular file"},
			{"fifo", func() error { return syscall.Mkfifo(p, 0o644) }, p + " is a named pipe (FIFO), not a regular file"},
			{"copy of the key", func() error { return os.WriteFile(p, key, 0o644) }, p + ":1: "},
		} {
			os.Remove(p)
			if err := tc.make(); err != nil {
				t.Fatal(err)
			}
			code, e := runCLIUnblocked(t, p, args...)
			if code != 2 || !strings.Contains(e, tc.want) || strings.Contains(e, secret) || strings.Contains(e, secret[:8]) {
				t.Errorf("%s as a %s: exit %d, want exit 2 with %q and no byte of the key:\n%s", name, tc.kind, code, tc.want, e)
			}
		}
		os.Remove(p)
		if name == review.ManualFile {
			os.WriteFile(p, saved, 0o644)
		}
	}
	if code, o, e := runCLI(t, args...); code != 0 {
		t.Errorf("OUT's own files back: exit %d\n%s%s", code, o, e)
	}
}

// A symlinked OUT/edited (the folder grade keeps edited copies in) is
// refused, naming it, before anything is graded: through it an edited
// copy was written outside OUT.
func TestGradeCLIEditedFolderIsNotALink(t *testing.T) {
	c, out, args := gradedClass(t)
	elsewhere := filepath.Join(c.dir, "elsewhere")
	os.MkdirAll(elsewhere, 0o755)
	edited := filepath.Join(out, "edited")
	if err := os.Symlink(elsewhere, edited); err != nil {
		t.Fatal(err)
	}
	fb := filepath.Join(out, "feedback", "alice.md")
	b, _ := os.ReadFile(fb)
	os.WriteFile(fb, append(b, "\n老师补充。\n"...), 0o644)
	code, o, e := runCLI(t, args...)
	if code != 2 || !strings.Contains(e, edited+" is a symlink") {
		t.Errorf("OUT/edited a symlink: exit %d, want exit 2 naming %s\n%s%s", code, edited, o, e)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("grade wrote %d entries outside OUT through OUT/edited", len(ents))
	}
	// Below edited/ too: a linked edited/feedback is refused the same way.
	os.Remove(edited)
	os.MkdirAll(edited, 0o755)
	sub := filepath.Join(edited, "feedback")
	os.Symlink(elsewhere, sub)
	if code, o, e := runCLI(t, args...); code != 2 || !strings.Contains(e, sub+" is a symlink") {
		t.Errorf("OUT/edited/feedback a symlink: exit %d, want exit 2 naming %s\n%s%s", code, sub, o, e)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("grade wrote %d entries outside OUT through OUT/edited/feedback", len(ents))
	}
}

// Every file of OUT grade reads back (its run record, the files it wrote,
// whose hashes tell an edit) is read as a learner's file is: a FIFO there
// hung the run, and a link to /dev/zero as the run record ran it out of
// memory. A symlink or a FIFO anywhere in OUT is refused, naming it,
// before anything is written; and a staging folder an interrupted run
// left beside OUT whose marker is a FIFO or a link is left alone, unread.
func TestGradeCLIOutReadsNoFIFOOrLink(t *testing.T) {
	c, out, args := gradedClass(t)
	listing := func() string {
		var names []string
		filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
			names = append(names, p)
			return nil
		})
		return strings.Join(names, "\n")
	}
	for _, name := range []string{"summary.md", "feedback/alice.md", report.RunFile} {
		p := filepath.Join(out, filepath.FromSlash(name))
		saved, _ := os.ReadFile(p)
		elsewhere := filepath.Join(c.dir, "copy-of-"+filepath.Base(p))
		os.WriteFile(elsewhere, saved, 0o644)
		for _, tc := range []struct {
			kind string
			make func() error
			want string
		}{
			{"fifo", func() error { return syscall.Mkfifo(p, 0o644) }, p + " is a named pipe (FIFO), not a regular file"},
			{"symlink", func() error { return os.Symlink(elsewhere, p) }, p + " is a symlink, not a regular file"},
		} {
			os.Remove(p)
			if err := tc.make(); err != nil {
				t.Fatal(err)
			}
			before := listing()
			code, e := runCLIUnblocked(t, p, args...)
			if code != 2 || !strings.Contains(e, tc.want) {
				t.Errorf("%s as a %s: exit %d, want exit 2 with %q:\n%s", name, tc.kind, code, tc.want, e)
			}
			if after := listing(); after != before {
				t.Errorf("%s as a %s: grade wrote beside or into OUT:\nbefore:\n%s\nafter:\n%s", name, tc.kind, before, after)
			}
		}
		os.Remove(p)
		os.WriteFile(p, saved, 0o644)
	}
	// Stale staging folders whose marker is not a regular file.
	for _, tc := range []struct {
		kind string
		make func(string) error
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"symlink", func(p string) error {
			dead := filepath.Join(c.dir, "dead-marker")
			os.WriteFile(dead, []byte("written by coursekit grade (pid 999999999): x\n"), 0o644)
			return os.Symlink(dead, p)
		}},
	} {
		stale := filepath.Join(c.dir, ".graded.new-"+tc.kind)
		os.MkdirAll(stale, 0o755)
		marker := filepath.Join(stale, report.OutMarker)
		if err := tc.make(marker); err != nil {
			t.Fatal(err)
		}
		if code, e := runCLIUnblocked(t, marker, args...); code != 0 {
			t.Errorf("a stale staging folder with a %s marker: exit %d\n%s", tc.kind, code, e)
		}
		if _, err := os.Lstat(marker); err != nil {
			t.Errorf("a staging folder whose marker is a %s is not grade's, yet it was removed: %v", tc.kind, err)
		}
	}
	if code, o, e := runCLI(t, args...); code != 0 {
		t.Errorf("OUT's own files back: exit %d\n%s%s", code, o, e)
	}
}
