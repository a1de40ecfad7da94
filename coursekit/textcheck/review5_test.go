package textcheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	{"结果，不做梯度更新", "the source says inference 通常 does no gradient update (online learning does); keep 通常"},
	{"所以只有流结束推后", "02 练习 2 asks what changes; the clause answers it"},
	{"（与 vLLM TPOT 同一公式）", "05 练习 1 asks for AIPerf's ITL; a label saying it equals vLLM's TPOT answers it"},
	// The sixth review's.
	{"一次算完整个提示词", "chunked prefill computes the prompt in pieces: 把整个提示词算完（可分几块）"},
	{"3. goodput 下降的比例，就是答错的比例", "holds only when every attempt passed the TTFT threshold, as in this run: 这次"},
	{"E2E − TTFT =", "00 prints TTFT alone; E2E − TTFT comes before 02 teaches TPOT"},
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

// 02 prints event gaps from nb.Gaps; it may call them ITL only with the
// reason they coincide here (one token an event), or a learner takes the
// event-gap definition for ITL's.
func TestGapsPrintedAsITLSayWhy(t *testing.T) {
	n := 0
	for _, c := range nbCells(t, checkCells(t), "02-client-timeline.ipynb") {
		if c.kind != "code" || !strings.Contains(c.source, "nb.Gaps(") {
			continue
		}
		for _, line := range strings.Split(c.source, "\n") {
			if strings.Contains(line, "nb.Gaps(") && strings.Contains(line, "ITL") {
				n++
				if !strings.Contains(line, "ITL（本例每个事件 1 个 token，等于事件间隔）") || strings.Contains(line, "每两个相邻事件") {
					t.Errorf("%s: %q prints event gaps as ITL: label it ITL（本例每个事件 1 个 token，等于事件间隔）", c.where, line)
				}
			}
		}
	}
	if n == 0 {
		t.Error("found no line printing nb.Gaps as ITL in 02 (its pause cell prints one): drop this test if that is intended")
	}
}

// 02 keeps tokens and events apart in its notation: t_1…t_N are tokens
// and ITL_i runs over them (i < N); e_1…e_n are events; the E2E identity
// sums event gaps and ends with e_n, because t_n is a token.
func TestTimelineNotationKeepsTokensAndEventsApart(t *testing.T) {
	var defs, identity int
	for _, c := range nbCells(t, notebookCells(t), "02-client-timeline.ipynb") {
		if c.kind != "markdown" {
			continue
		}
		if strings.Contains(c.source, `\mathrm{ITL}_i = t_{i+1} - t_i \ (`) {
			defs++
			if !strings.Contains(c.source, `(i = 1, \dots, N-1)`) || !strings.Contains(c.source, `e_1, \dots, e_n`) {
				t.Errorf("%s: ITL_i runs over tokens (i = 1, \\dots, N-1), and events have their own symbols e_1, \\dots, e_n", c.where)
			}
		}
		if strings.Contains(c.source, `\mathrm{E2E} = \mathrm{TTFT} +`) {
			identity++
			if !strings.Contains(c.source, `t_{\mathrm{end}} - e_n`) || strings.Contains(c.source, `t_{\mathrm{end}} - t_n`) {
				t.Errorf("%s: the E2E identity sums event gaps and ends with (t_end − e_n)", c.where)
			}
		}
	}
	if defs != 1 || identity != 1 {
		t.Errorf("02 defines ITL_i in %d cells and states the E2E identity in %d, want 1 each", defs, identity)
	}
}

// The glossary's 门槛 row says which sense of SLO the unit uses: a limit
// each attempt must meet, not the share-over-a-period objective the term
// also names elsewhere.
func TestGlossarySaysWhichSLO(t *testing.T) {
	c := oneCell(t, nbCells(t, notebookCells(t), "00-runtime-check.ipynb"), "| 门槛 | SLO |")
	for _, line := range strings.Split(c.source, "\n") {
		if strings.HasPrefix(line, "| 门槛 | SLO |") && (!strings.Contains(line, "本单元") || !strings.Contains(line, "比例")) {
			t.Errorf("%s: %q: say that 本单元 uses SLO for the per-attempt limit, and that elsewhere it often means a share (比例) met over a period", c.where, line)
		}
	}
}

// A tool is not named before it is taught: 04 says in words that one
// trace judged twice needs no comparison of runs (TestCompareWhereItBelongs)
// and never names compare, which only 09 introduces (the eighth review).
func TestFourNamesNoCompare(t *testing.T) {
	for _, c := range nbCells(t, notebookCells(t), "04-change-one-condition.ipynb") {
		if c.kind == "markdown" && (strings.Contains(c.source, "`compare`") || strings.Contains(c.source, "coursekit compare")) {
			t.Errorf("%s: names compare, which the core unit never introduces; say it in words and point to 09", c.where)
		}
	}
}

