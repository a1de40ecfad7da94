package report

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/llmperf-course/course/coursekit/internal/regfile"
)

// OutMarker is the file Stage writes into every OUT it fills: an OUT with
// it (or, from older versions, with a grades.csv) is coursekit grade's own
// and may be replaced by the next run.
const OutMarker = ".coursekit-grade"

// Backups is how many earlier runs Commit keeps next to OUT, as
// OUT.bak-1, OUT.bak-2, ... (the highest number is the newest).
const Backups = 5

// Stage is a grading run's output folder while it is being written: a
// hidden sibling of OUT. Commit puts it in OUT's place: OUT is always
// either the previous run's outputs or this run's; the previous run is
// kept as a backup (OUT.bak-N), and every file in OUT that grade did not
// write (notes, a comments/ folder) is carried into the new OUT.
type Stage struct {
	Dir string // write here
	out string
	// Notes are what NewStage did with staging folders left behind by
	// interrupted runs, for the instructor.
	Notes []string
}

// NewStage checks that out may be replaced (it does not exist, is empty,
// or was written by coursekit grade) and makes the staging folder next to
// it. The error names the first file that is not grade's. Staging folders
// of earlier runs that were interrupted (their process is gone) are
// removed, and a previous OUT left aside by an interrupted commit is put
// back; Notes says so.
func NewStage(out string) (*Stage, error) {
	out = filepath.Clean(out)
	if err := CheckOut(out); err != nil {
		return nil, err
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	notes := cleanStale(out)
	dir, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".new-")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, OutMarker), []byte(fmt.Sprintf("written by coursekit grade (pid %d): the next run replaces this folder, keeping the files grade did not write\n", os.Getpid())), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Stage{Dir: dir, out: out, Notes: notes}, nil
}

// cleanStale removes the staging folders (.OUT.new-*) and set-aside
// outputs (.OUT.old-*) that interrupted runs left next to out, unless the
// run that made one is still running. A set-aside OUT with no OUT in its
// place (a run stopped between its two renames) is put back.
func cleanStale(out string) []string {
	parent, base := filepath.Dir(out), filepath.Base(out)
	var notes []string
	for _, kind := range []string{".new-", ".old-"} {
		dirs, _ := filepath.Glob(filepath.Join(parent, "."+base+kind+"*"))
		for _, d := range dirs {
			if st, err := os.Lstat(d); err != nil || !st.IsDir() {
				continue // not a folder grade made: leave it
			}
			marker, err := regfile.Read(filepath.Join(d, OutMarker), "a staging folder's marker", MaxMarkerBytes)
			if err != nil && kind == ".new-" {
				continue // not grade's: leave it
			}
			if pid := markerPID(marker); pid > 0 && pid != os.Getpid() && processAlive(pid) {
				continue // another grade run is writing it
			}
			if _, err := os.Lstat(out); kind == ".old-" && errors.Is(err, os.ErrNotExist) {
				if os.Rename(d, out) == nil {
					notes = append(notes, fmt.Sprintf("put back %s as %s: an earlier run was interrupted while replacing it", filepath.Base(d), out))
					continue
				}
			}
			if os.RemoveAll(d) == nil {
				notes = append(notes, fmt.Sprintf("removed %s, left by an interrupted grade run (%s was not changed by it)", filepath.Base(d), base))
			}
		}
	}
	return notes
}

// markerPID is the pid written into a staging folder's marker, or 0.
func markerPID(marker []byte) int {
	_, rest, ok := strings.Cut(string(marker), "(pid ")
	if !ok {
		return 0
	}
	pid, err := strconv.Atoi(strings.SplitN(rest, ")", 2)[0])
	if err != nil {
		return 0
	}
	return pid
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

// CheckOut reports whether out may be replaced by a grading run: it does
// not exist, is an empty folder, or holds OutMarker or grades.csv.
func CheckOut(out string) error {
	st, err := os.Stat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("--out %s is a file, not a folder", out)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	if len(entries) == 0 || slices.ContainsFunc(entries, func(e os.DirEntry) bool {
		return e.Name() == OutMarker || e.Name() == "grades.csv"
	}) {
		if err := checkEdited(out); err != nil {
			return err
		}
		return checkRegular(out)
	}
	names := make([]string, 0, 3)
	for _, e := range entries[:min(3, len(entries))] {
		names = append(names, e.Name())
	}
	return fmt.Errorf("--out %s holds files coursekit grade did not write (%s): grade writes only into a new or empty folder, or one it wrote before", out, strings.Join(names, ", "))
}

// checkEdited refuses an OUT/EditedDir that is not a folder, or that
// holds a symlink: grade writes the edited copies of its files there, and
// through a link would write outside OUT.
func checkEdited(out string) error {
	dir := filepath.Join(out, EditedDir)
	st, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	why := "grade keeps the edited copies of its files in " + dir + " and writes through no link there: move it away, or put the folder itself in its place"
	if !st.IsDir() {
		return fmt.Errorf("%s is %s, not a folder: %s", dir, regfile.Kind(st.Mode()), why)
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink: %s", p, why)
		}
		return nil
	})
}

