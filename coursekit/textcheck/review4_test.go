package textcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fourth review of unit 01's text, one rule each, so that none comes
// back. Markdown only: the notebooks' code and outputs stay as executed.

// reviewFourWordings are phrases the review replaced, in the notebooks,
// README.md and docs/, with why.
var reviewFourWordings = []struct{ never, why string }{
	{"你会看到", "a lab's goal cell asks the questions its predictions ask; the findings belong in 小结"},
	{"差别才是真的", "an interval without 0 says this much data separates the two sides (这点数据分得出差别), and with 3 runs a side it is optimistic"},
	{"之后每一步只生成一个 token", "decoding usually yields one token a step; speculative decoding yields several"},
	{"部分失败不进 total", "guidellm leaves out only the failures without a first token (05 says so)"},
	{"的几倍？写一个 0 到 1", "a share between 0 and 1 is 几分之几, not 几倍"},
	{"8 requests a length", "09 sends 6 requests a prompt length"},
	{"the last chunk with a token", "vLLM's E2EL ends at the last chunk carrying choices, a finish-only one included"},
}

func TestReviewFourWordings(t *testing.T) {
	type text struct{ where, source string }
	var all []text
	for _, c := range notebookCells(t) {
		all = append(all, text{c.where, c.source})
	}
	docs, _ := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	for _, f := range append(docs, filepath.Join(repo, "README.md")) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, text{f, string(b)})
	}
	for _, x := range all {
		for _, w := range reviewFourWordings {
			if strings.Contains(x.source, w.never) {
				t.Errorf("%s: %q: %s", x.where, w.never, w.why)
			}
		}
	}
}

// 09 says what 3 runs a side give wherever it reads compare's interval
// (wide: more runs separate more), and 10's busy finding is the simulated server's: the real
// engine's slot is not full at capacity (10's section on it).
func TestReviewFourClaimsKeepTheirScope(t *testing.T) {
	optimistic, busy := 0, 0
	for _, c := range notebookCells(t) {
		if c.kind != "markdown" {
			continue
		}
		if strings.Contains(c.where, "/09-") && strings.Contains(c.source, "这点数据") {
			optimistic++
			// With several runs on both sides compare's intervals hold
			// Welch's t over the runs (A/A coverage 0.965–0.995 with
			// run-level shifts): wide with 3 runs a side, no longer
			// optimistic.
			if strings.Contains(c.source, "偏乐观") || !strings.Contains(c.source, "多跑几次") {
				t.Errorf("%s: with 3 runs a side the interval is wide, not optimistic (偏乐观); say so and ask for more runs (多跑几次)", c.where)
			}
		}
		if strings.Contains(c.where, "/10-") && strings.Contains(c.source, "## 小结") {
			for _, line := range strings.Split(c.source, "\n") {
				if strings.HasPrefix(line, "- ") && strings.Contains(line, "忙碌率") {
					busy++
					if !strings.HasPrefix(line, "- 模拟服务上") {
						t.Errorf("%s: %q: the busy reading near 100%% is the simulated server's; begin with 模拟服务上", c.where, line)
					}
				}
			}
		}
	}
	if optimistic < 3 || busy == 0 {
		t.Errorf("found 09's interval reading in %d cells (want 3) and 10's busy summary %d times (want 1)", optimistic, busy)
	}
}

// 03 makes the point that per-second rates of different units are not
// ranked once, in its section on them; the exercise's afterword points there.
func TestPerSecondPointMadeOnce(t *testing.T) {
	n := 0
	for _, c := range nbCells(t, notebookCells(t), "03-one-trace-four-conclusions.ipynb") {
		if strings.Contains(c.source, "用户拿到完整结果却可能更晚") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("03 says “回答写得更长 … 用户拿到完整结果却可能更晚” %d times; once, in its section on the rates", n)
	}
}