// 05 explains AIPerf's ITL formula once, in its AIPerf table; the name
// table points there.
func TestAIPerfITLExplainedOnce(t *testing.T) {
	n := 0
	for _, c := range nbCells(t, notebookCells(t), "05-read-the-tool-docs.ipynb") {
		if c.kind == "markdown" {
			n += strings.Count(c.source, `(\text{request\_latency} - \mathrm{TTFT})/(\mathrm{OSL} - 1)`)
			n += strings.Count(c.source, "实为每请求平均")
		}
	}
	if n != 1 {
		t.Errorf("05 explains AIPerf's ITL (its formula or 实为每请求平均) %d times; once, in the AIPerf table", n)
	}
}

// 08's goodput share is the same every run only while every attempt
// passes the TTFT gate; on a busy machine one may not.
func TestGoodputSameEveryRunSaysWhen(t *testing.T) {
	c := oneCell(t, nbCells(t, notebookCells(t), "08-lab-goodput-quality.ipynb"), "每次都一样")
	if !strings.Contains(c.source, "只要每次尝试都过了 TTFT 门槛") {
		t.Errorf("%s: goodput's share is the same every run only while every attempt passes the TTFT gate (只要每次尝试都过了 TTFT 门槛): say so", c.where)
	}
}

// A missing trailing comma is the compile error a Go-naive learner meets
// first when a literal spans lines: 00's error table names the message
// gc prints, and 00's Go primer says every line of such a literal ends
// with a comma.
func TestMissingCommaTaughtIn00(t *testing.T) {
	cells := nbCells(t, notebookCells(t), "00-runtime-check.ipynb")
	table := oneCell(t, cells, "### 2.3 读懂编译错误")
	if !strings.Contains(table.source, "`syntax error: unexpected newline in composite literal; possibly missing comma or }`") {
		t.Errorf("%s: the compile-error table lacks gc's missing-comma message", table.where)
	}
	primer := oneCell(t, cells, "### 2.6 ")
	if !strings.Contains(primer.source, "逗号") || !strings.Contains(primer.source, "最后一行也要") {
		t.Errorf("%s: the Go primer should say that every line of a multi-line literal ends with a comma, the last one too (最后一行也要)", primer.where)
	}
}

// Exercises are numbered in the order they are read: the numbered items
// of the 练习 section, from its heading to the next ## heading other than
// the exercises' own, run 1, 2, 3, ….
func TestExercisesNumberedInOrder(t *testing.T) {
	item := regexp.MustCompile(`^(\d+)\. `)
	byFile := map[string][]cell{}
	var files []string
	for _, c := range notebookCells(t) {
		f := c.where[:strings.LastIndex(c.where, "[")]
		if _, ok := byFile[f]; !ok {
			files = append(files, f)
		}
		byFile[f] = append(byFile[f], c)
	}
	for _, f := range files {
		in := false
		var got []int
		where := ""
		for _, c := range byFile[f] {
			if c.kind != "markdown" {
				continue
			}
			if strings.HasPrefix(c.source, "## 练习") {
				in, where = true, c.where
			} else if strings.HasPrefix(c.source, "## ") {
				in = false
			}
			if !in {
				continue
			}
			for _, line := range strings.Split(c.source, "\n") {
				if m := item.FindStringSubmatch(line); m != nil {
					n, _ := strconv.Atoi(m[1])
					got = append(got, n)
				}
			}
		}
		for i, n := range got {
			if n != i+1 {
				t.Errorf("%s: exercises numbered %v; number them in the order they are read, 1 to %d", where, got, len(got))
				break
			}
		}
	}
}

// 03's 练习 2 reads its mistakes off 图 01.5, so the figure opens 练习 2,
// before mistake A, not after 练习 4; it stays after the after-class line,
// outside the notebook's time.
func TestFigureOf03Exercise2OpensIt(t *testing.T) {
	cells := nbCells(t, notebookCells(t), "03-one-trace-four-conclusions.ipynb")
	at := func(needle string) int {
		t.Helper()
		for i, c := range cells {
			if strings.Contains(c.source, needle) {
				return i
			}
		}
		t.Fatalf("03 has no cell with %q", needle)
		return -1
	}
	after, ex2, fig, mistakeA := at(afterClass), at("**练习 2："), at(`nb.Figure("图 01.5"`), at("### 错误 A")
	if !(after < ex2 && ex2 < fig && fig < mistakeA) {
		t.Errorf("03: 图 01.5 is cell %d; put it after 练习 2's heading (cell %d) and before mistake A (cell %d), after the after-class line (cell %d)",
			fig, ex2, mistakeA, after)
	}
}
