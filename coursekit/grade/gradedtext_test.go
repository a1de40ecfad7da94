package grade

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
)

// What decides the score is the card cell's Go source (parsed, never run);
// the card the self-check embedded in its output only shows that the
// self-check ran, and stands in only when the source cannot be read. So no
// learner-facing sentence (the grader's and the card package's Chinese
// strings, the notebooks' cells) may say the grade is read from the
// self-check output, except one that says it is that fallback; and the
// feedback, results.json and the deliverable each say the card cell is
// graded.
func TestLearnerTextSaysWhatIsGraded(t *testing.T) {
	// The premise, checked on the grader itself: the card cell says
	// Clock "server", the self-check output (run before the edit) says
	// "client"; the graded card is the cell's.
	f := newFixture(t, "alice")
	good := f.submitted(t, "alice", correctCard(t, f.variants["alice"]))
	edited := edit(t, good, func(_ map[string]any, cells []any) []any {
		c := cellByRole(cells, notebook.RoleCard)
		c["source"] = strings.Replace(c["source"].(string), `Clock:"client"`, `Clock:"server"`, 1)
		return cells
	})
	s := f.g.Grade("alice.ipynb", edited)
	if !s.Gradable || s.Card() == nil || s.SavedCard() == nil || s.Card().Clock != "server" || s.SavedCard().Clock != "client" {
		t.Fatalf("premise: the graded card is not the card cell's (gradable %v, %s)", s.Gradable, s.Reason)
	}

	texts := map[string][]string{} // where → learner-facing strings
	for _, dir := range append(gradeDirs(t), filepath.Join("..", "card")) {
		for where, lits := range hanLiterals(t, dir) {
			texts[where] = append(texts[where], lits...)
		}
	}
	nbs, _ := filepath.Glob(filepath.Join("..", "..", "notebooks", "*", "*.ipynb"))
	top, _ := filepath.Glob(filepath.Join("..", "..", "notebooks", "*.ipynb"))
	for _, p := range append(nbs, top...) {
		texts[p] = notebookCells(t, p)
	}
	if len(texts[releasePath]) == 0 || len(texts["feedback.go"]) == 0 {
		t.Fatalf("premise: no text read from %s or feedback.go", releasePath)
	}

	// A clause (up to a comma or colon) that names grading and the
	// self-check output together must say the card cell is graded, that the
	// output only confirms the run, or that it is the fallback for a card
	// cell that cannot be read.
	output := regexp.MustCompile(`自检(单元格)?的?输出`)
	fine := regexp.MustCompile(`口径卡单元格|确认自检运行过|暂按|只能按`)
	for where, ss := range texts {
		for _, s := range ss {
			for _, clause := range regexp.MustCompile(`[。；！？：，\n]`).Split(s, -1) {
				if strings.Contains(clause, "评分") && output.MatchString(clause) && !fine.MatchString(clause) {
					t.Errorf("%s says the self-check output is graded: %q", where, clause)
				}
			}
		}
	}

	// And the places that explain grading say what is graded.
	says := regexp.MustCompile(`评分程序[^。]*(不运行|没有运行)[^。]*口径卡单元格[^。]*代码|评分程序[^。]*口径卡单元格[^。]*代码[^。]*不运行`)
	for where, s := range map[string]string{
		"feedback.go (howGraded)":       feedback.HowGraded,
		"gradescope.go (output)":        gradescope.Gradescope(s).Output,
		"no self-check output (reason)": f.g.Grade("alice.ipynb", f.nb["alice"]).Reason,
		releasePath:                     strings.Join(texts[releasePath], "\n"),
	} {
		if !says.MatchString(strings.ReplaceAll(s, "指标口径卡", "口径卡")) {
			t.Errorf("%s does not say that the card cell's code is graded, never run:\n%.400s", where, s)
		}
	}
}

// hanLiterals is every string literal with a Chinese character in the
// non-test Go files of dir, by file name.
func hanLiterals(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
					name := filepath.Base(p)
					out[name] = append(out[name], s)
				}
			}
			return true
		})
	}
	return out
}

// notebookCells is the source of every cell of the notebook at p.
func notebookCells(t *testing.T, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Source any `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	var out []string
	for _, c := range nb.Cells {
		switch s := c.Source.(type) {
		case string:
			out = append(out, s)
		case []any:
			var b strings.Builder
			for _, line := range s {
				str, _ := line.(string)
				b.WriteString(str)
			}
			out = append(out, b.String())
		}
	}
	return out
}
