package grade

import (
	"encoding/json"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/report"
	"github.com/llmperf-course/course/coursekit/textcheck"
)

// chineseProblems reports where text writes Chinese the way the course
// does not: an ASCII mark next to a Chinese character (textcheck), an
// ASCII bracket that holds Chinese ("a.ipynb(自检运行时间 …)"), and a
// Latin letter touching a Chinese character with no space ("与alice 的
// trace吻合"; the course writes "与 alice 的 trace 吻合").
func chineseProblems(text string) []string {
	out := textcheck.Punctuation(text)
	out = append(out, chineseInASCIIBrackets.FindAllString(text, -1)...)
	out = append(out, latinTouchesHan.FindAllString(text, -1)...)
	return out
}

var (
	chineseInASCIIBrackets = regexp.MustCompile(`.{0,6}\(\p{Han}.{0,6}|.{0,6}\p{Han}\).{0,6}`)
	latinTouchesHan        = regexp.MustCompile(`.{0,6}(?:[A-Za-z]\p{Han}|\p{Han}[A-Za-z]).{0,6}`)
	htmlTag                = regexp.MustCompile(`<[^<>]*>`)
)

// Every Chinese text grade writes, for the learner (feedback, results)
// and for the instructor (summary, class report), keeps the course's
// punctuation and spacing: the duplicate note, the copy detail and every
// other sentence built from pieces. What learners typed and file names
// are theirs, and are left out of the check.
func TestOutputsWriteChineseAsTheCourseDoes(t *testing.T) {
	f := newFixture(t, classIDs...)
	b, _ := gradedClass(t, f, t.TempDir())
	out := filepath.Join(t.TempDir(), "graded")
	if err := report.Write(b, out); err != nil {
		t.Fatal(err)
	}

	// The learners' own strings, in every form an output writes them.
	var theirs []string
	add := func(s string) {
		for _, v := range []string{s, feedback.MDEscape(s), html.EscapeString(s), html.EscapeString(feedback.MDEscape(s))} {
			if v != "" {
				theirs = append(theirs, v)
			}
		}
	}
	for _, s := range b.Subs {
		add(s.Name)
		add(s.File)
		for _, m := range s.Manual {
			add(m.Text)
		}
	}
	for _, n := range classNames {
		add(n)
	}
	slices.SortFunc(theirs, func(a, b string) int { return len(b) - len(a) })
	mask := func(s string) string {
		for _, x := range theirs {
			s = strings.ReplaceAll(s, x, " ␣ ")
		}
		return s
	}

	checked := 0
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var texts []string
		switch filepath.Ext(p) {
		case ".md":
			texts = []string{string(raw)}
		case ".html":
			// Each tag is a break between words ("<br><code>"), then
			// the page's visible text as stripTags reads it.
			texts = []string{html.UnescapeString(stripTags(htmlTag.ReplaceAllString(string(raw), "$0 ")))}
		case ".json":
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			texts = jsonStrings(v)
		default:
			return nil // the CSVs: English headers and codes, the learners' answers
		}
		checked++
		for _, s := range texts {
			for _, q := range chineseProblems(mask(s)) {
				t.Errorf("%s: %q", filepath.ToSlash(rel), q)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 30 {
		t.Errorf("checked only %d outputs", checked)
	}
}

// jsonStrings is every string value in v.
func jsonStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, jsonStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, e := range x {
			out = append(out, jsonStrings(e)...)
		}
		return out
	}
	return nil
}
