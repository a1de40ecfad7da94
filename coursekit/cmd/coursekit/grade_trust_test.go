package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/secret"
)

// A learner with two files: the one that can be graded is graded, the
// other is named on the learner's row, in summary.md and on stderr.
func TestGradeCLIDuplicateSubmissions(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", nil)
	rel, _ := os.ReadFile(filepath.Join(c.rel, "alice", "06-deliverable.ipynb"))
	good := selfCheckedCard(t, rel, filepath.Join(c.rel, "alice", "trace.jsonl"), &card.Card{Clock: "client", Attempts: 10})
	os.MkdirAll(filepath.Join(c.sub, "alice"), 0o755)
	os.WriteFile(filepath.Join(c.sub, "alice.ipynb"), good, 0o644)
	os.WriteFile(filepath.Join(c.sub, "alice", "06-deliverable.ipynb"), rel, 0o644) // never run
	out := filepath.Join(c.dir, "graded")
	code, o, e := runCLI(t, "grade", "--key-file", c.key, "--roster", c.roster, "--out", out, c.sub)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	if !strings.Contains(e, "warning") || !strings.Contains(e, "alice.ipynb") || !strings.Contains(e, "06-deliverable.ipynb") {
		t.Errorf("no warning on stderr naming both files:\n%s", e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	if g[1][gc["id"]] != "alice" || g[1][gc["total"]] == "" || !strings.Contains(g[1][gc["status"]], "06-deliverable.ipynb") {
		t.Errorf("alice's row: %v", g[1])
	}
	if sum, _ := os.ReadFile(filepath.Join(out, "summary.md")); !strings.Contains(string(sum), "06-deliverable.ipynb") {
		t.Errorf("summary.md does not name the file that was not graded:\n%s", sum)
	}
}

// A key that verifies no release record stops the batch (exit 2) before
// anything is written.
func TestGradeCLIWrongKey(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{"alice": {}, "bob": {}})
	other := filepath.Join(c.dir, "OTHER")
	os.WriteFile(other, []byte("another-instructor-key-0123456789\n"), 0o600)
	out := filepath.Join(c.dir, "graded")
	code, o, e := runCLI(t, "grade", "--key-file", other, "--roster", c.roster, "--out", out, c.sub)
	if code != 2 || !strings.Contains(e, "key") || !strings.Contains(e, "0 of 2") {
		t.Errorf("wrong key: exit %d\n%s%s", code, o, e)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("wrong key: %s was written", out)
	}
}

// When most records fail to verify, the batch is written with a loud
// warning on stderr and at the top of summary.md.
func TestGradeCLIMostRecordsFail(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\ncarol\n", map[string]*card.Card{"alice": {}, "bob": {}, "carol": {}})
	for _, id := range []string{"bob", "carol"} { // their records edited
		p := filepath.Join(c.sub, id, "06-deliverable.ipynb")
		b, _ := os.ReadFile(p)
		var m map[string]any
		json.Unmarshal(b, &m)
		a := m["metadata"].(map[string]any)["coursekit"].(map[string]any)["assignment"].(map[string]any)
		a["trace_sha256"] = strings.Repeat("0", 64)
		b, _ = json.Marshal(m)
		os.WriteFile(p, b, 0o644)
	}
	out := filepath.Join(c.dir, "graded")
	code, o, e := runCLI(t, "grade", "--key-file", c.key, "--roster", c.roster, "--out", out, c.sub)
	if code != 0 || !strings.Contains(e, "WARNING") || !strings.Contains(e, "1 of 3") {
		t.Errorf("most records fail: exit %d\n%s%s", code, o, e)
	}
	sum, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil || !strings.Contains(string(sum), "发放记录") || !strings.Contains(string(sum), "密钥") {
		t.Errorf("summary.md has no key warning (%v):\n%s", err, sum)
	}
}

// assign finds the deliverable wherever it runs: an installed binary,
// built without source paths, run from a directory outside the course.
func TestAssignFromAnotherDirectory(t *testing.T) {
	bin := filepath.Join(buildCoursekit(t), "coursekit") // -trimpath: no source paths
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "KEY"), []byte("cli-test-key-0123456789abcdef\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "roster.csv"), []byte("id\nalice\n"), 0o644)
	cmd := exec.Command(bin, "assign", "--roster", "roster.csv", "--key-file", "KEY", "--out", "release")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COURSEKIT_DATA=") // nothing points back at the course
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("assign from %s: %v\n%s", dir, err, b)
	}
	nb, err := os.ReadFile(filepath.Join(dir, "release", "alice", "06-deliverable.ipynb"))
	if err != nil {
		t.Fatalf("no personalized notebook: %v", err)
	}
	// It is the course's deliverable, personalized.
	release, _ := os.ReadFile(deliverable)
	key, _ := secret.LoadKey(filepath.Join(dir, "KEY"))
	v, _ := assign.Variant(key, "alice")
	want, err := assign.Personalize(key, release, "alice", v)
	if err != nil || !bytes.Equal(nb, want) {
		t.Errorf("the released notebook is not %s personalized (%v)", deliverable, err)
	}
}

// OUT/class.html: one offline page with the class's charts, every string
// from a submission escaped.
func TestGradeCLIClassReport(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{"alice": {}})
	rel, _ := os.ReadFile(filepath.Join(c.rel, "bob", "06-deliverable.ipynb"))
	xss := `<img src=x onerror=alert(1)>`
	os.WriteFile(filepath.Join(c.sub, xss+".ipynb"), unsigned(t, rel), 0o644)
	// Bob's notebook with a duplicated cell whose id is markup.
	var m map[string]any
	json.Unmarshal(selfCheckedCard(t, rel, filepath.Join(c.rel, "bob", "trace.jsonl"), &card.Card{}), &m)
	cells := m["cells"].([]any)
	dup := map[string]any{}
	for k, v := range cells[0].(map[string]any) {
		dup[k] = v
	}
	dup["id"] = "<script>alert(2)</script>"
	cells[0].(map[string]any)["id"] = "<script>alert(2)</script>"
	m["cells"] = append(cells, dup)
	b, _ := json.Marshal(m)
	os.MkdirAll(filepath.Join(c.sub, "bob"), 0o755)
	os.WriteFile(filepath.Join(c.sub, "bob", "06-deliverable.ipynb"), b, 0o644)

	out := filepath.Join(c.dir, "graded")
	if code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, c.sub); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	page, err := os.ReadFile(filepath.Join(out, "class.html"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{"分数分布", "各检查项通过率", "常见错误", "完整性", "无法评分", "人工阅读队列", "&lt;img src=x onerror=alert(1)&gt;"} {
		if !strings.Contains(s, want) {
			t.Errorf("class.html lacks %q", want)
		}
	}
	for _, bad := range []string{xss, "<script>alert(2)", "src=\"http", "src=http"} {
		if strings.Contains(s, bad) {
			t.Errorf("class.html holds %q unescaped", bad)
		}
	}
	if n := strings.Count(s, "<figure>"); n < 3 {
		t.Errorf("class.html has %d charts, want at least 3", n)
	}
}
