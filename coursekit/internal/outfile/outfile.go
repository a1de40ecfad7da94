// Package outfile writes an output file (a --chart page, report -o, an
// export) whole or not at all: the bytes go to a temporary file beside the
// target, renamed over it only when the work succeeded, so a failed run
// leaves an earlier file as it was and no half-written one. A target that
// is one of the command's inputs (the same file, by os.SameFile, whatever
// its name) is refused before anything is written: writing it would
// destroy the input.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is an output being written.
type File struct {
	*os.File
	path   string
	direct bool // the target is not a regular file (a device, a FIFO): written in place
	mode   fs.FileMode
}

// InputError is an output path that names one of the inputs.
type InputError struct{ Out, In string }

func (e *InputError) Error() string {
	if e.Out == e.In {
		return fmt.Sprintf("%s is an input of this command: writing it would destroy it; choose another file", e.Out)
	}
	return fmt.Sprintf("%s is the same file as the input %s: writing it would destroy it; choose another file", e.Out, e.In)
}

// Create starts the output path, refusing it when it is the same file as
// one of inputs (an input that does not exist, or "-", is skipped).
func Create(path string, inputs ...string) (*File, error) {
	out, err := os.Stat(path)
	if err == nil {
		for _, in := range inputs {
			if in == "" || in == "-" {
				continue
			}
			if fi, err := os.Stat(in); err == nil && os.SameFile(out, fi) {
				return nil, &InputError{Out: path, In: in}
			}
		}
		if !out.Mode().IsRegular() {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				return nil, err
			}
			return &File{File: f, path: path, direct: true}, nil
		}
	}
	mode := fs.FileMode(0o644)
	if out != nil {
		mode = out.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// Named after the target, not the temporary file.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &fs.PathError{Op: "create", Path: path, Err: err}
	}
	return &File{File: f, path: path, mode: mode}, nil
}

// Path is the target's path.
func (f *File) Path() string { return f.path }

// Commit closes the file and puts it in place of the target.
func (f *File) Commit() error {
	if f.direct {
		return f.Close()
	}
	err := f.Chmod(f.mode)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Discard drops what was written; the target stays as it was.
func (f *File) Discard() {
	f.Close()
	if !f.direct {
		os.Remove(f.Name())
	}
}
