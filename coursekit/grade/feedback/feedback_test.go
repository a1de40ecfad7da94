package feedback

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/grader"
)

// A duplicate that did not count says so before anything else, in both
// feedback forms, and names the file that counted (escaped in HTML).
func TestFeedbackDuplicateSaysNotCountedFirst(t *testing.T) {
	s := &grader.Submission{File: "a.ipynb", Learner: "s001", Gradable: true, SupersededBy: "<b>.ipynb"}
	md, h := FeedbackMarkdown(s), FeedbackHTML(s)
	i := strings.Index(md, "没有计入成绩")
	if i < 0 || i > strings.Index(md, "学习者：") {
		t.Errorf("markdown does not open with 没有计入成绩:\n%s", md)
	}
	j := strings.Index(h, "没有计入成绩")
	if j < 0 || j > strings.Index(h, "学习者：") || !strings.Contains(h, "&lt;b&gt;.ipynb") {
		t.Errorf("html does not open with 没有计入成绩 (escaped name):\n%s", h)
	}
	if c := FeedbackMarkdown(&grader.Submission{File: "a.ipynb", Learner: "s001", Gradable: true}); strings.Contains(c, "没有计入成绩") {
		t.Errorf("a counted file says it did not count:\n%s", c)
	}
}

// A file name with terminal control codes (an attacker's zip entry) reaches neither feedback
// form raw: an instructor who runs `cat feedback/s001.md` gets no escape sequence.
func TestFeedbackHasNoRawControlCodes(t *testing.T) {
	name := "s001\x1b]0;PWNED\a\x1b[2J\x1b[31mX\r\b.ipynb"
	for _, s := range []*grader.Submission{
		{File: name, Learner: "s001", Gradable: true},
		{File: name, Learner: "s001", Reason: "invalid_json", ReasonDetail: "bad \x1b[2J"},
	} {
		for form, out := range map[string]string{"markdown": FeedbackMarkdown(s), "html": FeedbackHTML(s)} {
			for i, r := range out {
				if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
					t.Fatalf("%s: raw control code %U at byte %d: %q", form, r, i, out[max(0, i-20):min(len(out), i+20)])
				}
			}
			if !strings.Contains(out, `\x1b`) {
				t.Errorf("%s: the escaped name is not shown:\n%s", form, out)
			}
		}
	}
}
