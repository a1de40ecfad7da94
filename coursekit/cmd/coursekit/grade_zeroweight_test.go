package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// A free-text answer scored 0.5 of 1, then its criterion weighted 0: the
// learner's feedback says the answer was read and does not count at a
// weight of 0, never "✓ 通过 0/0 老师已阅读评分：0/0 分" (a pass worth
// nothing, a score that was not the one typed).
func TestGradeCLIZeroWeightTypedScoreSaysItDoesNotCount(t *testing.T) {
	c := newClassroom(t, "id,name,lms_id\ns01,Li Na,1001\ns02,Wang Fang,1002\n", map[string]*card.Card{
		"s01": {CounterEvidence: "排队：有请求在首字前等待超时。", Uncertain: "样本太少，不确定 P95 是否稳定。"},
		"s02": {CounterEvidence: "GPU 很忙。", Uncertain: "不确定服务端排队。"},
	})
	z := filepath.Join(c.dir, "canvas.zip")
	canvasZip(t, z, map[string][]byte{
		"lina_1001_51001_06-deliverable.ipynb":     c.handedIn(t, "s01"),
		"wangfang_1002_51002_06-deliverable.ipynb": c.handedIn(t, "s02"),
	})
	out := filepath.Join(c.dir, "graded")
	grade := func(extra ...string) {
		t.Helper()
		args := append([]string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out}, extra...)
		if code, o, e := runCLI(t, append(args, z)...); code != 0 {
			t.Fatalf("grade %v: exit %d\n%s%s", extra, code, o, e)
		}
	}
	grade()
	setManual(t, filepath.Join(out, "manual-review.csv"), "s01", "text.uncertain", "score", "0.5")
	w := filepath.Join(c.dir, "w0.csv")
	os.WriteFile(w, []byte("criterion,points\ntext.uncertain,0\n"), 0o644)
	grade("--weights", w, "--change-weights")
	for run := 1; run <= 2; run++ {
		for _, f := range []string{"s01.md", "s01.html"} {
			b, _ := os.ReadFile(filepath.Join(out, "feedback", f))
			var row string
			for _, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, "text.uncertain") {
					row = line
				}
			}
			if row == "" {
				t.Fatalf("run %d: feedback/%s has no text.uncertain row:\n%s", run, f, b)
			}
			if strings.Contains(row, "✓") || strings.Contains(row, "通过") || strings.Contains(row, "0/0 分") {
				t.Errorf("run %d: feedback/%s reads a pass worth 0/0:\n%s", run, f, row)
			}
			for _, want := range []string{"权重为 0", "不计入成绩", "0.5"} {
				if !strings.Contains(row, want) {
					t.Errorf("run %d: feedback/%s's row lacks %q:\n%s", run, f, want, row)
				}
			}
		}
		grade()
	}
}
