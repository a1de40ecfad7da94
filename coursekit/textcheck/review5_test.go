package textcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fifth review of unit 01 (issue 33's fresh review), one rule each, so
// that none comes back. It reads the notebooks' cells, README.md, docs/
// and the Go sources of coursekit/nb, whose strings the notebooks print.

// reviewFiveWordings are phrases the review replaced, with why.
var reviewFiveWordings = []struct{ never, why string }{
	{"guidellm 的 goodput 都只看时延", "guidellm has no goodput (05's table): vLLM、AIPerf 的 goodput 只看时延；guidellm 没有 goodput"},
	{"E2E 一栏是空的", "the table prints " + "“—（失败，不计时延）”" + " for a failure: quote what is printed"},
	{"差了好几百毫秒", "03's two P95s are 2000 and 1720 ms, 280 ms apart: 近 300 毫秒"},
	{"合格请求/秒", "goodput counts qualified attempts, not requests: 合格尝试/秒"},
	{"合格请求/s", "goodput counts qualified attempts, not requests: 合格尝试/s"},
	{"联合合格的请求", "goodput counts qualified attempts, not requests: 联合合格的尝试"},
}

// reviewFiveTexts is every text a learner reads: cells, README.md, docs/
// and coursekit/nb's non-test Go sources.
func reviewFiveTexts(t *testing.T) []struct{ where, source string } {
	t.Helper()
	var all []struct{ where, source string }
	for _, c := range notebookCells(t) {
		all = append(all, struct{ where, source string }{c.where, c.source})
	}
	docs, _ := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	gos, _ := filepath.Glob(filepath.Join(repo, "coursekit", "nb", "*.go"))
	files := append(docs, filepath.Join(repo, "README.md"))
	for _, f := range gos {
		if !strings.HasSuffix(f, "_test.go") {
			files = append(files, f)
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, struct{ where, source string }{f, string(b)})
	}
	return all
}

func TestReviewFiveWordings(t *testing.T) {
	for _, x := range reviewFiveTexts(t) {
		for _, w := range reviewFiveWordings {
			if strings.Contains(x.source, w.never) {
				t.Errorf("%s: %q: %s", x.where, w.never, w.why)
			}
		}
	}
}
