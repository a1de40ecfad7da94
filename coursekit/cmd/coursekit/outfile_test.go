package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output file (--chart, report -o, export -o, import -o) never destroys an
// input, and a failed run leaves an earlier output as it was: the output
// is written beside its path and put in place only on success (the fifth
// engineer walk: `compare --chart victim.jsonl`, with victim.jsonl a trace
// being compared, emptied the trace; a failed compare deleted keep.html).
func TestOutputNeverDestroysAnInput(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "victim.jsonl")
	b, err := os.ReadFile(unitTrace)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, b, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "other-name.jsonl")
	if err := os.Link(trace, link); err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(dir, "vllm.json")
	vb, err := os.ReadFile(importData + "vllm_nan.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(result, vb, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"import", "--from", "vllm", result, "-o", result},
		{"compare", trace, unitTrace, "--chart", trace},
		{"compare", unitTrace, trace, "--chart", link}, // the same file by another name
		{"report", trace, "-o", link},
		{"export", trace, "-o", link},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, "destroy") {
			t.Errorf("%v: exit %d, %q; want exit 2 saying it would destroy the input", args, code, errs)
		}
		if got, _ := os.ReadFile(result); string(got) != string(vb) {
			t.Fatalf("%v changed the import's result file", args)
		}
		if got, _ := os.ReadFile(trace); string(got) != string(b) {
			t.Fatalf("%v changed the input trace (%d bytes, was %d)", args, len(got), len(b))
		}
	}

	// A failed run keeps the earlier output, and leaves no temporary file.
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("not a trace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(dir, "keep.html")
	for _, args := range [][]string{
		{"compare", unitTrace, bad, "--chart", keep},
		{"report", bad, "-o", keep},
		{"export", bad, "-o", keep},
		{"capacity", "--url", "http://127.0.0.1:1", "--slo-e2e", "10s", "--out", filepath.Join(dir, "steps"), "--chart", keep},
	} {
		if err := os.WriteFile(keep, []byte("earlier page"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, errs := runCLI(t, args...); code == 0 {
			t.Errorf("%v: exit 0 (%s)", args, errs)
		}
		if got, err := os.ReadFile(keep); string(got) != "earlier page" {
			t.Errorf("%v: the earlier output is now %.40q (%v)", args, got, err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(files) != 0 {
		t.Errorf("temporary files left: %v", files)
	}

	// A run that succeeds replaces the earlier page whole.
	if code, _, errs := runCLI(t, "compare", unitTrace, unitTrace, "--chart", keep); code != 0 {
		t.Fatalf("compare: %s", errs)
	}
	if got, _ := os.ReadFile(keep); !strings.Contains(string(got), "compare_forest") {
		t.Errorf("the page was not replaced: %.60q", got)
	}
}
