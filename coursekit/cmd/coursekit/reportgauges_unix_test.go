//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The sidecar is named by the trace, so it is read as grade reads a
// learner's file: a FIFO there is refused at once, not waited on, and a
// symlink there is not followed; the page notes which file and why.
func TestReportSidecarNotRegular(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(in, []byte(strings.Replace(gaugeTraceText, "SIDE", "side.jsonl", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "side.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan string, 1)
	go func() { done <- reportPage(t, in) }()
	var page string
	select {
	case page = <-done:
	case <-time.After(10 * time.Second):
		// unblock the reader so the test ends, then fail
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("report waited on a FIFO named by the trace header")
	}
	if !strings.Contains(page, "side.jsonl") || !strings.Contains(page, "named pipe (FIFO), not a regular file") {
		t.Errorf("the note does not say the sidecar is a FIFO")
	}
	os.Remove(fifo)
	secret := filepath.Join(dir, "secret.jsonl")
	os.WriteFile(secret, []byte(`{"t_ms":1000,"dur_ms":1.5,"values":{"llamacpp:requests_processing":1}}`+"\n"), 0o644)
	if err := os.Symlink(secret, fifo); err != nil {
		t.Fatal(err)
	}
	page = reportPage(t, in)
	if strings.Contains(page, `id="server_gauges"`) || !strings.Contains(page, "a symlink, not a regular file") {
		t.Errorf("report followed a symlink named by the trace header")
	}
}
