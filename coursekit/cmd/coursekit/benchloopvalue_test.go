package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// `bench --rate 0` was answered "give exactly one of a rate (open loop), a
// replay schedule or a concurrency": the rate was given, and the answer is
// that it must be > 0; likewise a negative or zero --concurrency. A 0 beside
// another loop stays "off", as the flags' help says.
func TestBenchLoopFlagValue(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.jsonl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "0"}, "--rate must be > 0 (requests per second), got 0"},
		{[]string{"--rate", "-3"}, "--rate must be > 0 (requests per second), got -3"},
		{[]string{"--rate", "-1", "--concurrency", "2"}, "--rate must be > 0"},
		{[]string{"--concurrency", "0"}, "--concurrency must be > 0 (users, each waiting for its previous answer), got 0"},
		{[]string{"--concurrency", "-2"}, "--concurrency must be > 0 (users, each waiting for its previous answer), got -2"},
		{[]string{"--rate", "2", "--concurrency", "2"}, "give exactly one of"},
	} {
		args := append([]string{"bench", "--url", "http://127.0.0.1:1", "--duration", "1s", "--out", out}, c.args...)
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
		if c.want != "give exactly one of" && strings.Contains(errs, "give exactly one of") {
			t.Errorf("%v: %q", c.args, errs)
		}
	}
	// 0 beside another loop is that loop off: it passes to the pre-flight.
	code, _, errs := runCLI(t, "bench", "--url", "http://127.0.0.1:1", "--rate", "0", "--concurrency", "1", "--duration", "1s", "--out", out)
	if code == 0 || !strings.Contains(errs, "pre-flight") {
		t.Errorf("--rate 0 --concurrency 1: exit %d, %q; want the pre-flight's error", code, errs)
	}
}
