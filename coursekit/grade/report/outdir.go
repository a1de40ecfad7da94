package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// OutMarker is the file Stage writes into every OUT it fills: an OUT with
// it (or, from older versions, with a grades.csv) is coursekit grade's own
// and may be replaced by the next run.
const OutMarker = ".coursekit-grade"

// Stage is a grading run's output folder while it is being written: a
// hidden sibling of OUT. Commit replaces OUT with it in two renames, so
// that OUT is always either the previous run's outputs or this run's, and
// no file of an earlier run (a learner graded then and not now) survives.
type Stage struct {
	Dir string // write here
	out string
}

// NewStage checks that out may be replaced (it does not exist, is empty,
// or was written by coursekit grade) and makes the staging folder next to
// it. The error names the first file that is not grade's.
func NewStage(out string) (*Stage, error) {
	out = filepath.Clean(out)
	if err := CheckOut(out); err != nil {
		return nil, err
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".new-")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, OutMarker), []byte("written by coursekit grade: the next run replaces this folder as a whole\n"), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Stage{Dir: dir, out: out}, nil
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
		return nil
	}
	names := make([]string, 0, 3)
	for _, e := range entries[:min(3, len(entries))] {
		names = append(names, e.Name())
	}
	return fmt.Errorf("--out %s holds files coursekit grade did not write (%s): a grading run replaces OUT as a whole, so give a new or empty folder", out, strings.Join(names, ", "))
}

// Commit puts the staged outputs in OUT's place and removes the previous
// run's. If the second rename fails, the previous outputs are put back.
func (s *Stage) Commit() error {
	old := ""
	if _, err := os.Lstat(s.out); err == nil {
		tmp, err := os.MkdirTemp(filepath.Dir(s.out), "."+filepath.Base(s.out)+".old-")
		if err != nil {
			return err
		}
		os.Remove(tmp) // only its unique name is wanted
		if err := os.Rename(s.out, tmp); err != nil {
			return err
		}
		old = tmp
	}
	if err := os.Rename(s.Dir, s.out); err != nil {
		if old != "" {
			os.Rename(old, s.out)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// Abort removes the staging folder; OUT is left as it was.
func (s *Stage) Abort() error { return os.RemoveAll(s.Dir) }
