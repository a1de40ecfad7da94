package main

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/review"
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
			nb = selfCheckedCard(t, nb, filepath.Join(rel, id, "trace.jsonl"), &card.Card{})
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
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "alice,A,0,48,") || !strings.HasSuffix(lines[1], "ungradable: self_check_not_run") || !strings.HasPrefix(lines[2], "bob,") {
		t.Errorf("grades.csv:\n%s", csv)
	}
	for _, f := range []string{"results/alice.json", "results/bob.json", "feedback/bob.md", "feedback/bob.html", "summary.md", "summary.html", "manual-review.csv", "grades.json"} {
		b, err := os.ReadFile(filepath.Join(res, f))
		if err != nil {
			t.Error(err)
			continue
		}
		if strings.HasSuffix(f, ".json") && strings.HasPrefix(f, "results/") {
			if err := gradescope.ValidateResultsJSON(b); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
		if strings.Contains(string(b), dir) {
			t.Errorf("%s holds a machine path", f)
		}
	}
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

// classroom is a released class of alice and bob (via the CLI) with their
// self-checked submissions: card c per learner, written under dir/submitted.
type classroom struct {
	dir, key, roster, rel, sub string
}

func newClassroom(t *testing.T, rosterCSV string, cards map[string]*card.Card) *classroom {
	t.Helper()
	dir := t.TempDir()
	c := &classroom{dir: dir, key: filepath.Join(dir, "KEY"), roster: filepath.Join(dir, "roster.csv"), rel: filepath.Join(dir, "release"), sub: filepath.Join(dir, "submitted")}
	os.WriteFile(c.key, []byte("cli-test-key-0123456789abcdef\n"), 0o600)
	os.WriteFile(c.roster, []byte(rosterCSV), 0o644)
	if code, out, errs := runCLI(t, "assign", "--roster", c.roster, "--key-file", c.key, "--out", c.rel, "--notebook", deliverable); code != 0 {
		t.Fatalf("assign: exit %d\n%s%s", code, out, errs)
	}
	for id, cd := range cards {
		c.submit(t, id, cd)
	}
	return c
}

// submit writes id's notebook, self-checked with card cd, to sub/id/.
func (c *classroom) submit(t *testing.T, id string, cd *card.Card) []byte {
	t.Helper()
	nb, _ := os.ReadFile(filepath.Join(c.rel, id, "06-deliverable.ipynb"))
	nb = selfCheckedCard(t, nb, filepath.Join(c.rel, id, "trace.jsonl"), cd)
	os.MkdirAll(filepath.Join(c.sub, id), 0o755)
	os.WriteFile(filepath.Join(c.sub, id, "06-deliverable.ipynb"), nb, 0o644)
	return nb
}

// selfCheckedCard is nb with card c in its card cell (as Go source, which
// is what the grader grades) and the self-check output it leaves.
func selfCheckedCard(t *testing.T, nb []byte, tracePath string, c *card.Card) []byte {
	t.Helper()
	b, _ := os.ReadFile(tracePath)
	tr, err := trace.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	p, err := card.MarshalPayload(c, card.Check(c, tr), card.IdentifyBytes("trace.jsonl", b))
	if err != nil {
		t.Fatal(err)
	}
	return editCells(nb, func(role string, cm map[string]any) {
		switch role {
		case "selfcheck":
			cm["outputs"] = []any{map[string]any{"output_type": "display_data", "metadata": map[string]any{}, "data": map[string]any{card.MIMEType: string(p)}}}
		case "card":
			cm["source"] = fmt.Sprintf("var myCard = %#v\n", *c)
		}
	})
}

// editCells is notebook nb with edit applied to each cell that has a
// coursekit role (metadata.coursekit.role), given the role.
func editCells(nb []byte, edit func(role string, cell map[string]any)) []byte {
	var m map[string]any
	json.Unmarshal(nb, &m)
	for _, cell := range m["cells"].([]any) {
		cm := cell.(map[string]any)
		md, _ := cm["metadata"].(map[string]any)
		if ck, _ := md["coursekit"].(map[string]any); ck != nil {
			if role, ok := ck["role"].(string); ok {
				edit(role, cm)
			}
		}
	}
	out, _ := json.Marshal(m)
	return out
}

func csvRows(t *testing.T, path string) ([][]string, map[string]int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.TrimPrefix(h, "\ufeff")] = i
	}
	return rows, col
}

