package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// withStdin makes "-" read b.
func withStdin(t *testing.T, b []byte) {
	old := stdin
	stdin = bytes.NewReader(b)
	t.Cleanup(func() { stdin = old })
}

// `bench --out -` writes the trace to stdout, and every trace reader takes
// "-" for standard input, as vegeta's report does: card, report, compare,
// csv and export give what they give for the same bytes in a file, named
// "stdin"; a bad trace on stdin is named stdin:LINE.
func TestTraceReadersReadStdin(t *testing.T) {
	addr := startSimCLI(t, "--decode-step", "1ms", "--max-tokens", "4")
	code, piped, errs := runCLI(t, "bench", "--url", "http://"+addr, "--rate", "20", "--duration", "1s", "--max-tokens", "4", "--progress", "0", "--out", "-")
	if code != 0 || !strings.HasPrefix(piped, `{"trace":"llm-serving/v1"`) {
		t.Fatalf("bench --out -: exit %d, %.80q: %s", code, piped, errs)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "stdin")
	if err := os.WriteFile(file, []byte(piped), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"card", "--format", "json"}, {"card", "--lang", "en"}, {"csv"},
		{"compare", "--format", "json", "ARG", file}, {"compare", file, "ARG"},
	} {
		with := func(arg string) string {
			a := make([]string, 0, len(args)+1)
			put := false
			for _, x := range args {
				if x == "ARG" {
					x, put = arg, true
				}
				a = append(a, x)
			}
			if !put {
				a = append(a, arg)
			}
			withStdin(t, []byte(piped))
			code, stdout, stderr := runCLI(t, a...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", a, code, stderr)
			}
			return stdout
		}
		// The same output, but that the trace is named stdin, not by its path.
		norm := strings.NewReplacer(file, "TRACE", stdinName, "TRACE").Replace
		if got, want := with("-"), with(file); norm(got) != norm(want) || slices.Contains(args, "--lang") && !strings.Contains(got, "Metrics card · stdin") {
			t.Errorf("%v: stdin gives\n%s\nthe file gives\n%s", args, got, want)
		}
	}
	for _, args := range [][]string{{"report", "-", "-o", filepath.Join(dir, "r.html")}, {"export", "-", "-o", filepath.Join(dir, "t.parquet")}} {
		withStdin(t, []byte(piped))
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "r.html")); err != nil || !strings.Contains(string(b), "LLM 服务指标报告 · stdin") {
		t.Errorf("report - (%v): the page is not the trace's", err)
	}
	bad := strings.SplitN(piped, "\n", 2)[0] + "\n" + `{"attempt":"x","start_ms":-5,"outcome":"ok","end_ms":1}` + "\n"
	for _, cmd := range [][]string{{"card", "-"}, {"report", "-", "-o", filepath.Join(dir, "bad.html")}, {"compare", "-", file}, {"csv", "-"}} {
		withStdin(t, []byte(bad))
		code, _, stderr := runCLI(t, cmd...)
		if code != 2 || !strings.Contains(stderr, "stdin:2:") || strings.Contains(stderr, "coursekit-stdin-") {
			t.Errorf("%v on a bad trace: exit %d, %q: want exit 2 naming stdin:2", cmd, code, stderr)
		}
	}
}
