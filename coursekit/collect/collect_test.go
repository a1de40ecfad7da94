package collect

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const deliverable = "notebooks/unit01/06-deliverable.ipynb"

// write creates root/rel with text, making folders.
func write(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot records every entry under root (type, mode, size, mtime,
// content hash, link target), to prove collect changed nothing there.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		v := fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			v += " -> " + target
		case info.Mode().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			v += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		snap[path] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func home(root, id string) Home {
	return Home{Learner: id, Dir: filepath.Join(root, id), From: "dir " + id}
}

func readOut(t *testing.T, out, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func manifest(t *testing.T, out string) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(out, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	byLearner := map[string][]string{}
	for _, r := range rows[1:] {
		byLearner[r[0]] = append(byLearner[r[0]], r[1])
	}
	return byLearner
}

// Each learner's deliverable lands as <id>.ipynb, byte for byte; a learner
// without one and a roster learner without any home are both reported; the
// learners' files are untouched.
func TestCollectOnePerLearner(t *testing.T) {
	root, out := t.TempDir(), filepath.Join(t.TempDir(), "submissions")
	write(t, root, "alice/"+deliverable, `{"alice": 1}`)
	write(t, root, "bob/"+deliverable, `{"bob": 2}`)
	write(t, root, "bob/notebooks/unit01/05-read-the-tool-docs.ipynb", `{}`)
	write(t, root, "carol/notebooks/unit01/06-deliverable-Copy1.ipynb", `{"carol": "copy"}`)
	before := snapshot(t, root)

	res, err := Collect([]Home{home(root, "bob"), home(root, "alice"), home(root, "carol")},
		Options{Out: out, Roster: []string{"alice", "bob", "carol", "dave"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := readOut(t, out, "alice.ipynb"); got != `{"alice": 1}` {
		t.Errorf("alice.ipynb = %q", got)
	}
	if got := readOut(t, out, "bob.ipynb"); got != `{"bob": 2}` {
		t.Errorf("bob.ipynb = %q", got)
	}
	if len(res.Files) != 2 || res.Files[0].Learner != "alice" || res.Files[0].Source != "dir alice:"+filepath.FromSlash(deliverable) {
		t.Errorf("files = %+v", res.Files)
	}
	if !slices.Equal(res.Missing, []string{"carol"}) || !slices.Equal(res.NoHome, []string{"dave"}) {
		t.Errorf("missing %v, no home %v; want [carol], [dave]", res.Missing, res.NoHome)
	}
	if len(res.Similar) != 1 || res.Similar[0].Learner != "carol" || !strings.Contains(res.Similar[0].Source, "06-deliverable-Copy1.ipynb") {
		t.Errorf("similar = %+v, want carol's copy listed", res.Similar)
	}
	if _, err := os.Stat(filepath.Join(out, "carol.ipynb")); err == nil {
		t.Error("carol's similar-named copy was collected as her deliverable")
	}
	m := manifest(t, out)
	for id, want := range map[string]string{"alice": "collected", "bob": "collected", "carol": "missing", "dave": "no-home"} {
		if !slices.Contains(m[id], want) {
			t.Errorf("manifest rows for %s = %v, want %q", id, m[id], want)
		}
	}
	after := snapshot(t, root)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("the learners' files changed:\nbefore %v\nafter  %v", before, after)
	}
}

// Two candidates for one learner: both are kept, in a folder named after
// the learner (grade reads a folder name as the learner id), and reported.
func TestCollectSeveralCandidatesKeepsAll(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	write(t, root, "alice/"+deliverable, "first")
	write(t, root, "alice/06-deliverable.ipynb", "second")
	res, err := Collect([]Home{home(root, "alice")}, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Several, []string{"alice"}) {
		t.Errorf("several = %v", res.Several)
	}
	var dests []string
	for _, f := range res.Files {
		dests = append(dests, filepath.ToSlash(f.Dest))
	}
	sort.Strings(dests)
	want := []string{"alice/1-06-deliverable.ipynb", "alice/2-notebooks_unit01_06-deliverable.ipynb"}
	if !slices.Equal(dests, want) {
		t.Fatalf("dests = %v, want %v", dests, want)
	}
	if readOut(t, out, want[0]) != "second" || readOut(t, out, want[1]) != "first" {
		t.Error("a candidate's bytes were not kept")
	}
	if _, err := os.Stat(filepath.Join(out, "alice.ipynb")); err == nil {
		t.Error("alice.ipynb written although alice has two candidates")
	}
	if m := manifest(t, out); !slices.Equal(m["alice"], []string{"several", "several"}) {
		t.Errorf("manifest rows for alice = %v", m["alice"])
	}
}

// A deliverable that is a symlink (to another learner's work or a host
// file) is not followed; hidden folders and checkpoints are not searched.
func TestCollectNeverFollowsSymlinks(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	write(t, root, "bob/"+deliverable, "bob's work")
	write(t, root, "secret.txt", "host secret")
	if err := os.MkdirAll(filepath.Join(root, "alice/notebooks/unit01"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "bob", deliverable), filepath.Join(root, "alice", deliverable)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "secret.txt"), filepath.Join(root, "alice", "06-deliverable.ipynb")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "bob", "notebooks"), filepath.Join(root, "alice", "linked")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "alice/.ipynb_checkpoints/06-deliverable.ipynb", "checkpoint")
	write(t, root, "alice/.local/06-deliverable.ipynb", "hidden")
	res, err := Collect([]Home{home(root, "alice"), home(root, "bob")}, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Files[0].Learner != "bob" {
		t.Errorf("files = %+v, want only bob's", res.Files)
	}
	if !slices.Equal(res.Missing, []string{"alice"}) {
		t.Errorf("missing = %v, want [alice]", res.Missing)
	}
	if len(res.Skipped) != 2 {
		t.Errorf("skipped = %+v, want alice's two symlinks", res.Skipped)
	}
	for _, s := range res.Skipped {
		if s.Learner != "alice" || !strings.Contains(s.Reason, "not followed") {
			t.Errorf("skipped %+v", s)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "alice.ipynb")); err == nil {
		t.Error("a symlink was followed into alice.ipynb")
	}
}

// An output folder holding another collect's files, or an older copy of a
// learner's notebook, is refused before anything is written; collecting
// the same files again into it is harmless.
func TestCollectNeverOverwrites(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	write(t, root, "alice/"+deliverable, "v1")
	write(t, root, "bob/"+deliverable, "bob")
	homes := []Home{home(root, "alice"), home(root, "bob")}
	if _, err := Collect(homes, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	res, err := Collect(homes, Options{Out: out})
	if err != nil {
		t.Fatalf("collecting unchanged files again: %v", err)
	}
	for _, f := range res.Files {
		if !f.Same {
			t.Errorf("%s rewritten although unchanged", f.Dest)
		}
	}

	write(t, root, "alice/"+deliverable, "v2")
	if err := os.Remove(filepath.Join(out, "bob.ipynb")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, out)
	_, err = Collect(homes, Options{Out: out})
	if err == nil || !strings.Contains(err.Error(), "alice.ipynb (differs") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("err = %v, want a refusal naming alice.ipynb", err)
	}
	if fmt.Sprint(before) != fmt.Sprint(snapshot(t, out)) {
		t.Error("the refused collect wrote into the output folder")
	}

	other := t.TempDir()
	write(t, other, "notes.txt", "mine")
	_, err = Collect(homes, Options{Out: other})
	if err == nil || !strings.Contains(err.Error(), "notes.txt (not from this collect)") {
		t.Fatalf("err = %v, want a refusal naming notes.txt", err)
	}
}

// A notebook over the cap is reported, not copied; a bad learner id is
// reported, not used as a file name.
func TestCollectLimits(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	write(t, root, "alice/"+deliverable, strings.Repeat("x", 100))
	write(t, root, "bad..id/"+deliverable, "x")
	res, err := Collect([]Home{home(root, "alice"), {Learner: "../bob", Dir: filepath.Join(root, "bad..id"), From: "dir bad"}},
		Options{Out: out, MaxBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 0 || len(res.Skipped) != 2 {
		t.Fatalf("files %+v skipped %+v", res.Files, res.Skipped)
	}
	if !strings.Contains(res.Skipped[0].Reason+res.Skipped[1].Reason, "over the 10-byte cap") {
		t.Errorf("skipped = %+v, want the cap named", res.Skipped)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 || entries[0].Name() != ManifestFile {
		t.Errorf("out holds %v, want only the manifest", entries)
	}
}

func TestDirsTemplate(t *testing.T) {
	root := t.TempDir()
	write(t, root, filepath.Join("alice", "work", deliverable), "a")
	write(t, root, "bob/other.txt", "no work folder")
	write(t, root, "plainfile", "")
	homes, err := Dirs(root, "{username}/work")
	if err != nil {
		t.Fatal(err)
	}
	if len(homes) != 1 || homes[0].Learner != "alice" || homes[0].Dir != filepath.Join(root, "alice", "work") {
		t.Fatalf("homes = %+v", homes)
	}
	write(t, root, "claim-carol/x", "")
	homes, err = Dirs(root, "claim-{username}")
	if err != nil || len(homes) != 1 || homes[0].Learner != "carol" {
		t.Fatalf("homes = %+v, %v", homes, err)
	}
	for _, bad := range []string{"work", "{username}-{username}", "home/{username}"} {
		if _, err := ParseTemplate(bad); err == nil {
			t.Errorf("ParseTemplate(%q) accepted", bad)
		}
	}
}

// Volumes asks the engine CLI for volume names and mount points; a fake
// engine (a script) stands in for podman here, test-hub uses the real one.
func TestVolumesFromEngine(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "va"), filepath.Join(dir, "vb")
	script := fmt.Sprintf(`#!/bin/sh
case "$1 $2" in
"volume ls") printf 'course-alice\ncourse--41l-2dx\nother-volume\ncourse-\n' ;;
"volume inspect") shift 4; for v in "$@"; do case "$v" in course-alice) printf '%%s\t%s\n' "$v";; course--41l-2dx) printf '%%s\t%s\n' "$v";; *) echo "no such volume $v" >&2; exit 1;; esac; done ;;
*) echo "unexpected $*" >&2; exit 2 ;;
esac
`, a, b)
	engine := filepath.Join(dir, "engine")
	if err := os.WriteFile(engine, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	homes, err := Volumes(context.Background(), engine, "course-{username}")
	if err != nil {
		t.Fatal(err)
	}
	want := []Home{{Learner: "Al-x", Dir: b, From: "volume course--41l-2dx"}, {Learner: "alice", Dir: a, From: "volume course-alice"}}
	if fmt.Sprint(homes) != fmt.Sprint(want) {
		t.Errorf("homes = %+v, want %+v", homes, want)
	}
	if _, err := Volumes(context.Background(), filepath.Join(dir, "missing-engine"), "course-{username}"); err == nil {
		t.Error("a missing engine gave no error")
	}
}

// A learner whose user directory or work folder is a symlink (to another
// learner's files or the host's) is not followed, and not dropped either:
// the learner and the link are listed as skipped, in the result and in
// collected.csv; everyone else is collected as usual.
func TestDirsReportsSymlinkedHomes(t *testing.T) {
	root, elsewhere, out := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, root, "alice/course/"+deliverable, "alice")
	write(t, elsewhere, "bob/course/"+deliverable, "not bob's folder")
	write(t, elsewhere, "carol/"+deliverable, "not carol's folder")
	write(t, root, "dave/course/notebooks/.keep", "")
	if err := os.Symlink(filepath.Join(elsewhere, "bob"), filepath.Join(root, "bob")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "carol"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "carol"), filepath.Join(root, "carol", "course")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "carol"), filepath.Join(root, "erin")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "frank", "course"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "carol", "notebooks"), filepath.Join(root, "frank", "course", "notebooks")); err != nil {
		t.Fatal(err)
	}
	before, beforeElsewhere := snapshot(t, root), snapshot(t, elsewhere)

	homes, err := Dirs(root, "{username}/course")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Collect(homes, Options{Out: out, Roster: []string{"alice", "bob", "carol", "dave", "erin", "frank", "gina"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Files[0].Learner != "alice" || readOut(t, out, "alice.ipynb") != "alice" {
		t.Errorf("files = %+v, want alice's only", res.Files)
	}
	links := map[string]string{"bob": filepath.Join(root, "bob"), "carol": filepath.Join(root, "carol", "course"), "erin": filepath.Join(root, "erin")}
	got := map[string]Skipped{}
	for _, s := range res.Skipped {
		got[s.Learner] = s
	}
	for id, link := range links {
		s, ok := got[id]
		if !ok || !strings.Contains(s.Source+" "+s.Reason, link) || !strings.Contains(s.Reason, "symlink") || !strings.Contains(s.Reason, "not followed") {
			t.Errorf("skipped[%s] = %+v, want the link %s named and not followed", id, s, link)
		}
	}
	if len(res.Skipped) != len(links) {
		t.Errorf("skipped = %+v, want bob, carol and erin", res.Skipped)
	}
	// dave has a work folder without the notebook, frank's notebooks
	// folder is a link inside a real work folder: both have no deliverable.
	if !slices.Equal(res.Missing, []string{"dave", "frank"}) || !slices.Equal(res.NoHome, []string{"gina"}) {
		t.Errorf("missing %v, no home %v; want [dave frank], [gina]", res.Missing, res.NoHome)
	}
	m := manifest(t, out)
	for id := range links {
		if !slices.Equal(m[id], []string{"skipped"}) {
			t.Errorf("manifest rows for %s = %v, want one skipped row", id, m[id])
		}
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 {
		t.Errorf("out holds %v, want alice.ipynb and the manifest", entries)
	}
	if fmt.Sprint(before) != fmt.Sprint(snapshot(t, root)) || fmt.Sprint(beforeElsewhere) != fmt.Sprint(snapshot(t, elsewhere)) {
		t.Error("collect changed the learners' files or the links' targets")
	}

	// With the user directories themselves as homes, the same links.
	homes, err = Dirs(root, "{username}")
	if err != nil {
		t.Fatal(err)
	}
	res, err = Collect(homes, Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Learner)
	}
	if !slices.Equal(skipped, []string{"bob", "erin"}) {
		t.Errorf("skipped = %+v, want bob and erin", res.Skipped)
	}
}

// A volume's mount point that is a symlink is skipped and reported, the
// other volumes collected: one odd volume does not stop the class.
func TestCollectSymlinkedMountPoint(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	write(t, root, "va/"+deliverable, "alice")
	write(t, root, "target/"+deliverable, "someone else")
	if err := os.Symlink(filepath.Join(root, "target"), filepath.Join(root, "vb")); err != nil {
		t.Fatal(err)
	}
	res, err := Collect([]Home{{Learner: "alice", Dir: filepath.Join(root, "va"), From: "volume a"}, {Learner: "bob", Dir: filepath.Join(root, "vb"), From: "volume b"}}, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Files[0].Learner != "alice" {
		t.Errorf("files = %+v, want alice's", res.Files)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Learner != "bob" || !strings.Contains(res.Skipped[0].Reason, "not followed") {
		t.Errorf("skipped = %+v, want bob's volume", res.Skipped)
	}
}
