package main

import (
	"errors"
	"fmt"
	"os"
)

// errLocked is what lockFile returns when another process holds the lock.
var errLocked = errors.New("locked")

// createLocked opens path for a bench run's output: an exclusive lock on
// the file is taken first (without waiting), and only then is it truncated,
// so that a second bench on the same --out is refused before it can touch
// the first one's trace (two writers gave a file with NUL bytes in it).
// The lock lasts until the file is closed.
func createLocked(path, what string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("%s %s: another process (a coursekit bench?) is writing this file: it is locked; give another %s or wait for that run to end", what, path, what)
		}
		return nil, fmt.Errorf("%s %s: locking: %w", what, path, err)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
