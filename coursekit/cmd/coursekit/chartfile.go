package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmperf-course/course/coursekit/internal/outfile"
	"github.com/llmperf-course/course/coursekit/lang"
)

// chartFile is a --chart page, started before the work it draws so that a
// path that cannot be written, or that is one of the inputs, fails at once,
// not after minutes of work. It is written beside its path and put in place
// only when the work succeeded (outfile): an earlier page survives a
// failure.
type chartFile struct {
	cmd string
	f   *outfile.File
}

// createChart starts the page of --chart path for cmd, refusing a path
// that is one of inputs; nil when path is "" (no chart asked for).
func createChart(cmd, path string, inputs ...string) (*chartFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := outfile.Create(path, inputs...)
	if err != nil {
		return nil, outPathError(cmd+": --chart", err)
	}
	return &chartFile{cmd, f}, nil
}

// discard drops the page when the work it would draw failed.
func (c *chartFile) discard() {
	if c != nil {
		c.f.Discard()
	}
}

// write writes the page through write, puts it in place and says where it
// went.
func (c *chartFile) write(stderr io.Writer, l lang.Lang, write func(io.Writer) error) error {
	if c == nil {
		return nil
	}
	w := bufio.NewWriter(c.f)
	if err := errors.Join(write(w), w.Flush()); err != nil {
		c.f.Discard()
		return err
	}
	if err := c.f.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "coursekit %s: %s\n", c.cmd, l.F(lang.Msg{"图已写到 %s", "chart written to %s"}, c.f.Path()))
	return nil
}

// writeWhole writes data to path through outfile: refused when path is one
// of inputs, put in place whole or not at all.
func writeWhole(path string, data []byte, inputs ...string) error {
	f, err := outfile.Create(path, inputs...)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Discard()
		return err
	}
	return f.Commit()
}

// outPathError is the error of an output path (--chart, -o) that cannot be
// created: one of the command's inputs is a usage error (exit 2 and a hint
// to read the help); a folder that is missing or not writable is found
// when the run starts, and the message says it (exit 2, no hint).
func outPathError(what string, err error) error {
	var ie *outfile.InputError
	if errors.As(err, &ie) {
		return usagef("%s: %v", what, err)
	}
	var pe *os.PathError
	if errors.As(err, &pe) { // worded as an input's: "x: no such file", or its missing folder
		return setupf("%s: %s", what, strings.Replace(err.Error(), pe.Error(), pathProblem(pe), 1))
	}
	return setupf("%s: %v", what, err)
}
