package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/review"
)

// toGBK is text as Excel's "CSV (逗号分隔)" saves it on Chinese Windows:
// GB18030 (GBK), no byte-order mark, CRLF line ends.
func toGBK(t *testing.T, text string) []byte {
	t.Helper()
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")
	b, err := simplifiedchinese.GB18030.NewEncoder().Bytes([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A CSV the instructor edited and saved from Excel as "CSV (逗号分隔)"
// (GB18030, no BOM, CRLF): manual-review.csv, overrides.csv, the roster
// and a weights file are read as GB18030, each with a warning naming the
// file; the comments and reasons reach the learner in Chinese, and the
// rewritten manual-review.csv is UTF-8 throughout. A file that is
// neither UTF-8 nor GB18030 stops the run with FILE:LINE of its first
// bad byte, nothing written.
func TestGradeCLIManualGB18030(t *testing.T) {
	c := newClassroom(t, "id,name\nalice,A\nbob,B\n", map[string]*card.Card{
		"alice": {CounterEvidence: "排队：有请求在首字前等待超时。", DenominatorError: "分母应是全部尝试。"},
		"bob":   {CounterEvidence: "GPU 很忙。"},
	})
	os.WriteFile(c.roster, toGBK(t, "id,姓名\nalice,张三\nbob,李四\n"), 0o644)
	weights := filepath.Join(c.dir, "weights.csv")
	var wb bytes.Buffer
	if code, o, e := runCLI(t, "grade", "--print-weights"); code != 0 {
		t.Fatalf("print-weights: %d %s", code, e)
	} else {
		wb.WriteString("# 权重：按默认值\n" + o)
	}
	os.WriteFile(weights, toGBK(t, wb.String()), 0o644)
	out := filepath.Join(c.dir, "graded")
	args := []string{"grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--weights", weights, "--out", out, c.sub}
	code, o, e := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	for _, f := range []string{c.roster, weights} {
		if !strings.Contains(e, f+" is not UTF-8: read it as GB18030") {
			t.Errorf("no warning naming %s:\n%s", f, e)
		}
	}
	manual := filepath.Join(out, review.ManualFile)
	comment := "方法正确，但要写出分母：十次尝试。"
	setManual(t, manual, "alice", "text.counter_evidence", "score", "1")
	setManual(t, manual, "alice", "text.counter_evidence", "comment", comment)
	b, _ := os.ReadFile(manual)
	os.WriteFile(manual, toGBK(t, string(b)), 0o644)
	ov := filepath.Join(out, review.OverridesFile)
	os.WriteFile(ov, toGBK(t, "id,criterion,score,reason\nbob,figures.goodput,2,四舍五入造成的差别，不扣分\n"), 0o644)
	for run := 1; run <= 2; run++ {
		code, o, e := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", run, code, o, e)
		}
		if run == 1 {
			for _, f := range []string{manual, ov} {
				if !strings.Contains(e, f+" is not UTF-8: read it as GB18030") {
					t.Errorf("run %d: no warning naming %s:\n%s", run, f, e)
				}
			}
		}
		md, _ := os.ReadFile(filepath.Join(out, "feedback", "alice.md"))
		if !strings.Contains(string(md), comment) || strings.Contains(string(md), `\x`) {
			t.Errorf("run %d: alice's feedback lacks the comment in Chinese:\n%s", run, md)
		}
		md, _ = os.ReadFile(filepath.Join(out, "feedback", "bob.md"))
		if !strings.Contains(string(md), "四舍五入造成的差别") {
			t.Errorf("run %d: bob's feedback lacks the override's reason:\n%s", run, md)
		}
		mb, _ := os.ReadFile(manual)
		if !utf8.Valid(mb) || !strings.Contains(string(mb), comment) || !strings.Contains(string(mb), "分母应是全部尝试") {
			t.Errorf("run %d: the rewritten %s is not UTF-8 with the comment (valid %v)", run, review.ManualFile, utf8.Valid(mb))
		}
		m, col := manualByLearner(t, manual)
		if r := m["alice/text.counter_evidence"]; r == nil || r[col["score"]] != "1" {
			t.Errorf("run %d: alice's score row %q", run, r)
		}
		g, gc := csvRows(t, filepath.Join(out, "grades.csv"))
		if _, ok := gc["姓名"]; !ok || !strings.Contains(strings.Join(g[1], ","), "张三") && !strings.Contains(strings.Join(g[2], ","), "张三") {
			t.Errorf("run %d: grades.csv lacks the roster's 姓名 column in Chinese: %q", run, g[:3])
		}
	}
	// Neither UTF-8 nor GB18030: FILE:LINE of the first bad byte, nothing written.
	snap, _ := os.ReadFile(filepath.Join(out, "grades.csv"))
	mb, _ := os.ReadFile(manual)
	rows, _ := csv.NewReader(bytes.NewReader(mb)).ReadAll()
	if len(rows) < 3 {
		t.Fatalf("premise: %d rows", len(rows))
	}
	lines := strings.SplitAfter(string(toGBK(t, string(mb))), "\r\n")
	lines[2] = strings.Replace(lines[2], ",", ",\xff", 1)
	os.WriteFile(manual, []byte(strings.Join(lines, "")), 0o644)
	code, o, e = runCLI(t, args...)
	if code != 2 || !strings.Contains(e, manual+":3: byte 0xff") {
		t.Errorf("bad bytes: exit %d, want %s:3: byte 0xff\n%s%s", code, manual, o, e)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "grades.csv")); string(after) != string(snap) {
		t.Errorf("bad bytes: grades.csv rewritten")
	}
}
