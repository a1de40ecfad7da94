package textcheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// The concept defects of the second review of unit 01, one rule each, so
// that none comes back.

// wrongTPOT is TPOT written as (E2E − TTFT)/(N − 1): E2E runs to the end
// of the stream, so that form spreads the wait for the stream to close
// over the tokens and is not the mean gap between output tokens. TPOT is
// (t_N − t_1)/(N − 1); vLLM's (E2EL − TTFT)/(N − 1) is the same number,
// since its E2EL ends at the last token (E2EL and request_latency do not
// match E2E here).
var wrongTPOT = regexp.MustCompile(`(?:\(\s*|\\frac\{\s*)(?:\\mathrm\{)?E2E\b\}?\s*[-−]\s*(?:\\mathrm\{)?TTFT\}?\s*(?:\)\s*(?:/|÷)|\}\s*\{)` +
	`|\(e2e\s*-\s*ttft\)\s*/`)

// goSources are the non-test Go files under coursekit (textcheck, the
// rulebook, left out), whole: doc comments, help text and code.
func goSources(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(filepath.Join(repo, "coursekit"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "textcheck" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func lineOf(s string, i int) int { return strings.Count(s[:i], "\n") + 1 }

// near is the text around byte i, cut on rune boundaries.
func near(s string, i int) string {
	from, to := max(0, i-24), min(len(s), i+40)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	return s[from:to]
}

func TestTPOTIsTheMeanTokenGap(t *testing.T) {
	texts := map[string]string{}
	for _, c := range notebookCells(t) {
		texts[c.where] = c.source
	}
	for where, s := range goSources(t) {
		texts[where] = s
	}
	for what, s := range printed(t) {
		texts[what] = s
	}
	readme, err := os.ReadFile(filepath.Join(repo, "data", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	texts["data/README.md"] = string(readme)
	for where, s := range texts {
		for _, m := range wrongTPOT.FindAllStringIndex(s, -1) {
			t.Errorf("%s:%d: %q: TPOT is (t_N − t_1)/(N − 1), the mean gap after the first token; E2E runs to the end of the stream", where, lineOf(s, m[0]), near(s, m[0]))
		}
	}
	// The glossary and 02 define it in token terms.
	all := notebookCells(t)
	glossary := oneCell(t, nbCells(t, all, "00-runtime-check.ipynb"), "### 3.3 术语表")
	first := oneCell(t, nbCells(t, all, "02-client-timeline.ipynb"), "本节目标")
	for _, c := range []cell{glossary, first} {
		if !strings.Contains(c.source, `t_N - t_1`) {
			t.Errorf("%s: TPOT should be defined as (t_N − t_1)/(N − 1)", c.where)
		}
	}
}

// The labs 07–10 are named by their title; "第 0N 课" is a lesson of the
// course. Only "课程的第 08 课（不是本单元的 08 实验）", the source's later
// lesson, and "课程原文说的“第 08 课”", which explains the rule, may use
// the words.
var lessonNumber = regexp.MustCompile(`第 ?(0[7-9]|10) ?课`)

func TestLabsAreNotCalledLessons(t *testing.T) {
	texts := map[string]string{}
	for _, c := range notebookCells(t) {
		texts[c.where] = c.source
	}
	for where, s := range goStrings(t, filepath.Join(repo, "coursekit")) {
		texts[where] = s
	}
	for where, s := range texts {
		for _, m := range lessonNumber.FindAllStringSubmatchIndex(s, -1) {
			before := strings.TrimRight(s[:m[0]], "*")
			after := strings.TrimLeft(s[m[1]:], "*")
			n := s[m[2]:m[3]]
			if strings.HasSuffix(before, "课程的") && strings.HasPrefix(after, "（不是本单元的 "+n+" 实验）") ||
				strings.HasSuffix(before, "课程原文说的“") {
				continue
			}
			t.Errorf("%s: %q: a lab is named by its title (“%s 实验：…”); 第 %s 课 is a lesson of the course", where, near(s, m[0]), n, n)
		}
	}
}

// A notebook's own prints name a percentile method in Chinese: a code
// cell that prints a metrics.Method passes it through cardfmt.MethodName,
// and no string literal of a code cell holds the identifier, Chinese
// around it or not (03 printed "nearest-rank  P50 = …").
func TestNotebookPrintsNameMethodsInChinese(t *testing.T) {
	literal := regexp.MustCompile(`"[^"\n]*"`)
	for _, c := range notebookCells(t) {
		if c.kind != "code" {
			continue
		}
		if strings.Contains(c.source, "metrics.Method") && strings.Contains(c.source, "Printf") && !strings.Contains(c.source, "MethodName(") {
			t.Errorf("%s prints a metrics.Method without cardfmt.MethodName: the identifier would show", c.where)
		}
		for _, l := range literal.FindAllString(c.source, -1) {
			if m := methodCode.FindString(l); m != "" {
				t.Errorf("%s prints the method code %q in %s", c.where, m, l)
			}
		}
	}
}

// closedLoopRate is the closed loop's rate as U (users) over W, in a
// formula: \frac{U}{W} or U/W.
var closedLoopRate = regexp.MustCompile(`\\frac\{U\}\{W\}|\bU\s*/\s*W\b`)

// A closed loop's rate is U / W only when its U users send again at once:
// with a think time Z each user is in the system W of every W + Z, so
// L = U and λ = U / W both fail. Every cell that writes U / W says the
// condition (思考时间), the cell that writes L = U says it first, and the
// first mention of think time says what it is, in parentheses or bold.
func TestClosedLoopRateStatesItsThinkTime(t *testing.T) {
	defined := false
	checked := 0
	for _, c := range notebookCells(t) {
		if c.kind != "markdown" {
			continue
		}
		think := strings.Index(c.source, "思考时间")
		if think >= 0 && !defined {
			defined = true
			if !strings.Contains(c.source, "叫**思考时间**") && !strings.Contains(c.source, "思考时间（") {
				t.Errorf("%s: first mention of 思考时间 without saying what it is", c.where)
			}
		}
		if closedLoopRate.MatchString(c.source) {
			checked++
			if think < 0 {
				t.Errorf("%s writes the closed loop's rate as U / W without its condition: no think time (思考时间)", c.where)
			}
		}
		if l := strings.Index(c.source, "$L = U$"); l >= 0 && (think < 0 || think > l) {
			t.Errorf("%s: L = U holds only without think time; say so before it", c.where)
		}
	}
	if checked == 0 {
		t.Fatal("no cell writes the closed loop's rate U / W: the test checks nothing")
	}
}