// grade, fill in manual-review.csv, grade again with --manual: the scores
// land in grades.csv; a bad file stops before grading; an answer changed
// since is a warning and stays pending.
func TestGradeCLIManualScores(t *testing.T) {
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。"},
		"bob":   {CounterEvidence: "GPU 很忙，所以没问题。"},
	})
	out := filepath.Join(c.dir, "graded")
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out}
	if code, o, e := runCLI(t, append(args, c.sub)...); code != 0 || !strings.Contains(o, "2 answers wait for manual review") {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	manual := filepath.Join(out, review.ManualFile)
	rows, col := csvRows(t, manual)
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	for _, r := range rows {
		if r[col["id"]] == "bob" {
			r[col["score"]] = "0.5"
		}
		w.Write(r)
	}
	w.Flush()
	os.WriteFile(manual, []byte(sb.String()), 0o644)

	code, o, e := runCLI(t, append(append(args, "--manual", manual), c.sub)...)
	if code != 0 || !strings.Contains(o, "merged manual scores from") || !strings.Contains(o, "1 scored row, 1 still blank, 0 warnings\n") || !strings.Contains(o, "1 answer waits") {
		t.Fatalf("grade --manual: exit %d\n%s%s", code, o, e)
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	if g[2][gc["id"]] != "bob" || g[2][gc["text.counter_evidence"]] != "0.5" || g[1][gc["text.counter_evidence"]] != "" {
		t.Errorf("grades.csv: %v / %v", g[1], g[2])
	}
	if rows, col := csvRows(t, manual); rows[1][col["score"]]+rows[2][col["score"]] != "0.5" {
		t.Errorf("rewritten %s lost the score: %v", review.ManualFile, rows)
	}

	// A score above the maximum: exit 2 with FILE:LINE, nothing graded.
	bad := filepath.Join(c.dir, "bad.csv")
	os.WriteFile(bad, []byte(strings.Replace(sb.String(), ",0.5,\n", ",7,\n", 1)), 0o644)
	code, o, e = runCLI(t, append(append([]string{"grade", "--key-file", c.key, "--roster", c.roster, "--out", filepath.Join(c.dir, "never")}, "--manual", bad), c.sub)...)
	if code != 2 || !regexp.MustCompile(`bad\.csv:\d+: bob text\.counter_evidence: score 7 is above the maximum 2`).MatchString(e) || strings.Contains(e, "grade: [") {
		t.Errorf("bad manual file: exit %d\n%s%s", code, o, e)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "never")); err == nil {
		t.Error("wrote outputs for a bad manual file")
	}

	// Bob resubmits with a new answer: his old score is not applied.
	c.submit(t, "bob", &card.Card{CounterEvidence: "重写：排队和超时。"})
	code, o, e = runCLI(t, append(append(args, "--manual", manual), c.sub)...)
	if code != 0 || !strings.Contains(e, "grade: warning: "+manual+":") || !strings.Contains(e, "changed since it was scored") || !strings.Contains(o, "2 answers wait") || !strings.Contains(o, ", 1 warning\n") {
		t.Errorf("changed answer: exit %d\n%s%s", code, o, e)
	}
	if g, gc := csvRows(t, filepath.Join(out, "grades.csv")); g[2][gc["text.counter_evidence"]] != "" {
		t.Errorf("stale score applied: %v", g[2])
	}
}

