//go:build unix

package regfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOpenRegularOnly(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "a.ipynb")
	os.WriteFile(reg, []byte("{}"), 0o644)
	link := filepath.Join(dir, "link.ipynb")
	os.Symlink(reg, link)
	fifo := filepath.Join(dir, "fifo.ipynb")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	f, _, err := Open(reg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "{}" {
		t.Errorf("read %q", b)
	}
	for _, c := range []struct {
		open func(string) (*os.File, os.FileInfo, error)
		path string
		kind string // "" for a regular file
	}{
		{Open, link, "a symlink"}, {Open, fifo, "a named pipe (FIFO)"}, {Open, dir, "a folder"},
		{OpenNamed, link, ""}, {OpenNamed, fifo, "a named pipe (FIFO)"},
	} {
		f, _, err := c.open(c.path)
		var nr *NotRegularError
		switch {
		case c.kind == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.kind != "" && (!errors.As(err, &nr) || Kind(nr.Mode) != c.kind):
			t.Errorf("%s: %v, want %s", c.path, err, c.kind)
		}
		if f != nil {
			f.Close()
		}
	}
}
