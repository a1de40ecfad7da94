package grader

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/criteria"
)

// The status line names each waiting part for what it is: the
// own-variant check waiting for review is not counted as a text question.
func TestStatusLinePendingParts(t *testing.T) {
	s := &Submission{Scores: []criteria.Score{
		{ID: "text.a", Kind: criteria.KindManual, Max: 8, Pending: true},
		{ID: criteria.OwnVariantID, Kind: criteria.KindManual, Max: 3, Pending: true},
		{ID: "hidden.x", Kind: criteria.KindHidden, Max: 5},
	}, Pending: 11}
	line := s.statusLine()
	if !strings.Contains(line, "另有 8 分的文字题") {
		t.Errorf("text points not 8: %s", line)
	}
	if !strings.Contains(line, "3 分的检查“"+criteria.OwnVariantTitle+"”") {
		t.Errorf("own-variant points not named: %s", line)
	}
	if strings.Contains(line, "11 分") {
		t.Errorf("own-variant points counted as text: %s", line)
	}
}
