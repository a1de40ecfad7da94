package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// The roster-mismatch warning reads as a short headline and short
// detail lines, not one line of 600 characters. The roster swaps the
// lms_id of s11 and s12, and each hands in their own notebook from their
// own Canvas account. (Before, a format verb after an explicit index took
// the wrong argument: "…not as a copys11's record came in only in this
// file…", and "nobody gets a copy finding" was never said.) The exact
// text, in English on stderr and in Chinese in summary.md, word for word.
func TestGradeCLIRosterMismatchWarningText(t *testing.T) {
	c, _, swapped, zips := walkClass(t)
	canvasZip(t, zips[1], map[string][]byte{
		"zhoutao_1011_51011_06-deliverable.ipynb": c.handedIn(t, "s11"),
		"wuxia_1012_51012_06-deliverable.ipynb":   c.handedIn(t, "s12"),
	})
	var e string
	out := filepath.Join(c.dir, "graded")
	gradeWalk(t, c, swapped, out, "", zips[:2], &e)
	en := `grade: warning: roster mismatch: canvas.zip:zhoutao_1011_51011_06-deliverable.ipynb is graded as s11's work, not as a copy
    it came from LMS account 1011 ("zhoutao"), s12's by the roster's lms_id
    but its LMS name and its signed release record are s11's, and s11's record came in only in this file (nobody gets a copy finding)
    it counts for s11
    s12's row counts canvas.zip:wuxia_1012_51012_06-deliverable.ipynb
    that file is from LMS account 1012 ("wuxia"), s11's by the roster's lms_id: the two files look swapped
    check the lms_id of s11 and s12 in the roster and grade again
    until then --export canvas leaves both rows out
`
	if !strings.Contains(e, en) {
		t.Errorf("stderr lacks the lines\n%s\ngot:\n%s", en, e)
	}
	zh := `- 名单可能有误：canvas.zip:zhoutao\_1011\_51011\_06-deliverable.ipynb 按 s11 的作业评分，不算抄袭
  - 它来自 LMS 账号 1011（zhoutao），名单的 lms\_id 说这个账号是 s12 的
  - 但它的 LMS 名字和签名的发放记录都是 s11 的，s11 的发放记录只交上来这一份（谁都没有抄袭线索）
  - 它计入 s11 的成绩
  - s12 计分的是 canvas.zip:wuxia\_1012\_51012\_06-deliverable.ipynb
  - 那个文件来自 LMS 账号 1012（wuxia），名单的 lms\_id 说这个账号是 s11 的：两个文件像是互换了
  - 请核对名单里 s11 和 s12 的 lms\_id 后重新评分
  - 在此之前，--export canvas 导出的文件不含这两行
`
	sum, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if !strings.Contains(string(sum), zh) {
		t.Errorf("summary.md lacks the lines\n%s\ngot:\n%s", zh, sum)
	}
	shortWarningLines(t, e)
	// class.html breaks the cell where the text has a detail line.
	page, _ := os.ReadFile(filepath.Join(out, "class.html"))
	if !strings.Contains(string(page), "不算抄袭<br>它来自 LMS 账号 1011（zhoutao）") {
		t.Errorf("class.html does not break the warning into lines")
	}
}

// warningBlocks are grade's warnings on stderr, each its headline and
// detail lines joined by "\n".
func warningBlocks(stderr string) []string {
	var ws []string
	for _, l := range strings.Split(stderr, "\n") {
		switch {
		case strings.HasPrefix(l, "grade: warning: "):
			ws = append(ws, l)
		case strings.HasPrefix(l, "    ") && len(ws) > 0:
			ws[len(ws)-1] += "\n" + l
		}
	}
	return ws
}

// shortWarningLines fails when a line of grade's roster-mismatch
// warnings on stderr is longer than 160 characters (a detail line's
// indent included), or when one has no detail lines.
func shortWarningLines(t *testing.T, stderr string) {
	t.Helper()
	for _, b := range warningBlocks(stderr) {
		if !strings.HasPrefix(b, "grade: warning: roster mismatch: ") {
			continue
		}
		if !strings.Contains(b, "\n") {
			t.Errorf("a roster-mismatch warning without detail lines:\n%s", b)
		}
		for _, l := range strings.Split(b, "\n") {
			if utf8.RuneCountInString(l) > 160 {
				t.Errorf("a roster-mismatch warning line of %d characters:\n%s", utf8.RuneCountInString(l), l)
			}
		}
	}
}

// A file that is not its submitter's own is nothing to correct: s12
// hands in s11's notebook from their own account (the roster right).
// s12's feedback says neutrally that the file does not count for them
// and to hand in their own notebook, never "请改正后重新提交" (correct
// it and resubmit), and names no classmate.
func TestGradeCLINotOwnFeedbackAsksForOwnNotebook(t *testing.T) {
	c, right, _, zips := walkClass(t)
	out := filepath.Join(c.dir, "graded")
	gradeWalk(t, c, right, out, "", zips)
	for _, f := range []string{"s12.md", "s12.html"} {
		fb, err := os.ReadFile(filepath.Join(out, "feedback", f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(fb), "改正") || !strings.Contains(string(fb), "不计入你的成绩") || !strings.Contains(string(fb), "请交上你自己的笔记本") {
			t.Errorf("%s:\n%s", f, fb)
		}
		for _, other := range []string{"s11", "Zhou Tao", "zhoutao", "1011", "抄袭"} {
			if strings.Contains(string(fb), other) {
				t.Errorf("%s names %q", f, other)
			}
		}
	}
}
