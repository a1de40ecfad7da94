package textcheck

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The sixth review of unit 01 (issue 33's second fresh review, 8/10), one
// rule each, so that none comes back.

// In-flight attempts sit in A but in neither F nor Q: 03 says what that
// makes of F/A (a lower bound, with (F + 在途)/A the upper one), and the
// glossary defines 在途, or the rule reads as neutral.
func TestInFlightBoundsAreSaid(t *testing.T) {
	all := notebookCells(t)
	said := false
	for _, c := range nbCells(t, all, "03-one-trace-four-conclusions.ipynb") {
		if c.kind == "markdown" && strings.Contains(c.source, "**在途**") {
			said = strings.Contains(c.source, "下界") && strings.Contains(c.source, "上界") && strings.Contains(c.source, "(F + \\text{在途})/A")
		}
	}
	if !said {
		t.Errorf("03: the cell that defines 在途 must say F/A is a lower bound and (F + \\text{在途})/A an upper bound")
	}
	glossary := false
	for _, c := range all {
		if c.tagged("glossary") && strings.Contains(c.source, "\n| 在途 |") {
			glossary = true
		}
	}
	if !glossary {
		t.Errorf("00's glossary has no row for 在途")
	}
}

// A summary's ITL field holds event gaps; 05 §5 says they are no ITL with
// multi-token events, so no learner cell prints them from a field named
// ITL: nb.EventGapLines names them.
func TestNoCellReadsEventGapsAsITL(t *testing.T) {
	for _, c := range unitCode(t) {
		if strings.Contains(cellGo(c.source), ".ITL.") {
			t.Errorf("%s: reads a summary's ITL field; print event gaps with nb.EventGapLines", c.where)
		}
	}
}

// Intervals live in 10 (issue 33: one home per topic). Elsewhere a
// sentence and a pointer to 10 §4–5; the compare aside of 04 stays out of
// its core route, and 09 does not call a 3-run Welch interval trustworthy.
func TestIntervalsOutsideTenPointThere(t *testing.T) {
	all := notebookCells(t)
	pointers := 0
	for _, c := range all {
		if !strings.Contains(c.where, "/04-") && !strings.Contains(c.where, "/09-") {
			continue
		}
		pointers += len(tenPointer.FindAllString(c.source, -1))
		for _, never := range []string{"不会偏乐观", "分层自助法求：每次重抽样", "$0.5^6"} {
			if strings.Contains(c.source, never) {
				t.Errorf("%s: %q: intervals are taught in 10; one sentence here and 见 10 第 4、5 节 (a 3-run Welch interval is only 大致可信)", c.where, never)
			}
		}
	}
	if pointers < 4 {
		t.Errorf("04 and 09 point to 10 §4 or §5 %d times; want 04 §3 and 09's experiments 3 and 4 (4 places)", pointers)
	}
	core := true
	for _, c := range nbCells(t, all, "04-change-one-condition.ipynb") {
		core = core && !(c.kind == "markdown" && strings.Contains(c.source, afterClass))
		if core && strings.Contains(c.source, "`compare`") {
			t.Errorf("%s: the compare aside (a 09 tool) is no part of 04's core route", c.where)
		}
	}
}

// tenPointer is a pointer to sections of notebook 10: 见 10 第 4 节,
// 见 10 第 4、5 节.
var tenPointer = regexp.MustCompile(`10 第 ([0-9]+(?:、[0-9]+)*) 节`)

// Every pointer to a section of 10 names one that teaches what its
// sentence is about (the eighth review: Wilson was sent to 10 §4–5, a
// median's interval to §4–5): 10 §4 teaches a quantile's interval (P95,
// the median, n ≥ 72), §5 the Wilson interval of a share. A sentence about
// a share or Wilson points to §5 and one about a quantile to §4, each
// alone unless it is about both; every number is a section 10 has.
func TestPointersToTenNameItsSection(t *testing.T) {
	all := notebookCells(t)
	sections := map[string]string{}
	for _, c := range nbCells(t, all, "10-lab-capacity.ipynb") {
		for _, m := range regexp.MustCompile(`(?m)^## ([0-9]+)\. (.*)$`).FindAllStringSubmatch(c.source, -1) {
			sections[m[1]] = m[2]
		}
	}
	if !strings.Contains(sections["4"], "P95") || !strings.Contains(sections["5"], "Wilson") {
		t.Fatalf("10's sections moved (§4 %q, §5 %q): update this test", sections["4"], sections["5"])
	}
	quantile := regexp.MustCompile(`中位数|分位|P95|P99|72`)
	share := regexp.MustCompile(`Wilson|比例|占`)
	n := 0
	for _, c := range all {
		for _, loc := range tenPointer.FindAllStringSubmatchIndex(c.source, -1) {
			n++
			nums := strings.Split(c.source[loc[2]:loc[3]], "、")
			sentence := c.source[:loc[0]]
			if k := strings.LastIndexAny(sentence, "。\n"); k >= 0 {
				sentence = sentence[k:]
			}
			want := map[string]bool{}
			if quantile.MatchString(sentence) {
				want["4"] = true
			}
			if share.MatchString(sentence) {
				want["5"] = true
			}
			for _, num := range nums {
				if _, ok := sections[num]; !ok {
					t.Errorf("%s: %q points to 10 §%s, which 10 does not have", c.where, c.source[loc[0]:loc[1]], num)
				} else if len(want) > 0 && !want[num] {
					t.Errorf("%s: %q after %q: 10 §%s (%s) is not about that; §4 teaches a quantile's interval, §5 a share's (Wilson)", c.where, c.source[loc[0]:loc[1]], sentence, num, sections[num])
				}
			}
			for w := range want {
				if !slices.Contains(nums, w) {
					t.Errorf("%s: %q after %q: point to 10 §%s (%s)", c.where, c.source[loc[0]:loc[1]], sentence, w, sections[w])
				}
			}
		}
	}
	if n < 4 {
		t.Errorf("%d pointers to sections of 10; 04 and 09 have 4", n)
	}
}

// 00 reads no value through a pointer (README: no notebook does; nb.MS
// shows it), and prints no E2E − TTFT before 02 teaches TPOT.
func TestRuntimeCheckTeachesNoDerefNorTPOTEarly(t *testing.T) {
	for _, c := range nbCells(t, notebookCells(t), "00-runtime-check.ipynb") {
		if c.kind != "code" {
			continue
		}
		src := lineComment.ReplaceAllString(c.source, "")
		if m := plumbingRuleNamed(t, "pointer dereferenced").re.FindString(src); m != "" {
			t.Errorf("%s: %q dereferences a pointer; print it with nb.MS", c.where, strings.TrimSpace(m))
		}
		if strings.Contains(src, "E2E − TTFT") {
			t.Errorf("%s: prints E2E − TTFT before 02 teaches TPOT; print TTFT alone", c.where)
		}
	}
}

// halfWidthParen is a half-width parenthesis beside Chinese, or around
// it, or one glued to the word before it (ms(n = 8)), in a Chinese string
// literal; learnerOutput are the packages whose strings
// unit 01's cells and charts print.
var (
	goString       = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)
	halfWidthParen = regexp.MustCompile(`\p{Han} ?\(|\([^()"\n]*\p{Han}[^()"\n]*\)|\)\p{Han}|[^\s(（` + "`" + `]\([^()"` + "`" + `]+\)`)
	learnerOutput  = regexp.MustCompile(`^coursekit/(charts|nb|lab)/`)
)

