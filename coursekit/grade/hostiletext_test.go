package grade

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/report"
	"github.com/llmperf-course/course/coursekit/grade/review"
)

// A learner's answer with ESC/OSC codes, a bidi override and an invalid
// UTF-8 byte reaches summary.md, summary.html and manual-review.csv shown,
// not acted on: the codes escaped (\x1b, \u202e), the byte as U+FFFD.
func TestLearnerTextControlsEscaped(t *testing.T) {
	text := "p95 \x1b[2J\x1b]8;;http://x\x07link\u202edesrever \x85 end"
	item := grader.ManualItem{Learner: "s1", ID: "text.outputs", Title: "t", Text: text, Max: 2}
	sm := &report.Summary{Manual: []grader.ManualItem{item}}
	var csvb bytes.Buffer
	if err := review.WriteReview(&csvb, nil, []grader.ManualItem{item}, []string{""}, nil); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"summary.md": sm.Markdown(), "summary.html": sm.HTML(), "manual-review.csv": csvb.String()} {
		if strings.ContainsAny(out, "\x1b\x07\u202e") || !utf8.ValidString(out) {
			t.Errorf("%s holds a raw control code, bidi override or invalid UTF-8", name)
		}
		if !strings.Contains(out, `\x1b`) || !strings.Contains(out, `\u202e`) || !strings.Contains(out, "\uFFFD") {
			t.Errorf("%s does not show the codes escaped and the byte as U+FFFD", name)
		}
	}
}
