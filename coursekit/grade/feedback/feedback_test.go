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
