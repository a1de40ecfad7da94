//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/grade/review"
)

// runCLIUnblocked is runCLI that cannot hang on a FIFO. Every second it
// asks the kernel whether anything holds fifo open for reading (a
// non-blocking open for writing fails with ENXIO while no reader does):
// a reader means the command opened the FIFO instead of refusing it, so
// the writer is closed at once (the reader sees EOF) and the test fails.
// A command that is merely slow on a loaded machine is waited for; the
// verdict never rests on how long it took.
func runCLIUnblocked(t *testing.T, fifo string, args ...string) (int, string) {
	t.Helper()
	type res struct {
		code int
		errs string
	}
	done := make(chan res, 1)
	go func() {
		code, _, errs := runCLI(t, args...)
		done <- res{code, errs}
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			return r.code, r.errs
		case <-tick.C:
			f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				continue // no reader yet: refused, or not there yet
			}
			f.Close()
			r := <-done
			t.Errorf("%q opened the FIFO to read it (then: exit %d, %s)", args, r.code, r.errs)
			return r.code, r.errs
		}
	}
}

// Every file a person names is read through one bounded helper: a FIFO or
// a device is refused at once, naming it, and a file past its documented
// limit is refused before it is read.
func TestInputsBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	key := filepath.Join(dir, "course.key")
	if code, _, errs := runCLI(t, "key", "new", key); code != 0 {
		t.Fatal(errs)
	}
	roster := filepath.Join(dir, "roster.csv")
	os.WriteFile(roster, []byte("id\ns1\n"), 0o644)
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(importFileLimit + 1) // sparse: no disk used
	f.Close()
	out := func() string { return filepath.Join(t.TempDir(), "o") }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "--from", "vllm", fifo, "-o", out()}, "pipe is a named pipe (FIFO), not a regular file"},
		{[]string{"import", "--from", "vllm", "/dev/zero", "-o", out()}, "/dev/zero is a device, not a regular file"},
		{[]string{"import", "--from", "vllm", big, "-o", out()}, "big.json is larger than 1 GiB, the limit for an import FILE"},
		{[]string{"import", "--from", "aiperf", "--summary", fifo, unitTrace, "-o", out()}, "pipe is a named pipe (FIFO)"},
		{[]string{"assign", "--roster", roster, "--key-file", fifo, "--out", out()}, "pipe is a named pipe (FIFO)"},
		{[]string{"assign", "--roster", fifo, "--key-file", key, "--out", out()}, "pipe is a named pipe (FIFO)"},
		{[]string{"assign", "--roster", roster, "--key-file", key, "--out", out(), "--notebook", fifo}, "pipe is a named pipe (FIFO)"},
		{[]string{"grade", "--roster", roster, "--key-file", key, "--out", out(), "--public-trace", fifo, dir}, "pipe is a named pipe (FIFO)"},
		{[]string{"collect", "--dirs", dir, "--out", out(), "--roster", fifo}, "pipe is a named pipe (FIFO)"},
	} {
		code, errs := runCLIUnblocked(t, fifo, c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %s; want …%s…", c.args, code, errs, c.want)
		}
	}
	// grade --release reads as assign --notebook does; --manual through review.
	if _, _, err := releaseNotebook("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero is a device") {
		t.Errorf("--release /dev/zero: %v", err)
	}
	if _, err := review.ReadManualFileWas("/dev/zero", nil, nil, nil); err == nil || !strings.Contains(err.Error(), "/dev/zero is a device") {
		t.Errorf("--manual /dev/zero: %v", err)
	}
}

// Every command that reads a trace refuses a FIFO (or a device) at once,
// naming it, as grade and import do: card, compare, csv and export waited
// on one forever.
func TestTraceReadersRefuseFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "trace.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	out := func(name string) string { return filepath.Join(t.TempDir(), name) }
	for _, args := range [][]string{
		{"card", fifo},
		{"card", fifo, "--format", "json"},
		{"compare", fifo, unitTrace},
		{"compare", unitTrace, fifo},
		{"csv", fifo},
		{"csv", fifo, "-o", out("t.csv")},
		{"export", fifo, "-o", out("t.parquet")},
		{"export", "--format", "csv", fifo, "-o", out("t.csv")},
		{"report", fifo, "-o", out("r.html")},
		{"sql", fifo},
		{"bench", "--url", "http://127.0.0.1:1", "--replay", fifo, "--no-preflight", "--out", out("b.jsonl")},
	} {
		code, errs := runCLIUnblocked(t, fifo, args...)
		if code == 0 || !strings.Contains(errs, fifo+" is a named pipe (FIFO), not a regular file") {
			t.Errorf("%q: exit %d, %s; want the FIFO named", args, code, errs)
		}
	}
	for _, args := range [][]string{{"card", "/dev/zero"}, {"csv", "/dev/zero"}} {
		if code, errs := runCLIUnblocked(t, fifo, args...); code == 0 || !strings.Contains(errs, "/dev/zero is a device") {
			t.Errorf("%q: exit %d, %s; want the device named", args, code, errs)
		}
	}
}