// checkRegular refuses OUT when it holds anything but regular files and
// folders (outside executed/, which grade neither reads nor carries): grade
// reads its own files back to tell an edit, and carries the instructor's
// into the next OUT, and a FIFO there would hang it, a link would be
// followed out of OUT.
func checkRegular(out string) error {
	return filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == out {
			return nil
		}
		if d.IsDir() {
			if rel, _ := filepath.Rel(out, p); rel == "executed" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is %s, not a regular file: grade reads and carries only regular files and folders in OUT; move it out of %s and grade again", p, regfile.Kind(d.Type()), out)
		}
		return nil
	})
}

// MaxMarkerBytes bounds the read of a staging folder's marker, a line.
const MaxMarkerBytes = 4 << 10

// Committed is what Commit did with the previous OUT.
type Committed struct {
	// Backup is the previous run's outputs, as they were (OUT.bak-N), or
	// "" when there was no previous OUT.
	Backup string
	// Kept are the files grade did not write, carried into the new OUT
	// (slash-separated, relative to OUT).
	Kept []string
	// Edited are files grade wrote in the previous run and someone changed
	// since: the new run wrote its own; the changed one is in Backup.
	// Clashes are files someone added where this run wrote one of its own:
	// theirs is in Backup.
	Edited, Clashes []string
	// EditedKept is, for each of Edited, where the edited version is kept
	// in the new OUT (EditedDir/..., slash-separated, relative to OUT): a
	// folder no run writes or deletes, so the edit outlives the backups.
	EditedKept []string
}

// EditedDir is the folder of OUT where Commit keeps the files grade wrote
// that someone edited since (feedback/s03.md as edited/feedback/s03.md):
// grade never writes it, so every later run carries it forward like any
// file the instructor added, and backup rotation never deletes it.
const EditedDir = "edited"

// gradeOwned reports whether rel (slash-separated, relative to OUT) is a
// file a grading run writes, for an OUT without a run record (written by
// an older coursekit) and for the executed/ folder, which the record
// does not list.
func gradeOwned(rel string) bool {
	switch rel {
	case OutMarker, RunFile, "grades.csv", "manual-review.csv", "summary.md", "summary.html", ClassFile, "grades.json":
		return true
	}
	dir, name := path.Split(rel)
	switch dir {
	case "results/":
		return strings.HasSuffix(name, ".json")
	case "feedback/":
		return strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".html")
	}
	return strings.HasPrefix(rel, "executed/")
}

// Commit puts the staged outputs in OUT's place. The previous OUT is kept
// whole as OUT.bak-N (the newest Backups of them are kept); every file
// in it that grade did not write (prev, the previous run record, lists
// what grade wrote; nil: by name) is first copied into the new OUT, so
// nothing the instructor added is lost. If the second rename fails, the
// previous outputs are put back.
func (s *Stage) Commit(prev *Run) (*Committed, error) {
	c := &Committed{}
	if _, err := os.Lstat(s.out); err == nil {
		if err := s.carry(prev, c); err != nil {
			return nil, err
		}
		bak, err := nextBackup(s.out)
		if err != nil {
			return nil, err
		}
		if err := os.Rename(s.out, bak); err != nil {
			return nil, err
		}
		c.Backup = bak
	}
	if err := os.Rename(s.Dir, s.out); err != nil {
		if c.Backup != "" {
			os.Rename(c.Backup, s.out)
		}
		return nil, err
	}
	pruneBackups(s.out)
	return c, nil
}

