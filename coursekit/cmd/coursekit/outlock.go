package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/llmperf-course/course/coursekit/internal/regfile"
)

// errLocked is what lockFile returns when another process holds the lock.
var errLocked = errors.New("locked")

// openLocked opens path for a bench run's output: an exclusive lock on the file is taken
// first (without waiting), so that a second bench on the same --out is refused before it can
// touch the first one's trace (two writers gave a file with NUL bytes in it). The file is
// emptied only at the run's first write (emptiedOnWrite). The lock lasts until it is closed.
func openLocked(path, what string) (*os.File, error) {
	f, err := regfile.OpenNoFollow(path, os.O_RDWR|os.O_CREATE, 0o644) // a link planted there is not written through
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("%s %s: another process (a coursekit bench?) is writing this file: it is locked; give another %s or wait for that run to end", what, path, what)
		}
		return nil, fmt.Errorf("%s %s: locking: %w", what, path, err)
	}
	return f, nil
}

// emptiedOnWrite empties its file at the first write, so that a run that fails before it
// writes anything (no model listed, a refused redirect, a server that does not answer) leaves
// the previous trace in the file as it was.
type emptiedOnWrite struct {
	f       *os.File
	emptied bool
}

func (w *emptiedOnWrite) Write(p []byte) (int, error) {
	if !w.emptied {
		if err := w.f.Truncate(0); err != nil {
			return 0, err
		}
		w.emptied = true
	}
	return w.f.Write(p)
}
