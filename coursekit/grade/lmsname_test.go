package grade

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/roster"
)

// A Canvas or Moodle name is recognised without a roster; an unknown
// file's output name is never built from its file name; a zip of LMS
// names with a roster lacking lms_id is warned about.
func TestLMSNamesWithoutLMSIDs(t *testing.T) {
	for name, want := range map[string]string{
		"alice_12345_67890_06-deliverable.ipynb":                       "12345",
		"alice_LATE_12345_67890_06-deliverable.ipynb":                  "12345",
		"__10003_90003_06-deliverable.md":                              "10003",
		"Full Name_12345_assignsubmission_file_/06-deliverable.ipynb":  "12345",
		"sub/Full Name_777_assignsubmission_file_06-deliverable.ipynb": "777",
		"06-deliverable.ipynb":                                         "",
	} {
		if got := roster.LMSNumber(name); got != want {
			t.Errorf("LMSNumber(%q) = %q, want %q", name, got, want)
		}
	}
	roster := &roster.Roster{Learners: []roster.Learner{{ID: "s001"}}}
	subs := []*grader.Submission{{File: "__10003_90003_06-deliverable.md"}, {File: "bob_10004_90004_06-deliverable.ipynb"}}
	b := batch.NewBatch(roster, nil, subs)
	for _, n := range b.Names {
		if strings.Contains(n, "10003") || strings.Contains(n, "deliverable") {
			t.Errorf("output name %q is built from the file name", n)
		}
	}
	if fb := feedback.FeedbackHTML(subs[0]); !strings.Contains(fb, subs[0].File) {
		t.Errorf("an unknown file's feedback does not say which file it was:\n%s", fb)
	}
	if b.Names[0] == b.Names[1] {
		t.Errorf("two unknown files share the name %q", b.Names[0])
	}
	warned := false
	for _, w := range b.Warnings {
		if strings.Contains(w.Text, "lms_id") && strings.Contains(w.Zh, "lms_id") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no lms_id warning for a zip of LMS names: %+v", b.Warnings)
	}
}
