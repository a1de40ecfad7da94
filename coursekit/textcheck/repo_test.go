package textcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The repository's learner-facing text, checked against the rules of this
// package: every notebook cell, the Chinese strings of coursekit's Go
// sources, and what coursekit prints (text card, self-check report, tables).

const repo = "../.."

// cell is one notebook cell as the checks read it.
type cell struct {
	where, kind, source string
	tags                []string
}

func (c cell) tagged(tag string) bool {
	for _, t := range c.tags {
		if t == tag {
			return true
		}
	}
	return false
}

func notebookCells(t *testing.T) []cell {
	t.Helper()
	var cells []cell
	// TEXTCHECK_NOTEBOOKS points the notebook checks at another folder, to
	// see them fail on notebooks that break the rules.
	dir := filepath.Join(repo, "notebooks")
	if d := os.Getenv("TEXTCHECK_NOTEBOOKS"); d != "" {
		dir = d
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".ipynb") {
			return nil
		}
		rel, _ := filepath.Rel(filepath.Dir(dir), p)
		got, err := readCells(p, rel)
		cells = append(cells, got...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) < 100 {
		t.Fatalf("found only %d notebook cells: is the notebooks folder where the test expects it?", len(cells))
	}
	return cells
}

// readCells reads one notebook's cells, each named rel[index].
func readCells(path, rel string) ([]cell, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var nbf struct {
		Cells []struct {
			Type     string          `json:"cell_type"`
			Source   json.RawMessage `json:"source"`
			Metadata struct {
				Tags []string `json:"tags"`
			} `json:"metadata"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nbf); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var cells []cell
	for i, c := range nbf.Cells {
		var lines []string
		if err := json.Unmarshal(c.Source, &lines); err != nil {
			var s string
			if err := json.Unmarshal(c.Source, &s); err != nil {
				return nil, fmt.Errorf("%s[%d]: source: %w", rel, i, err)
			}
			lines = []string{s}
		}
		cells = append(cells, cell{where: fmt.Sprintf("%s[%d]", rel, i), kind: c.Type, source: strings.Join(lines, ""), tags: c.Metadata.Tags})
	}
	return cells, nil
}

func TestNotebooksUseOneTerminology(t *testing.T) {
	for _, c := range notebookCells(t) {
		for _, v := range Terms(c.source, c.tagged("glossary")) {
			t.Errorf("%s says %q: the course says %s", c.where, v.Never, v.Use)
		}
	}
}

// codeSpans are Markdown code: `inline` and fenced blocks, which quote Go
// or output verbatim and keep its ASCII punctuation.
var codeSpans = regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")

func TestNotebooksWriteFullWidthPunctuation(t *testing.T) {
	for _, c := range notebookCells(t) {
		text := c.source
		if c.kind == "markdown" {
			text = codeSpans.ReplaceAllString(text, " ")
		}
		for _, p := range Punctuation(text) {
			t.Errorf("%s: half-width punctuation next to Chinese in %q", c.where, p)
		}
	}
}

// Only the acceptance criteria may keep the seed's wording.
func TestNotebooksDoNotCopyTheSeed(t *testing.T) {
	fp := seedFingerprint(t)
	criteria := 0
	for _, c := range notebookCells(t) {
		if c.tagged("acceptance-criteria") {
			criteria++
			continue
		}
		for _, run := range Copied(c.source, fp) {
			t.Errorf("%s copies %d characters of the seed: %q", c.where, len([]rune(run)), run)
		}
	}
	if criteria != 1 {
		t.Errorf("%d cells are tagged acceptance-criteria; want exactly the deliverable's one", criteria)
	}
}

// Each notebook states its goal and time, and ends its lesson with a
// bulleted 小结 and a numbered 练习 list of two to four exercises.
func TestEveryNotebookHasGoalSummaryAndExercises(t *testing.T) {
	byNB := map[string][]cell{}
	for _, c := range notebookCells(t) {
		nbName := c.where[:strings.LastIndex(c.where, "[")]
		byNB[nbName] = append(byNB[nbName], c)
	}
	exercise := regexp.MustCompile(`(?m)^\d+\. `)
	for name, cells := range byNB {
		if !strings.Contains(cells[0].source, "本节目标") || !strings.Contains(cells[0].source, "预计用时") {
			t.Errorf("%s: the first cell states no goal (本节目标) or time (预计用时)", name)
		}
		all := ""
		for _, c := range cells {
			if c.kind == "markdown" {
				all += c.source + "\n"
			}
		}
		i, j := strings.Index(all, "## 小结"), strings.Index(all, "## 练习")
		if i < 0 || j < i || !strings.Contains(all[i:j], "\n- ") {
			t.Errorf("%s: no bulleted ## 小结 before ## 练习", name)
			continue
		}
		rest := all[j:]
		if k := strings.Index(rest[1:], "\n## "); k >= 0 {
			rest = rest[:k+1]
		}
		if n := len(exercise.FindAllString(rest, -1)); n < 2 || n > 4 {
			t.Errorf("%s: %d exercises, want 2 to 4", name, n)
		}
	}
	if len(byNB) < 8 {
		t.Errorf("only %d notebooks", len(byNB))
	}
}

// goStrings are the Chinese string literals of the non-test Go files under
// dir, by file:line. Keyword lists (the elements of a []string literal,
// which match what a learner typed) and map keys are left out: they are
// read, not printed.
func goStrings(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "textcheck" {
			return filepath.SkipDir // the rulebook names the variants it forbids
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		skip := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if at, ok := cl.Type.(*ast.ArrayType); ok {
				if id, ok := at.Elt.(*ast.Ident); ok && id.Name == "string" {
					for _, e := range cl.Elts {
						if bl, ok := e.(*ast.BasicLit); ok {
							skip[bl] = true
						}
					}
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			bl, ok := n.(*ast.BasicLit)
			if !ok || bl.Kind != token.STRING || skip[bl] {
				return true
			}
			s, err := strconv.Unquote(bl.Value)
			if err != nil || !strings.ContainsFunc(s, isHan) {
				return true
			}
			pos := fset.Position(bl.Pos())
			rel, _ := filepath.Rel(repo, pos.Filename)
			out[fmt.Sprintf("%s:%d:%d", filepath.ToSlash(rel), pos.Line, pos.Column)] = s
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every Go string in coursekit a learner may read keeps to the one
// terminology and to full-width punctuation next to Chinese.
func TestGoStringsUseOneTerminology(t *testing.T) {
	fp := seedFingerprint(t)
	for where, s := range goStrings(t, filepath.Join(repo, "coursekit")) {
		for _, v := range Terms(s, false) {
			t.Errorf("%s: %q says %q: the course says %s", where, s, v.Never, v.Use)
		}
		for _, run := range Copied(s, fp) {
			t.Errorf("%s copies the seed: %q", where, run)
		}
		for _, p := range Punctuation(s) {
			t.Errorf("%s: half-width punctuation next to Chinese in %q", where, p)
		}
		// A Chinese piece that starts with "," or ";" is glued after
		// another ("…发放记录" + ",Gradescope 的…"): the mark sits between
		// two Chinese pieces, so it is full-width too. (An English piece
		// with a Chinese word in it, "; not on the roster (名单可能过期)",
		// is English.)
		if (s[0] == ',' || s[0] == ';') && chineseMostly(s) {
			t.Errorf("%s: %q starts with a half-width %q: it follows Chinese text, write %q", where, s, s[:1], map[byte]string{',': "，", ';': "；"}[s[0]])
		}
		for _, l := range CalloutLabels(s) {
			t.Errorf("%s: callout %q: the course says %s or %s", where, l, FigureCallout, TableCallout)
		}
	}
}

// chineseMostly: s has at least half as many Chinese characters as ASCII
// letters.
func chineseMostly(s string) bool {
	han, latin := 0, 0
	for _, r := range s {
		switch {
		case isHan(r):
			han++
		case r < unicode.MaxASCII && unicode.IsLetter(r):
			latin++
		}
	}
	return 2*han >= latin
}

// One callout label each for figures and tables: 看图要点 sits next to the
// cell that draws the figure, 看表要点 next to the cell that shows the
// table: one of the two nearest code cells before or after it, in the
// same notebook (a cell that reads the data may come first).
func TestNotebooksUseOneCalloutLabel(t *testing.T) {
	cells := checkCells(t)
	shows := func(i int, what func(string) bool) bool {
		file := cells[i].where[:strings.LastIndex(cells[i].where, "[")+1]
		for _, step := range []int{-1, 1} {
			code := 0
			for j := i + step; code < 2 && j >= 0 && j < len(cells) && strings.HasPrefix(cells[j].where, file); j += step {
				if cells[j].kind == "code" {
					if what(cells[j].source) {
						return true
					}
					code++
				}
			}
		}
		return false
	}
	figures, tables := 0, 0
	for i, c := range cells {
		for _, l := range CalloutLabels(c.source) {
			t.Errorf("%s: callout %q: the course says %s for a figure, %s for a table", c.where, l, FigureCallout, TableCallout)
		}
		if c.kind != "markdown" {
			continue
		}
		if strings.Contains(c.source, FigureCallout) {
			figures++
			if !shows(i, func(src string) bool { return chartCalls(src) > 0 }) {
				t.Errorf("%s: %s, but neither code cell next to it draws a chart", c.where, FigureCallout)
			}
		}
		if strings.Contains(c.source, TableCallout) {
			tables++
			if !shows(i, func(src string) bool {
				return strings.Contains(src, "nb.Table(") || strings.Contains(src, "nb.TableOr(") || strings.Contains(src, "nb.Comparison(")
			}) {
				t.Errorf("%s: %s, but neither code cell next to it shows a table", c.where, TableCallout)
			}
		}
	}
	if figures < 10 || tables < 3 {
		t.Errorf("found %d %s and %d %s callouts", figures, FigureCallout, tables, TableCallout)
	}
}

// docker/test/outputs_test.py reads what the executed notebooks printed with the
// same terminology table; its list is kept equal to the plain Variants.
func TestOutputsTestKnowsEveryVariant(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repo, "docker", "test", "outputs_test.py"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^VARIANTS = \[(.*)\]$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("docker/test/outputs_test.py: no VARIANTS = [...] line")
	}
	var got []string
	if err := json.Unmarshal([]byte("["+string(m[1])+"]"), &got); err != nil {
		t.Fatalf("VARIANTS: %v", err)
	}
	var want []string
	for _, v := range Variants {
		if v.Match == nil {
			want = append(want, v.Never)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("docker/test/outputs_test.py VARIANTS = %q\nwant the plain textcheck.Variants %q", got, want)
	}
}

// printed is what coursekit prints for the unit's traces: the text and
// Markdown card, the self-check report of a blank and of a half-filled
// card, every verdict and table the notebooks show, and a lab report.
func printed(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range []string{"trace.jsonl", "practice.jsonl"} {
		tr, err := trace.ReadFile(filepath.Join(repo, "data", "unit01", name))
		if err != nil {
			t.Fatal(err)
		}
		s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000, 500}})
		for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
			var b bytes.Buffer
			if err := cardfmt.Write(&b, s, name, f); err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("cardfmt %s %s", f, name)] = b.String()
		}
		// The card with latency SLOs beyond TTFT, judged and not.
		for i, q := range []trace.Quality{trace.Pass, trace.Unrated} {
			lt := *tr
			lt.Attempts = slices.Clone(tr.Attempts)
			for j := range lt.Attempts {
				if q == trace.Unrated {
					lt.Attempts[j].Quality = q
				}
			}
			ls := metrics.Summarize(&lt, metrics.Options{SLOsMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 2000, ITLP95MS: 100, TPOTMS: 100}})
			for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
				var b bytes.Buffer
				if err := cardfmt.Write(&b, ls, name, f); err != nil {
					t.Fatal(err)
				}
				out[fmt.Sprintf("cardfmt latency %d %s %s", i, f, name)] = b.String()
			}
		}
		half := &card.Card{Clock: "server", PercentileMethod: "线性", Streaming: card.Streaming{Recorded: card.PerToken, Aggregation: "平均"},
			FailureRate: card.Ratio{Num: 0, Den: 8, Unit: "失败/成功"}, Conditions: []card.Condition{{SLO: card.Figure{Value: 1}}}, Outputs: card.Outputs{Training: "模型", Inference: "模型"}}
		for label, c := range map[string]*card.Card{"blank": {}, "half": half} {
			r := card.Check(c, tr)
			out[fmt.Sprintf("self-check %s %s", label, name)] = r.Text() + "\n" + stripTags(r.HTML())
		}
		var b strings.Builder
		for i := range tr.Attempts {
			if i >= 200 {
				break
			}
			a := &tr.Attempts[i]
			b.WriteString(nb.VerdictText(a, 1000) + "｜" + nb.VerdictText(a, 500) + "｜" + nb.AttemptOutcome(a) + "｜" + nb.QualityText(a.Quality) + "\n")
		}
		out["nb verdicts "+name] = b.String()
		out["nb tables "+name] = stripTags(nb.TableHTML(nb.VerdictTable(tr, 1000)) + nb.TableHTML(nb.ConditionsTable(tr)) + nb.TableHTML(nb.CardTable(half)))
		out["lab report "+name] = (&lab.Run{Label: "开环 12 次/s", Trace: tr}).Report(1000)
		out["lab interval table "+name] = stripTags(nb.TableHTML(nb.Frame(lab.IntervalTable(0.95, []string{name}, tr))))
	}
	for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
		var b bytes.Buffer
		if err := compare.Write(&b, unitComparison(t), f, lang.ZH); err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("compare %s", f)] = b.String()
	}
	return out
}

// unitComparison compares the unit's trace (A) with the practice trace and
// with itself (B): many changed conditions, runs that differ, percentiles
// too small to bound, every method and verdict.
func unitComparison(t *testing.T) *compare.Result {
	t.Helper()
	var a, b []compare.Run
	o := compare.Options{}
	for _, name := range []string{"trace.jsonl", "practice.jsonl"} {
		tr, err := trace.ReadFile(filepath.Join(repo, "data", "unit01", name))
		if err != nil {
			t.Fatal(err)
		}
		s := cardopts.MustSummarize(tr, o.CardFlags(), cardopts.Resampling())
		if name == "trace.jsonl" {
			a = append(a, compare.Run{Name: name, Summary: s})
		}
		b = append(b, compare.Run{Name: name, Summary: s})
	}
	r, err := compare.Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	one, err := compare.Compare(a, b[1:], o)
	if err != nil {
		t.Fatal(err)
	}
	r.Metrics = append(r.Metrics, one.Metrics...)
	return r
}

var tags = regexp.MustCompile(`<[^>]*>`)

func stripTags(h string) string { return html.UnescapeString(tags.ReplaceAllString(h, " ")) }

func TestPrintedTextSpeaksChinese(t *testing.T) {
	for what, text := range printed(t) {
		for _, v := range Terms(text, false) {
			t.Errorf("%s prints %q: the course says %s", what, v.Never, v.Use)
		}
		for _, code := range EnglishCodes(text) {
			t.Errorf("%s prints the English code %q", what, code)
		}
		for _, p := range Punctuation(text) {
			t.Errorf("%s: half-width punctuation next to Chinese in %q", what, p)
		}
	}
}

// The shell scripts in coursekit write Chinese a learner reads too:
// run_autograder's results.json when the autograder itself fails.
func TestScriptsWriteFullWidthPunctuation(t *testing.T) {
	n := 0
	err := filepath.WalkDir(filepath.Join(repo, "coursekit"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte("#!")) {
			return err
		}
		n++
		rel, _ := filepath.Rel(repo, p)
		for i, line := range strings.Split(string(b), "\n") {
			for _, q := range Punctuation(line) {
				t.Errorf("%s:%d: half-width punctuation next to Chinese in %q", filepath.ToSlash(rel), i+1, q)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Errorf("found %d scripts under coursekit: is run_autograder still there?", n)
	}
}
