package grade

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
)

// as44 is nb as Jupyter saves it in nbformat 4.4: no cell ids; cell
// metadata (the coursekit roles) and the notebook metadata stay.
func as44(t *testing.T, nb []byte) []byte {
	t.Helper()
	return edit(t, nb, func(m map[string]any, cells []any) []any {
		m["nbformat_minor"] = 4
		for _, c := range cells {
			delete(c.(map[string]any), "id")
		}
		return cells
	})
}

// Without cell ids, locked cells are found by their signature, then by
// role and position: an honest 4.4 copy is clean, with a note saying how
// cells were matched; edits and deletions are still caught.
func TestNBFormat44LockedCells(t *testing.T) {
	f := newFixture(t, "alice")
	good := f.submitted(t, "alice", correctCard(t, f.variants["alice"]))
	nb44 := as44(t, good)
	if parsed, err := notebook.ParseNotebook(nb44); err != nil || parsed.Cells[0].ID != "" || parsed.Version() != "4.4" {
		t.Fatalf("test premise: the 4.4 copy: %v", err)
	}
	markdown := func(cells []any, prefix string) map[string]any {
		for _, c := range cells {
			cm := c.(map[string]any)
			if src, _ := cm["source"].([]any); cm["cell_type"] == "markdown" && len(src) > 0 && strings.HasPrefix(src[0].(string), prefix) {
				return cm
			}
		}
		t.Fatalf("no markdown cell starting %q", prefix)
		return nil
	}
	cases := []struct {
		name    string
		nb      []byte
		want    []string // warning codes
		message string   // in one of the findings
	}{
		{"honest", nb44, nil, ""},
		{"honest, with a note of the learner's own", edit(t, nb44, func(_ map[string]any, cells []any) []any {
			note := map[string]any{"cell_type": "markdown", "metadata": map[string]any{}, "source": "## 3. 我的笔记"}
			return append(cells[:5:5], append([]any{note}, cells[5:]...)...)
		}), nil, ""},
		{"instructions edited", edit(t, nb44, func(_ map[string]any, cells []any) []any {
			markdown(cells, "## 3.")["source"] = "## 3. 这一节不用做"
			return cells
		}), []string{integrity.FindLockedEdited}, "锁定的说明单元格（第 12 个单元格）的内容被改动了"},
		{"self-check edited", edit(t, nb44, func(_ map[string]any, cells []any) []any {
			sc := cellByRole(cells, notebook.RoleSelfCheck)
			sc["source"] = "%%\nfmt.Println(\"全部通过\")"
			return cells
		}), []string{integrity.FindLockedEdited}, "锁定的自检单元格"},
		{"instructions turned into code", edit(t, nb44, func(_ map[string]any, cells []any) []any {
			markdown(cells, "## 1.")["cell_type"] = "code"
			return cells
		}), []string{integrity.FindLockedEdited}, "类型被改成了 code"},
		{"data cell deleted", edit(t, nb44, func(_ map[string]any, cells []any) []any {
			var out []any
			for _, c := range cells {
				if role(c) != notebook.RoleData {
					out = append(out, c)
				}
			}
			return out
		}), []string{integrity.FindLockedDeleted}, "锁定的数据单元格"},
		{"instructions deleted", edit(t, nb44, func(_ map[string]any, cells []any) []any {
			drop := markdown(cells, "## 4.")
			return slices.DeleteFunc(cells, func(c any) bool { return fmt.Sprint(c.(map[string]any)["source"]) == fmt.Sprint(drop["source"]) })
		}), []string{integrity.FindLockedDeleted}, "锁定的说明单元格"},
		{"self-check duplicated", edit(t, nb44, func(_ map[string]any, cells []any) []any {
			return append(cells, cellByRole(cells, notebook.RoleSelfCheck))
		}), []string{integrity.FindLockedDuplicated}, "出现了 2 次"},
	}
	for _, c := range cases {
		s := f.g.Grade("alice.ipynb", c.nb)
		if !s.Gradable {
			t.Errorf("%s: ungradable: %s", c.name, s.Reason)
			continue
		}
		if s.NBFormat != "4.4" {
			t.Errorf("%s: nbformat %q", c.name, s.NBFormat)
		}
		var note *integrity.Finding
		for i := range s.Integrity {
			if s.Integrity[i].Code == integrity.FindNBFormat {
				note = &s.Integrity[i]
			}
		}
		if note == nil || note.Warn || !strings.Contains(note.Message, "没有 id") || !strings.Contains(note.Message, "签名") || !strings.Contains(note.Detail, "by signature") {
			t.Errorf("%s: nbformat note %+v", c.name, note)
		}
		var warns []string
		all := ""
		for _, x := range s.Integrity {
			all += x.Message + "\n"
			if x.Warn {
				warns = append(warns, x.Code)
			}
		}
		if strings.Join(warns, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: warnings %v, want %v\n%s", c.name, warns, c.want, all)
		}
		if c.message != "" && !strings.Contains(all, c.message) {
			t.Errorf("%s: no finding says %q:\n%s", c.name, c.message, all)
		}
	}
	// The honest copy scores what the 4.5 original does.
	if a, b := f.g.Grade("alice.ipynb", good), f.g.Grade("alice.ipynb", nb44); a.Total != b.Total || a.Pending != b.Pending {
		t.Errorf("4.5 scores %v+%v, 4.4 scores %v+%v", a.Total, a.Pending, b.Total, b.Pending)
	}
}