// LMS bulk downloads as inputs: every notebook in the zips graded by the
// signed record or the LMS name; a corrupt zip is one ungradable line and
// the batch finishes; ignored entries are named.
func TestGradeCLIZips(t *testing.T) {
	c := newClassroom(t, "id,lms_id\nalice,501\nbob,502\ncarol,503\n", map[string]*card.Card{"alice": {}, "bob": {}})
	alice, _ := os.ReadFile(filepath.Join(c.sub, "alice", "06-deliverable.ipynb"))
	bob, _ := os.ReadFile(filepath.Join(c.sub, "bob", "06-deliverable.ipynb"))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range map[string][]byte{
		"lialice_501_9001_06-deliverable.ipynb":                        alice,
		"Bob Wang_502_assignsubmission_file_/sub/06-deliverable.ipynb": bob,
		"__MACOSX/._x.ipynb":                                           []byte("junk"),
		"readme.txt":                                                   []byte("hi"),
	} {
		w, _ := zw.Create(name)
		w.Write(b)
	}
	zw.Close()
	z := filepath.Join(c.dir, "canvas.zip")
	os.WriteFile(z, buf.Bytes(), 0o644)
	broken := filepath.Join(c.dir, "broken.zip")
	os.WriteFile(broken, buf.Bytes()[:buf.Len()/2], 0o644)
	out := filepath.Join(c.dir, "graded")
	code, o, e := runCLI(t, "grade", "--key-file", c.key, "--roster", c.roster, "--out", out, z, broken)
	if code != 0 || !strings.Contains(o, "graded 3 submissions: 2 gradable, 1 ungradable; 1 of 3 learners did not submit") {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	for _, want := range []string{"canvas.zip: ignored 1 entry that is not a notebook: readme.txt", "canvas.zip: skipped 1 macOS", "broken.zip: ungradable (bad_zip)", "canvas.zip:lialice_501_9001_06-deliverable.ipynb: alice"} {
		if !strings.Contains(e, want) {
			t.Errorf("stderr lacks %q:\n%s", want, e)
		}
	}
	if sum, _ := os.ReadFile(filepath.Join(out, "summary.md")); !strings.Contains(string(sum), "readme.txt") {
		t.Errorf("summary.md does not list the ignored entry")
	}
	g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
	if !strings.HasPrefix(g[1][gc["status"]], "graded") || !strings.HasPrefix(g[2][gc["status"]], "graded") || g[3][gc["status"]] != "no submission" {
		t.Errorf("grades.csv: %v", g)
	}
}

// gsFakeRoot is a Gradescope root: the autograder zip's key and roster in
// source/, the notebook in submission/, and submission_metadata.json.
func gsFakeRoot(t *testing.T, c *classroom, nb []byte, metadata string) string {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "source"), 0o755)
	os.MkdirAll(filepath.Join(root, "submission"), 0o755)
	k, _ := os.ReadFile(c.key)
	r, _ := os.ReadFile(c.roster)
	os.WriteFile(filepath.Join(root, "source", "course.key"), k, 0o600)
	os.WriteFile(filepath.Join(root, "source", "roster.csv"), r, 0o644)
	if nb != nil {
		os.WriteFile(filepath.Join(root, "submission", "06-deliverable.ipynb"), nb, 0o644)
	}
	if metadata != "" {
		os.WriteFile(filepath.Join(root, "submission_metadata.json"), []byte(metadata), 0o644)
	}
	return root
}

func gsResults(t *testing.T, root string) (gradescope.GSResults, string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "results", "results.json"))
	if err != nil {
		t.Fatalf("no results.json: %v", err)
	}
	if err := gradescope.ValidateResultsJSON(raw); err != nil {
		t.Error(err)
	}
	var r gradescope.GSResults
	json.Unmarshal(raw, &r)
	return r, string(raw)
}

const gsMetadata = `{"id": 1, "created_at": "2026-11-30T10:00:00Z", "assignment": {"title": "Unit 01"}, "users": [{"email": "bob@example.edu", "name": "Bob", "sid": "bob"}]}`