// carry copies every file of OUT that grade did not write into the stage
// (hard links when it can), and lists the files of grade's that someone
// edited.
func (s *Stage) carry(prev *Run, c *Committed) error {
	if err := checkEdited(s.out); err != nil { // again: grading took a while
		return err
	}
	if err := checkRegular(s.out); err != nil {
		return err
	}
	if err := s.carryAdded(prev, c); err != nil {
		return err
	}
	// Edited files of grade's: kept in EditedDir, after the files there
	// from earlier runs were carried (a second edit of one file gets a
	// name of its own).
	for _, rel := range c.Edited {
		kept, err := s.keepEdited(rel)
		if err != nil {
			return err
		}
		c.EditedKept = append(c.EditedKept, kept)
	}
	return nil
}

// keepEdited puts OUT's edited rel into the stage's EditedDir: as
// EditedDir/rel, or, when an earlier edit of it is there with other
// content, EditedDir/NAME.edit-N.EXT. It returns where (relative to OUT).
func (s *Stage) keepEdited(rel string) (string, error) {
	src := filepath.Join(s.out, filepath.FromSlash(rel))
	sum, err := fileSHA(src)
	if err != nil {
		return "", err
	}
	ext := path.Ext(rel)
	for n := 1; ; n++ {
		kept := path.Join(EditedDir, rel)
		if n > 1 {
			kept = path.Join(EditedDir, strings.TrimSuffix(rel, ext)+fmt.Sprintf(".edit-%d", n)+ext)
		}
		dst := filepath.Join(s.Dir, filepath.FromSlash(kept))
		if have, err := fileSHA(dst); err == nil {
			if have == sum {
				return kept, nil // this very edit is kept already
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		return kept, linkOrCopy(src, dst)
	}
}

// carryAdded copies the files of OUT that grade did not write into the
// stage, and lists the files of grade's that someone edited (c.Edited).
func (s *Stage) carryAdded(prev *Run, c *Committed) error {
	return filepath.WalkDir(s.out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.out, p)
		rel = filepath.ToSlash(rel)
		if rel == "." || rel == OutMarker || rel == RunFile {
			return nil
		}
		if d.IsDir() {
			if rel == "executed" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(s.Dir, rel), 0o755)
		}
		owned := gradeOwned(rel)
		if prev != nil && prev.Files != nil && !strings.HasPrefix(rel, "executed/") {
			sum, ok := prev.Files[rel]
			owned = ok
			if ok && rel != "manual-review.csv" { // typing scores into it is what it is for
				if now, err := fileSHA(p); err == nil && now != sum {
					c.Edited = append(c.Edited, rel)
				}
			}
		}
		if owned {
			return nil
		}
		dst := filepath.Join(s.Dir, filepath.FromSlash(rel))
		if _, err := os.Lstat(dst); err == nil {
			c.Clashes = append(c.Clashes, rel)
			return nil
		}
		if err := linkOrCopy(p, dst); err != nil {
			return err
		}
		c.Kept = append(c.Kept, rel)
		return nil
	})
}

// fileSHA is the sha256 of the regular file p (regfile.Open: a link or a
// FIFO swapped in since checkRegular is refused, unread).
func fileSHA(p string) (string, error) {
	f, _, err := regfile.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// linkOrCopy makes dst the same file as the regular file src: a hard
// link, else a copy.
func linkOrCopy(src, dst string) error {
	in, st, err := regfile.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if os.Link(src, dst) == nil {
		return nil
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// backupNumbers are the N of the OUT.bak-N folders next to out, in order.
func backupNumbers(out string) []int {
	dirs, _ := filepath.Glob(out + ".bak-*")
	var ns []int
	for _, d := range dirs {
		if n, err := strconv.Atoi(strings.TrimPrefix(d, out+".bak-")); err == nil && n > 0 {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns
}

// nextBackup is the name of the next backup of out: OUT.bak-N, N one more
// than the highest there.
func nextBackup(out string) (string, error) {
	n := 1
	if ns := backupNumbers(out); len(ns) > 0 {
		n = ns[len(ns)-1] + 1
	}
	return fmt.Sprintf("%s.bak-%d", out, n), nil
}

// pruneBackups removes all but the newest Backups backups of out.
func pruneBackups(out string) {
	ns := backupNumbers(out)
	for _, n := range ns[:max(0, len(ns)-Backups)] {
		os.RemoveAll(fmt.Sprintf("%s.bak-%d", out, n))
	}
}

// Abort removes the staging folder; OUT is left as it was.
func (s *Stage) Abort() error { return os.RemoveAll(s.Dir) }
