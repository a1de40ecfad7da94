//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// holdLock locks path as a running bench does, until the test ends.
func holdLock(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
}

// A second bench on a --out (or a sidecar) that a running one holds is
// refused with the file's name, and the running one's data is untouched.
func TestBenchRefusesALockedOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "trace.jsonl")
	const running = `{"trace":"llm-serving/v1"} written by the first bench` + "\n"
	holdLock(t, out, running)
	code, _, errs := runCLI(t, "bench", "--url", "http://127.0.0.1:1", "--model", "m", "--rate", "5", "--duration", "100ms", "--out", out)
	if code == 0 || !strings.Contains(errs, "--out "+out+": another process") || !strings.Contains(errs, "locked") {
		t.Errorf("exit %d, %q: want a refusal naming %s", code, errs, out)
	}
	if b, _ := os.ReadFile(out); string(b) != running {
		t.Errorf("the running bench's trace was changed: %q", b)
	}

	out2 := filepath.Join(dir, "two.jsonl")
	holdLock(t, out2+".metrics.jsonl", "scrapes\n")
	code, _, errs = runCLI(t, "bench", "--url", "http://127.0.0.1:1", "--model", "m", "--rate", "5", "--duration", "100ms",
		"--out", out2, "--metrics-url", "http://127.0.0.1:1/metrics")
	if code == 0 || !strings.Contains(errs, out2+".metrics.jsonl: another process") {
		t.Errorf("sidecar: exit %d, %q", code, errs)
	}
	if b, _ := os.ReadFile(out2 + ".metrics.jsonl"); string(b) != "scrapes\n" {
		t.Errorf("the running bench's sidecar was changed: %q", b)
	}
}

// A bench that fails before its run starts (no server to list a model) leaves the previous
// trace and sidecar in --out as they were: the attacker walk found them emptied to 0 bytes.
func TestBenchFailingBeforeTheRunKeepsTheOldTrace(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "trace.jsonl")
	const old = `{"trace":"llm-serving/v1"} the last run` + "\n"
	os.WriteFile(out, []byte(old), 0o644)
	os.WriteFile(out+".metrics.jsonl", []byte("old scrapes\n"), 0o644)
	code, _, errs := runCLI(t, "bench", "--url", "http://127.0.0.1:1", "--rate", "5", "--duration", "100ms", "--out", out,
		"--metrics-url", "http://127.0.0.1:1/metrics")
	if code == 0 {
		t.Fatalf("bench without a model against a closed port: exit 0 (%s)", errs)
	}
	if b, _ := os.ReadFile(out); string(b) != old {
		t.Errorf("the previous trace was changed: %q", b)
	}
	if b, _ := os.ReadFile(out + ".metrics.jsonl"); string(b) != "old scrapes\n" {
		t.Errorf("the previous sidecar was changed: %q", b)
	}
}

// A password in --url or --metrics-url does not travel with the trace (it is shared and handed
// in): the header holds the URLs with the user and password replaced.
func TestBenchTraceHoldsNoURLPassword(t *testing.T) {
	addr := startSimCLI(t, "--decode-step", "1ms")
	out := filepath.Join(t.TempDir(), "u.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", "http://alice:hunter2@"+addr, "--model", "sim-model", "--rate", "20", "--num-requests", "2",
		"--duration", "2s", "--progress", "0", "--out", out, "--metrics-url", "http://bob:pw2@"+addr+"/metrics")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(out)
	side, _ := os.ReadFile(out + ".metrics.jsonl")
	for _, secret := range []string{"hunter2", "pw2", "alice", "bob"} {
		if strings.Contains(string(b), secret) || strings.Contains(string(side), secret) {
			t.Errorf("the trace or its sidecar holds the password %q", secret)
		}
	}
	if !strings.Contains(string(b), "http://xxxxx@") {
		t.Errorf("the header does not name the redacted URL:\n%.400s", b)
	}
}

// A secret in a URL's query (?api_key=, ?token=) does not travel either:
// not in the header, not in the sidecar's error lines (net/http's error
// quotes the whole URL).
func TestBenchTraceHoldsNoURLQuerySecret(t *testing.T) {
	addr := startSimCLI(t, "--decode-step", "1ms")
	out := filepath.Join(t.TempDir(), "q.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", "http://"+addr+"/v1?api_key=sk-q1", "--model", "m", "--rate", "20", "--num-requests", "2",
		"--duration", "2s", "--progress", "0", "--no-preflight", "--out", out, "--metrics-url", "http://127.0.0.1:1/metrics?token=tk-s3cret&x=1")
	b, _ := os.ReadFile(out)
	side, _ := os.ReadFile(out + ".metrics.jsonl")
	if len(b) == 0 {
		t.Fatalf("no trace: exit %d: %s", code, errs)
	}
	for _, secret := range []string{"sk-q1", "tk-s3cret"} {
		if strings.Contains(string(b), secret) || strings.Contains(string(side), secret) || strings.Contains(errs, secret) {
			t.Errorf("the trace, its sidecar or stderr holds the query secret %q", secret)
		}
	}
	if !strings.Contains(string(b), "token=xxxxx") || !strings.Contains(string(side), "token=xxxxx") {
		t.Errorf("the redacted metrics URL is not named:\n%.600s\n%.400s", b, side)
	}
}
