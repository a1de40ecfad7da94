// Package regfile opens and reads regular files only. A name that is a
// symlink, a FIFO, a device, a socket or a folder is refused before it is
// opened (os.Lstat), and again after (the opened file's own mode), so a
// file swapped in between cannot slip through; the open itself neither
// follows a symlink nor blocks on a FIFO where the system allows it
// (O_NOFOLLOW|O_NONBLOCK). collect and grade read learners' files with it.
package regfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is a path that is not a regular file. It says nothing
// about what a link points at or what a FIFO holds: none of that is read.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: not read", e.Path, Kind(e.Mode))
}

// Kind names a file's type in English: "a symlink", "a named pipe (FIFO)".
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// KindZh is Kind in Chinese, for what a learner reads.
func KindZh(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "符号链接"
	case m&fs.ModeNamedPipe != 0:
		return "命名管道（FIFO）"
	case m&fs.ModeSocket != 0:
		return "套接字"
	case m&fs.ModeDevice != 0:
		return "设备文件"
	case m.IsDir():
		return "文件夹"
	case m.IsRegular():
		return "普通文件"
	}
	return "特殊文件"
}

// Open opens path for reading if it is a regular file, without following
// a symlink or blocking on a FIFO. A path that is not a regular file is a
// *NotRegularError.
func Open(path string) (*os.File, fs.FileInfo, error) { return open(path, os.Lstat, openFlags) }

// OpenNamed is Open for a path a person named on the command line: a
// symlink is followed (they made it), but what it names must be a
// regular file, and a FIFO is still refused without blocking.
func OpenNamed(path string) (*os.File, fs.FileInfo, error) {
	return open(path, os.Stat, openFlags&^noFollow)
}

func open(path string, stat func(string) (fs.FileInfo, error), flags int) (*os.File, fs.FileInfo, error) {
	st, err := stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|flags, 0)
	if err != nil {
		if isLoop(err) { // a symlink swapped in since the Lstat
			return nil, nil, &NotRegularError{Path: path, Mode: fs.ModeSymlink}
		}
		return nil, nil, err
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	return f, st, nil
}

// OpenNoFollow opens path for writing (flag as os.OpenFile takes it)
// without following a symlink at path: a link there is a
// *NotRegularError, and nothing is written through it to the file it
// names. For files a command writes beside the one it was given (bench's
// TRACE.metrics.jsonl), where a planted link would redirect the write.
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	f, err := os.OpenFile(path, flag|noFollow, perm)
	if err != nil && isLoop(err) { // a symlink swapped in since the Lstat
		return nil, &NotRegularError{Path: path, Mode: fs.ModeSymlink}
	}
	return f, err
}

// TooLargeError is a file longer than the limit its reader sets.
type TooLargeError struct {
	Path  string
	What  string // what the file is for: "a roster", "an import FILE"
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the limit for %s: not read", e.Path, Size(e.Limit), e.What)
}

// Size writes a byte count the way the limits are documented: "64 MiB".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadNamed reads a file a person named on the command line (OpenNamed: a
// symlink is followed, a FIFO or a device such as /dev/zero is refused
// without blocking) whole, if it holds at most limit bytes; a longer one is
// a *TooLargeError naming it and what, found before it is read when its
// size says so, and after limit+1 bytes if it grows while read.
func ReadNamed(path, what string, limit int64) ([]byte, error) {
	return read(path, what, limit, OpenNamed)
}

// Read is ReadNamed for a file in a folder others may change (a file of
// grade's OUT the instructor edits): opened as Open opens it, so a symlink
// is refused too, unread.
func Read(path, what string, limit int64) ([]byte, error) {
	return read(path, what, limit, Open)
}

func read(path, what string, limit int64, open func(string) (*os.File, fs.FileInfo, error)) ([]byte, error) {
	f, st, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, &TooLargeError{Path: path, What: what, Limit: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Path: path, What: what, Limit: limit}
	}
	return b, nil
}
