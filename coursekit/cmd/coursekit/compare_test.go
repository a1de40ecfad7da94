package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const practiceTrace = "../../../data/unit01/practice.jsonl"

// genTraces writes coursekit gen traces of the given seeds (500 requests
// each) and returns their paths.
func genTraces(t *testing.T, seeds ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var out []string
	for _, s := range seeds {
		p := filepath.Join(dir, "gen"+s+".jsonl")
		if code, _, errs := runCLI(t, "gen", "--seed", s, "--requests", "500", "-o", p); code != 0 {
			t.Fatalf("gen: %s", errs)
		}
		out = append(out, p)
	}
	return out
}

type compareJSON struct {
	A, B struct {
		Traces []string `json:"traces"`
	}
	ConditionsChanged []struct {
		Name string          `json:"name"`
		A    json.RawMessage `json:"a"`
		B    json.RawMessage `json:"b"`
	} `json:"conditions_changed"`
	Metrics []struct {
		Name    string
		A, B    *float64
		Diff    *float64
		CI95    struct{ Low, High *float64 }
		Method  string
		Verdict string
	}
}

// compare on real files: one trace a side, and three a side around --,
// with flags on both sides of it.
func TestCompareFiles(t *testing.T) {
	g := genTraces(t, "2", "3", "4", "5", "6")
	code, out, errs := runCLI(t, "compare", g[0], g[1], "--format", "json", "--slo-ttft", "500ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r compareJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.A.Traces) != 1 || len(r.B.Traces) != 1 || len(r.Metrics) != 10 || r.Metrics[7].Name != "qualified_rate@500ms" {
		t.Fatalf("sides %v %v, %d metrics: %+v", r.A.Traces, r.B.Traces, len(r.Metrics), r.Metrics)
	}
	for _, m := range r.Metrics {
		if m.Method == "" || (m.Verdict != "same" && m.Verdict != "better" && m.Verdict != "worse") || m.Diff == nil {
			t.Errorf("%s: method %q, verdict %q, diff %v", m.Name, m.Method, m.Verdict, m.Diff)
		}
		if m.CI95.Low != nil && m.CI95.High != nil && (*m.Diff < *m.CI95.Low || *m.Diff > *m.CI95.High) {
			t.Errorf("%s: B − A %v outside its interval [%v, %v]", m.Name, *m.Diff, *m.CI95.Low, *m.CI95.High)
		}
	}
	// gen seeds 2 and 3 differ in their seed alone: two replicates, no
	// condition changed (the seed tells replicates apart).
	if len(r.ConditionsChanged) != 0 {
		t.Errorf("conditions changed: %+v", r.ConditionsChanged)
	}
	if code, out, _ := runCLI(t, "compare", "--lang", "en", g[0], g[1]); code != 0 || !strings.Contains(out, "Seeds (they tell replicates apart, not a condition): A 2; B 3") ||
		!strings.Contains(out, "Conditions: the two sides' headers record the same conditions") {
		t.Errorf("seeds 2 and 3:\n%s", out)
	}

	code, out, errs = runCLI(t, "compare", "--lang", "en", practiceTrace, g[0], g[1], "--", g[2], "--seed", "3", g[3], g[4])
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"A: 3 run(s)", "B: 3 run(s)", "hierarchical bootstrap", "Each run's value", "Several runs on each side"} {
		if !strings.Contains(out, want) {
			t.Errorf("the three-run report lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "compare", practiceTrace, practiceTrace)
	if code != 0 || !strings.Contains(out, "每边只有 1 次运行") || !strings.Contains(out, "没有一个指标的区间不含 0") {
		t.Errorf("the same trace twice, in Chinese (the default):\n%s", out)
	}
}

// Bad input: a trace's bad line is named FILE:LINE with exit 2, and so are
// the command line's mistakes.
func TestCompareBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	b, err := os.ReadFile(unitTrace)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	lines[3] = strings.Replace(lines[3], `"start_ms":`, `"start_ms":-`, 1)
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", unitTrace, bad}, bad + ":4: "},
		{[]string{"compare", bad, unitTrace}, bad + ":4: "},
		{[]string{"compare", unitTrace}, "want two traces"},
		{[]string{"compare", unitTrace, unitTrace, unitTrace}, "want two traces"},
		{[]string{"compare", unitTrace, "--"}, "at least one trace on each side of --"},
		{[]string{"compare", unitTrace, unitTrace, "--", practiceTrace}, unitTrace + " and " + unitTrace + " are the same file"},
		{[]string{"compare", unitTrace, unitTrace, "--seed", "0"}, "--seed"},
		{[]string{"compare", unitTrace, unitTrace, "--format", "xml"}, "unknown format"},
		// Two billion resamples asked 16 GB at once (the fourth attacker walk).
		{[]string{"compare", unitTrace, unitTrace, "--resamples", "2000000000"}, "--resamples: want at most"},
		{[]string{"compare", unitTrace, filepath.Join(t.TempDir(), "none.jsonl")}, "none.jsonl"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 naming %q", c.args[1:], code, errs, out, c.want)
		}
	}
}

// --chart writes the forest plot's page; a trace's name, from the command
// line, reaches it as text, never as markup; a path that cannot be written
// fails before any trace is read.
func TestCompareChart(t *testing.T) {
	dir := t.TempDir()
	hostile := filepath.Join(dir, `<img src=x onerror=alert(1)>.jsonl`)
	b, err := os.ReadFile(unitTrace)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hostile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "ab.html")
	code, _, errs := runCLI(t, "compare", unitTrace, hostile, "--chart", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	h, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(h)
	if strings.Contains(html, "<img src=x onerror") || !strings.Contains(html, "&lt;img src=x onerror=alert(1)&gt;.jsonl") {
		t.Error("the trace's name reached the page as markup")
	}
	if !strings.Contains(html, "compare_forest") { // the page itself is comparefig's, tested there
		t.Error("the page has no forest plot")
	}
	// A chart path that cannot be written fails before any trace is read.
	code, _, errs = runCLI(t, "compare", unitTrace, unitTrace, "--chart", filepath.Join(dir, "no", "such", "dir.html"))
	if code != 2 || !strings.Contains(errs, "--chart") {
		t.Errorf("unwritable chart: exit %d, %s", code, errs)
	}
}
