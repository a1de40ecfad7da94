package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// chartFile is a --chart page, created before the work it draws so that a
// path that cannot be written fails at once, not after minutes of work.
type chartFile struct {
	cmd, path string
	f         *os.File
}

// createChart creates the page of --chart path for cmd; nil when path is
// "" (no chart asked for).
func createChart(cmd, path string) (*chartFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, usagef("%s: --chart: %v", cmd, err)
	}
	return &chartFile{cmd, path, f}, nil
}

// discard removes the page when the work it would draw failed.
func (c *chartFile) discard() {
	if c != nil {
		c.f.Close()
		os.Remove(c.path)
	}
}

// write writes the page through write and says where it went.
func (c *chartFile) write(stderr io.Writer, write func(io.Writer) error) error {
	if c == nil {
		return nil
	}
	w := bufio.NewWriter(c.f)
	if err := write(w); err != nil {
		c.f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		c.f.Close()
		return err
	}
	if err := c.f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "coursekit %s: chart written to %s\n", c.cmd, c.path)
	return nil
}
