package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade"
	"github.com/llmperf-course/course/coursekit/trace"
)

const deliverable = "../../../notebooks/unit01/06-deliverable.ipynb"

// assign then grade through the CLI: a folder of submissions, one never
// self-checked, one with a blank card, and a Jupyter checkpoint to skip.
func TestAssignAndGradeCLI(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "KEY")
	os.WriteFile(key, []byte("cli-test-key-0123456789abcdef\n"), 0o600)
	roster := filepath.Join(dir, "roster.csv")
	os.WriteFile(roster, []byte("id,name\nalice,A\nbob,B\n"), 0o644)
	rel := filepath.Join(dir, "release")

	code, out, errs := runCLI(t, "assign", "--roster", roster, "--key-file", key, "--out", rel, "--notebook", deliverable)
	if code != 0 || !strings.Contains(out, "assigned 2 learners") {
		t.Fatalf("assign: exit %d\n%s%s", code, out, errs)
	}
	for _, id := range []string{"alice", "bob"} {
		for _, f := range []string{"06-deliverable.ipynb", "trace.jsonl"} {
			if _, err := os.Stat(filepath.Join(rel, id, f)); err != nil {
				t.Fatal(err)
			}
		}
	}

	// bob runs the self-check on a blank card; alice never runs it.
	sub := filepath.Join(dir, "submitted")
	for _, id := range []string{"alice", "bob"} {
		os.MkdirAll(filepath.Join(sub, id, ".ipynb_checkpoints"), 0o755)
		nb, _ := os.ReadFile(filepath.Join(rel, id, "06-deliverable.ipynb"))
		if id == "bob" {
			nb = selfChecked(t, nb, filepath.Join(rel, id, "trace.jsonl"))
		}
		os.WriteFile(filepath.Join(sub, id, "06-deliverable.ipynb"), nb, 0o644)
		os.WriteFile(filepath.Join(sub, id, ".ipynb_checkpoints", "06-deliverable-checkpoint.ipynb"), []byte("{"), 0o644)
	}
	res := filepath.Join(dir, "grades")
	code, out, errs = runCLI(t, "grade", "--key-file", key, "--roster", roster, "--out", res, sub)
	if code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, out, errs)
	}
	if strings.Count(errs, "grade: [") != 2 || !strings.Contains(errs, "ungradable (self_check_not_run)") {
		t.Errorf("progress on stderr:\n%s", errs)
	}
	if !strings.Contains(out, "graded 2 submissions: 1 gradable, 1 ungradable") {
		t.Errorf("stdout: %s", out)
	}
	csv, _ := os.ReadFile(filepath.Join(res, "grades.csv"))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "alice,,,") || !strings.HasSuffix(lines[1], "ungradable: self_check_not_run") || !strings.HasPrefix(lines[2], "bob,") {
		t.Errorf("grades.csv:\n%s", csv)
	}
	for _, f := range []string{"results/alice.json", "results/bob.json", "feedback/bob.md", "feedback/bob.html", "summary.md", "summary.html", "manual-review.csv", "grades.json"} {
		b, err := os.ReadFile(filepath.Join(res, f))
		if err != nil {
			t.Error(err)
			continue
		}
		if strings.HasSuffix(f, ".json") && strings.HasPrefix(f, "results/") {
			if err := grade.ValidateResultsJSON(b); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
		if strings.Contains(string(b), dir) {
			t.Errorf("%s holds a machine path", f)
		}
	}
}

// selfChecked is nb with the self-check output a blank card would leave.
func selfChecked(t *testing.T, nb []byte, tracePath string) []byte {
	t.Helper()
	b, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	c := &card.Card{}
	p, err := card.MarshalPayload(c, card.Check(c, tr), card.IdentifyBytes("trace.jsonl", b))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(nb, &m)
	for _, cell := range m["cells"].([]any) {
		cm := cell.(map[string]any)
		if md, _ := cm["metadata"].(map[string]any); md != nil {
			if ck, _ := md["coursekit"].(map[string]any); ck != nil && ck["role"] == "selfcheck" {
				cm["outputs"] = []any{map[string]any{"output_type": "display_data", "metadata": map[string]any{}, "data": map[string]any{card.MIMEType: string(p)}}}
			}
		}
	}
	out, _ := json.Marshal(m)
	return out
}

// A missing key file is a clear error (exit 2) before anything is graded
// or written.
func TestGradeCLIBadSetup(t *testing.T) {
	dir := t.TempDir()
	roster := filepath.Join(dir, "roster.csv")
	os.WriteFile(roster, []byte("id\nalice\n"), 0o644)
	nb := filepath.Join(dir, "alice.ipynb")
	os.WriteFile(nb, []byte("{}"), 0o644)
	out := filepath.Join(dir, "out")
	for name, args := range map[string][]string{
		"missing key file": {"grade", "--key-file", filepath.Join(dir, "nope"), "--roster", roster, "--out", out, nb},
		"no key flag":      {"grade", "--roster", roster, "--out", out, nb},
		"no submissions":   {"grade", "--key-file", roster, "--roster", roster, "--out", out},
		"assign, no key":   {"assign", "--key-file", filepath.Join(dir, "nope"), "--roster", roster, "--out", out},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || errs == "" {
			t.Errorf("%s: exit %d, stderr %q", name, code, errs)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: wrote %s before failing", name, out)
		}
	}
	_, _, errs := runCLI(t, "grade", "--key-file", filepath.Join(dir, "nope"), "--roster", roster, "--out", out, nb)
	if !strings.Contains(errs, "does not exist") {
		t.Errorf("missing key message: %q", errs)
	}
}