// What a learner reads next to Chinese uses one style, full-width
// parentheses (图 01.5's subtitle, 图 01.6's legend), and a Chinese
// interval one comma: [694.5 ms，790.6 ms] beside [800 ms，无上界].
func TestChineseOutputUsesFullWidthParentheses(t *testing.T) {
	seen := 0
	for f, src := range goSources(t) {
		if !learnerOutput.MatchString(f) {
			continue
		}
		for _, line := range strings.Split(src, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for _, s := range goString.FindAllString(line, -1) {
				if !regexp.MustCompile(`\p{Han}`).MatchString(s) {
					continue
				}
				seen++
				if m := halfWidthParen.FindString(s); m != "" {
					t.Errorf("%s: %s: %q beside Chinese; use full-width （）", f, s, m)
				}
				if strings.Contains(s, "[%s, %s]") {
					t.Errorf("%s: %s: a Chinese interval takes a full-width comma: [%%s，%%s]", f, s)
				}
			}
		}
	}
	if seen < 100 {
		t.Fatalf("only %d Chinese strings in coursekit/charts, nb and lab: the rule stopped seeing them", seen)
	}
}

// 07 judges the learner's closed-loop rate within 10 %, so its conditions
// state the step time it follows from (as 10 states its own).
func TestLoopLabStatesItsStepTime(t *testing.T) {
	for _, c := range nbCells(t, notebookCells(t), "07-lab-open-vs-closed-loop.ipynb") {
		if c.kind == "markdown" && strings.Contains(c.source, "实验条件") {
			if !strings.Contains(c.source, "一步 10 ms，每多 1 条多 2 ms") {
				t.Errorf("%s: state the simulated server's step time (一步 10 ms，每多 1 条多 2 ms)", c.where)
			}
			return
		}
	}
	t.Error("07 has no 实验条件 cell")
}

// One name for training throughput (每秒样本数, unit 样本/s, as 01 says
// it), and TPOT's unit is 毫秒/token wherever a check asks for it.
func TestOneNameForSamplesAndTPOTsUnit(t *testing.T) {
	for _, c := range notebookCells(t) {
		if strings.Contains(c.source, "samples/s") {
			t.Errorf("%s: samples/s; the unit says 每秒样本数 (样本/s)", c.where)
		}
		for _, line := range strings.Split(c.source, "\n") {
			if regexp.MustCompile(`TPOT[^\n]*(多少毫秒[？?]|（毫秒）)`).MatchString(line) {
				t.Errorf("%s: %q: TPOT is in 毫秒/token", c.where, strings.TrimSpace(line))
			}
		}
	}
}

// Points the last cut left too terse, each one sentence where it belongs:
// 03 defines 尝试 and 完整成功 where it first uses them, 01 says both paths
// compute, read and write memory and wait, 02 says the two logs together
// attribute time.
func TestTersePointsRestored(t *testing.T) {
	all := notebookCells(t)
	for _, w := range []struct{ file, want, why string }{
		{"03-one-trace-four-conclusions.ipynb", "**尝试**是客户端发出的一次请求", "define 尝试 where 03 first uses it"},
		{"03-one-trace-four-conclusions.ipynb", "**完整成功**是流式输出正常结束", "define 完整成功 where 03 first uses it"},
		{"01-draw-the-system.ipynb", "读写内存", "the seed: training and inference both compute, read and write memory, wait for data or communication"},
		{"02-client-timeline.ipynb", "服务器日志和客户端日志一起看", "the seed: server and client logs together help attribute time"},
	} {
		found := false
		for _, c := range nbCells(t, all, w.file) {
			found = found || c.kind == "markdown" && strings.Contains(c.source, w.want)
		}
		if !found {
			t.Errorf("%s lacks %q: %s", w.file, w.want, w.why)
		}
	}
}