// coursekit grade --gradescope ROOT: the key and roster come from
// ROOT/source by default; results.json is always written.
func TestGradeCLIGradescope(t *testing.T) {
	c := newClassroom(t, "id,email\nalice,alice@example.edu\nbob,bob@example.edu\n", map[string]*card.Card{"alice": {}})
	nb, _ := os.ReadFile(filepath.Join(c.sub, "alice", "06-deliverable.ipynb"))

	root := gsFakeRoot(t, c, nb, gsMetadata)
	code, o, e := runCLI(t, "grade", "--gradescope", root)
	// Alice's notebook from Bob's account: the record decides, it is not
	// Bob's own work.
	if code != 0 || !strings.Contains(o, "learner bob (identified by the Gradescope account in the submission metadata; the signed release record is another learner's)") || !strings.Contains(o, "ungradable ("+grader.ReasonNotOwn+")") {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	r, raw := gsResults(t, root)
	if r.Score == nil || *r.Score != 0 || !strings.Contains(r.Output, "签名的发放记录") || strings.Contains(raw, "alice") {
		t.Errorf("results.json:\n%.800s", raw)
	}

	// A notebook without a release record: the account decides, and says so.
	root = gsFakeRoot(t, c, unsigned(t, nb), gsMetadata)
	if code, o, e := runCLI(t, "grade", "--gradescope", root); code != 0 || !strings.Contains(o, "learner bob (identified by the Gradescope account's student id in the submission metadata (gradescope_sid))") {
		t.Errorf("unsigned: exit %d\n%s%s", code, o, e)
	}

	// No notebook: score 0, the reason in Chinese, exit 0 (the run worked).
	root = gsFakeRoot(t, c, nil, gsMetadata)
	code, o, _ = runCLI(t, "grade", "--gradescope", root)
	if r, _ := gsResults(t, root); code != 0 || *r.Score != 0 || !strings.Contains(r.Output, "没有找到 .ipynb 笔记本") || !strings.Contains(o, "ungradable (no_notebook)") {
		t.Errorf("no notebook: exit %d, %+v", code, r)
	}

	// The autograder's key is missing: exit 2, and still a results.json.
	root = gsFakeRoot(t, c, nb, gsMetadata)
	os.Remove(filepath.Join(root, "source", "course.key"))
	code, _, e = runCLI(t, "grade", "--gradescope", root)
	if r, _ := gsResults(t, root); code != 2 || *r.Score != 0 || !strings.Contains(r.Output, "评分程序的配置有问题") || !strings.Contains(e, "does not exist") {
		t.Errorf("missing key: exit %d, %s, %+v", code, e, r)
	}

	// --gradescope does not mix with a batch's flags.
	if code, _, e := runCLI(t, "grade", "--gradescope", root, "--out", c.dir); code != 2 || !strings.Contains(e, "--gradescope") {
		t.Errorf("--gradescope with --out: exit %d %s", code, e)
	}
}

// unsigned is nb without its release record.
func unsigned(t *testing.T, nb []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(nb, &m); err != nil {
		t.Fatal(err)
	}
	delete(m["metadata"].(map[string]any), "coursekit")
	b, _ := json.Marshal(m)
	return b
}

var built struct {
	once     sync.Once
	dir, out string
	err      error
}

// buildCoursekit builds the command once per test run into a temp dir, as
// setup.sh would install it: no source path in the binary, so that nothing
// finds the course through one. It trims this module's paths alone
// (-gcflags=MODULE/...=-trimpath=ROOT=>MODULE, what -trimpath does to them):
// -trimpath would also compile every dependency afresh (arrow-go, grpc, the
// standard library), which took minutes of the CLI tests' 10 on a cold cache,
// while this build reuses what go vet and go test compiled. It returns the dir.
func buildCoursekit(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "coursekit-bin-")
		if built.err != nil {
			return
		}
		const mod = "github.com/llmperf-course/course"
		root, err := filepath.Abs(filepath.Join("..", "..", ".."))
		if err != nil {
			built.err = err
			return
		}
		trim := "-gcflags=" + mod + "/...=-trimpath=" + root + "=>" + mod
		bin := filepath.Join(built.dir, "coursekit")
		b, err := exec.Command("go", "build", trim, "-o", bin, ".").CombinedOutput()
		built.out, built.err = string(b), err
		if err != nil {
			return
		}
		// The build settings name the flag, root and all; nothing else may
		// name a file under root (root + "/": a sibling folder whose name
		// starts with root's, such as a module cache in root+"home", is not
		// under it).
		exe, err := os.ReadFile(bin)
		if err == nil && bytes.Contains(bytes.ReplaceAll(exe, []byte(trim[len("-gcflags="):]), nil), []byte(root+string(filepath.Separator))) {
			err = fmt.Errorf("the binary still holds source paths under %s", root)
		}
		built.err = err
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.dir
}

// TestMain removes the built binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

const gsDir = "../../grade/gradescope"

