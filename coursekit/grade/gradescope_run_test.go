package grade

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/roster"
)

// gsRoot lays out a Gradescope root: submission files and, unless
// metadata is "", submission_metadata.json.
func gsRoot(t *testing.T, metadata string, files map[string][]byte) string {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, gradescope.GSSubmissionDir), 0o755)
	for name, b := range files {
		p := filepath.Join(root, gradescope.GSSubmissionDir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, b, 0o644)
	}
	if metadata != "" {
		os.WriteFile(filepath.Join(root, gradescope.GSMetadataFile), []byte(metadata), 0o644)
	}
	return root
}

// gsGrader is a grader for alice and bob (with emails) and alice's right
// notebook.
func gsGrader(t *testing.T) (*grader.Grader, []byte) {
	t.Helper()
	ro, _ := roster.ReadRoster(strings.NewReader("id,email\nalice,alice@example.edu\nbob,bob@example.edu\n"))
	f := newFixture(t, "alice", "bob")
	g, err := grader.NewGrader(grader.Options{Key: testKey, Roster: ro, Public: f.public})
	if err != nil {
		t.Fatal(err)
	}
	return g, f.submitted(t, "alice", correctCard(t, f.variants["alice"]))
}

func gsMeta(sid, email string) string {
	b, _ := json.Marshal(map[string]any{"id": 123, "created_at": "2026-11-30T10:00:00Z",
		"assignment": map[string]any{"title": "Unit 01"},
		"users":      []any{map[string]any{"email": email, "name": "X", "sid": sid}}})
	return string(b)
}

// A Gradescope run grades the one notebook, identifies the learner by the
// signed release record or else by the account, and always writes a valid
// results.json; bad input scores 0 with the reason in Chinese.
func TestRunGradescope(t *testing.T) {
	g, good := gsGrader(t)
	unsigned := edit(t, good, func(m map[string]any, cells []any) []any {
		delete(m["metadata"].(map[string]any), "coursekit")
		return cells
	})
	cases := []struct {
		name, meta string
		files      map[string][]byte
		learner    string
		by         string
		reason     string // "" for gradable
		output     string // in results.json's output
	}{
		{"signed notebook", gsMeta("", "alice@example.edu"), map[string][]byte{"06-deliverable.ipynb": good}, "alice", "release_record", "", "签名的发放记录"},
		{"uploaded under another learner's name", gsMeta("alice", ""), map[string][]byte{"bob.ipynb": good}, "alice", "release_record", "", "签名的发放记录"},
		{"unsigned, by sid", gsMeta("alice", "nobody@example.edu"), map[string][]byte{"06-deliverable.ipynb": unsigned}, "alice", "gradescope_sid", "", "学号"},
		{"unsigned, by email", gsMeta("", "ALICE@example.edu"), map[string][]byte{"06-deliverable.ipynb": unsigned}, "alice", "gradescope_email", "", "邮箱"},
		{"with a checkpoint and a trace", gsMeta("", ""), map[string][]byte{"work/06-deliverable.ipynb": good, "work/.ipynb_checkpoints/06-deliverable-checkpoint.ipynb": []byte("{"), "work/trace.jsonl": []byte("{}")}, "alice", "release_record", "", ""},
		{"signed, bad metadata", "{not json", map[string][]byte{"06-deliverable.ipynb": good}, "alice", "release_record", "", "读不了 Gradescope 的提交信息"},
		{"unsigned, bad metadata", "{not json", map[string][]byte{"06-deliverable.ipynb": unsigned}, "", "", notebook.ReasonUnknown, "提交信息也读不出来"},
		{"unsigned, no metadata", "", map[string][]byte{"06-deliverable.ipynb": unsigned}, "", "", notebook.ReasonUnknown, "无法确定这是谁的提交"},
		{"unsigned, account not on the roster", gsMeta("zed", "zed@example.edu"), map[string][]byte{"06-deliverable.ipynb": unsigned}, "", "", notebook.ReasonUnknown, "不在课程名单里"},
		{"no notebook", gsMeta("alice", ""), map[string][]byte{"card.pdf": []byte("%PDF")}, "", "", gradescope.ReasonNoNotebook, "你上传的是：card.pdf"},
		{"nothing uploaded", gsMeta("alice", ""), nil, "", "", gradescope.ReasonNoNotebook, "没有找到 .ipynb 笔记本"},
		{"two notebooks", gsMeta("alice", ""), map[string][]byte{"a.ipynb": good, "b/c.ipynb": good}, "", "", gradescope.ReasonTwoNotebooks, "上传了 2 个笔记本（a.ipynb、b/c.ipynb）"},
		{"truncated notebook", gsMeta("alice", ""), map[string][]byte{"06-deliverable.ipynb": good[:200]}, "alice", "gradescope_sid", notebook.ReasonTruncated, "中途断了"},
	}
	for _, c := range cases {
		root := gsRoot(t, c.meta, c.files)
		run, err := gradescope.RunGradescope(g, root)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		raw, err := os.ReadFile(filepath.Join(root, "results", "results.json"))
		if err != nil {
			t.Errorf("%s: no results.json: %v", c.name, err)
			continue
		}
		if err := gradescope.ValidateResultsJSON(raw); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		var r gradescope.GSResults
		json.Unmarshal(raw, &r)
		s := run.Sub
		if s.Learner != c.learner || run.IdentifiedBy != c.by || s.ReasonCode != c.reason || s.Gradable != (c.reason == "") {
			t.Errorf("%s: learner %q by %q, reason %q (%s)", c.name, s.Learner, run.IdentifiedBy, s.ReasonCode, s.Reason)
		}
		if !strings.Contains(r.Output, c.output) {
			t.Errorf("%s: output %q lacks %q", c.name, r.Output, c.output)
		}
		if c.reason != "" && (r.Score == nil || *r.Score != 0) {
			t.Errorf("%s: score %v, want 0", c.name, r.Score)
		}
		if c.reason == "" && (r.Score == nil || *r.Score < 40) {
			t.Errorf("%s: score %v", c.name, r.Score)
		}
	}

	// Alice's notebook handed in from Bob's account: not Bob's own work.
	root := gsRoot(t, gsMeta("bob", ""), map[string][]byte{"06-deliverable.ipynb": good})
	run, _ := gradescope.RunGradescope(g, root)
	if run.Sub.Learner != "bob" || run.Sub.ReasonCode != grader.ReasonNotOwn || !hasFinding(run.Sub, grader.FindRecordCopied) {
		t.Errorf("other account: %s %+v", run.Sub.Learner, run.Sub.Integrity)
	}

	// The autograder's own setup failing still leaves a results.json.
	root = t.TempDir()
	if err := gradescope.WriteGradescopeFailure(root, os.ErrNotExist); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(root, "results", "results.json"))
	if err := gradescope.ValidateResultsJSON(raw); err != nil || !strings.Contains(string(raw), "请联系老师") || !strings.Contains(string(raw), `"score": 0`) {
		t.Errorf("setup failure results.json (%v):\n%s", err, raw)
	}
}