// run_autograder as Gradescope runs it, with ROOT overridden and the built
// binary on PATH; without the binary it still writes a results.json.
func TestRunAutograderScript(t *testing.T) {
	bin := buildCoursekit(t)
	c := newClassroom(t, "id\nalice\nbob\n", map[string]*card.Card{"alice": {}})
	nb, _ := os.ReadFile(filepath.Join(c.sub, "alice", "06-deliverable.ipynb"))
	run := func(root, path string) (string, error) {
		cmd := exec.Command("bash", filepath.Join(gsDir, "run_autograder"))
		cmd.Env = append(os.Environ(), "COURSEKIT_AUTOGRADER_ROOT="+root, "PATH="+path)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")

	root := gsFakeRoot(t, c, nb, strings.ReplaceAll(gsMetadata, "bob", "alice"))
	if out, err := run(root, path); err != nil || !strings.Contains(out, "learner alice") {
		t.Fatalf("run_autograder: %v\n%s", err, out)
	}
	if r, _ := gsResults(t, root); r.Score == nil || len(r.Tests) < 10 {
		t.Errorf("results.json %+v", r)
	}

	// Two notebooks: score 0 with the reason.
	root = gsFakeRoot(t, c, nb, gsMetadata)
	os.WriteFile(filepath.Join(root, "submission", "copy.ipynb"), nb, 0o644)
	if out, err := run(root, path); err != nil {
		t.Errorf("two notebooks: %v\n%s", err, out)
	}
	if r, _ := gsResults(t, root); *r.Score != 0 || !strings.Contains(r.Output, "上传了 2 个笔记本") {
		t.Errorf("two notebooks: %+v", r)
	}

	// Bad metadata and an unsigned notebook: nobody to grade as.
	root = gsFakeRoot(t, c, unsigned(t, nb), "{broken")
	run(root, path)
	if r, _ := gsResults(t, root); *r.Score != 0 || !strings.Contains(r.Output, "无法确定这是谁的提交") {
		t.Errorf("bad metadata: %+v", r)
	}

	// coursekit not installed: the script writes the results.json itself.
	root = gsFakeRoot(t, c, nb, gsMetadata)
	if out, err := run(root, "/nonexistent-bin:"+filepath.Dir(mustLookPath(t, "bash"))); err == nil || !strings.Contains(out, "coursekit is not installed") {
		t.Errorf("no binary: %v\n%s", err, out)
	}
	if r, raw := gsResults(t, root); r.Score == nil || *r.Score != 0 || !strings.Contains(raw, "请联系老师") {
		t.Errorf("fallback results.json:\n%s", raw)
	}
}

func mustLookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found: the test needs it (install it; never skipped)", name)
	}
	return p
}

// make-autograder.sh puts everything Gradescope needs at the top of the
// zip, executables executable.
func TestMakeAutograderZip(t *testing.T) {
	bin := buildCoursekit(t)
	c := newClassroom(t, "id\nalice\n", nil)
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(gsDir, "make-autograder.sh"), "--key", c.key, "--roster", c.roster, out)
	cmd.Env = append(os.Environ(), "COURSEKIT_BIN="+filepath.Join(bin, "coursekit"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make-autograder.sh: %v\n%s", err, b)
	}
	z, err := zip.OpenReader(filepath.Join(out, "autograder.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	got := map[string]os.FileMode{}
	for _, f := range z.File {
		got[f.Name] = f.Mode()
	}
	for _, name := range []string{"setup.sh", "run_autograder", "coursekit", "course.key", "roster.csv", "public-trace.jsonl"} {
		mode, ok := got[name]
		if !ok {
			t.Errorf("zip lacks %s (has %v)", name, got)
		}
		if (name == "setup.sh" || name == "run_autograder" || name == "coursekit") && mode&0o100 == 0 {
			t.Errorf("%s is not executable: %v", name, mode)
		}
	}

	// A bad key is caught here, not on Gradescope.
	os.WriteFile(c.key, []byte("short"), 0o600)
	cmd = exec.Command("bash", filepath.Join(gsDir, "make-autograder.sh"), "--key", c.key, "--roster", c.roster, t.TempDir())
	cmd.Env = append(os.Environ(), "COURSEKIT_BIN="+filepath.Join(bin, "coursekit"))
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "does not load") {
		t.Errorf("short key: %v\n%s", err, b)
	}
}
