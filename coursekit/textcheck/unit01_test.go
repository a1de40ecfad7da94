package textcheck

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The defects a reviewer found in unit 01, one test each, so that none
// comes back: a formula broken by JSON escaping, a number that the data
// contradict, a wrong quiz explanation, terms that drift from the source,
// an orphaned notebook, unknown written as zero, run results stated as
// facts, and a rounding rule nobody wrote down.

// nbCells returns the cells of one notebook (by file name), in order.
func nbCells(t *testing.T, all []cell, file string) []cell {
	t.Helper()
	var out []cell
	for _, c := range all {
		if strings.Contains(c.where, "/"+file+"[") || strings.HasPrefix(c.where, file+"[") {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no cells of %s", file)
	}
	return out
}

func oneCell(t *testing.T, cells []cell, needle string) cell {
	t.Helper()
	var hits []cell
	for _, c := range cells {
		if strings.Contains(c.source, needle) {
			hits = append(hits, c)
		}
	}
	if len(hits) != 1 {
		t.Fatalf("want exactly one cell with %q, found %d", needle, len(hits))
	}
	return hits[0]
}

// Defect 1: JSON turned "\text" into a tab and "\frac" into a form feed.
// A control character has no business in any cell (Go code may indent with
// tabs); inside a formula even a tab is a broken escape.
func TestNoControlCharacterInAnyCellOrFormula(t *testing.T) {
	for _, c := range notebookCells(t) {
		for i, r := range c.source {
			if unicode.IsControl(r) && r != '\n' && !(r == '\t' && c.kind == "code") {
				t.Errorf("%s: control character %U at byte %d near %q", c.where, r, i, around(c.source, i))
			}
		}
		if c.kind != "markdown" {
			continue
		}
		for _, m := range mathSpans(c.source) {
			if strings.ContainsFunc(m, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }) {
				t.Errorf("%s: control character inside formula %q", c.where, m)
			}
		}
	}
}

// Every formula opens and closes: an odd number of unescaped $ outside code
// leaves the rest of the cell in math mode.
func TestFormulasAreClosed(t *testing.T) {
	n := 0
	for _, c := range notebookCells(t) {
		if c.kind != "markdown" {
			continue
		}
		text := codeSpans.ReplaceAllString(c.source, " ")
		if k := strings.Count(text, "$") - strings.Count(text, `\$`); k%2 != 0 {
			t.Errorf("%s: %d unescaped $: a formula is not closed", c.where, k)
		}
		n += len(mathSpans(c.source))
	}
	if n < 20 {
		t.Fatalf("found only %d formulas", n)
	}
}

var mathSpan = regexp.MustCompile(`(?s)\$\$.+?\$\$|\$[^$\n]+\$`)

func mathSpans(md string) []string {
	return mathSpan.FindAllString(codeSpans.ReplaceAllString(md, " "), -1)
}

func around(s string, i int) string {
	return s[max(0, i-20):min(len(s), i+20)]
}

// Defect 2: exercise 3 of 04 quotes the retry amplification that 04 prints
// from the practice data; the data decide the number, not the text.
func TestRetryAmplificationInTheExerciseIsThePrintedValue(t *testing.T) {
	practice, err := trace.ReadFile(coursekit.Data("unit01/practice.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(practice, metrics.Options{})
	if s.RetryAmplification == nil {
		t.Fatal("the practice data have no retry amplification")
	}
	want := fmt.Sprintf("%.3f（%d ÷ %d）", *s.RetryAmplification, s.Attempts, s.Requests)
	cells := nbCells(t, notebookCells(t), "04-change-one-condition.ipynb")
	// 04 prints it with nb.WindowCounts (nb.Text, three decimals).
	printed := oneCell(t, cells, "nb.WindowCounts(practice)")
	if line := nb.WindowCounts(practice); !strings.Contains(line, "重试放大 = "+fmt.Sprintf("%d ÷ %d = %.3f", s.Attempts, s.Requests, *s.RetryAmplification)) {
		t.Errorf("%s prints the retry amplification as %q, not as the plain number with three decimals the exercise quotes", printed.where, line)
	}
	ex := oneCell(t, cells, "重试放大是")
	if !strings.Contains(ex.source, "重试放大是 "+want) {
		t.Errorf("%s: the exercise should quote the printed retry amplification %s", ex.where, want)
	}
	for _, m := range regexp.MustCompile(`重试放大\D{0,4}(\d+\.\d+)`).FindAllStringSubmatch(ex.source, -1) {
		if m[1] != fmt.Sprintf("%.3f", *s.RetryAmplification) {
			t.Errorf("%s says 重试放大 %s; the data give %.3f", ex.where, m[1], *s.RetryAmplification)
		}
	}
}

// Defect 3: the quiz key of 03 is the option "all attempts", and the
// explanation separates the two ways option A goes wrong: failures over
// successes (a number, and a meaningless one) and failures counted among
// the successes (error A, which gives 0).
func TestQuizAnswerKeyAndExplanation(t *testing.T) {
	cells := nbCells(t, checkCells(t), "03-one-trace-four-conclusions.ipynb")
	quiz := oneCell(t, cells, "> **测验**")
	options := map[string]string{}
	for _, m := range regexp.MustCompile(`([ABC])\. ([^；。\n]+)`).FindAllStringSubmatch(quiz.source, -1) {
		options[m[1]] = m[2]
	}
	key := regexp.MustCompile(`prediction\.Denominator, "([ABC])"`).FindStringSubmatch(oneCell(t, cells, "prediction.Denominator, ").source)
	if key == nil || !strings.Contains(options[key[1]], "全部尝试") {
		t.Fatalf("the quiz key %v should be the option for all attempts; options %v", key, options)
	}
	unit, err := trace.ReadFile(coursekit.Data("unit01/trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(unit, metrics.Options{})
	overSuccesses := fmt.Sprintf("%d/%d = %s%%", s.Failures, s.CompleteSuccess, strconv.FormatFloat(100*float64(s.Failures)/float64(s.CompleteSuccess), 'f', -1, 64))
	ex := oneCell(t, cells, "测验的答案是 "+key[1])
	if !strings.Contains(ex.source, overSuccesses) {
		t.Errorf("%s: the explanation should compute failures over successes, %s", ex.where, overSuccesses)
	}
	if !strings.Contains(ex.source, "错误 A") || !strings.Contains(ex.source, "只能是 0") {
		t.Errorf("%s: the explanation should say that 0 comes only from deleting the failures (error A)", ex.where)
	}
	if strings.Contains(ex.source, "失败永远进不了分母，失败率只能是 0") {
		t.Errorf("%s still says that successes as the denominator force a failure rate of 0", ex.where)
	}
}

// Defects 4 and 5: TTFT is the first effective output; ITL is the gap
// between adjacent output tokens, and a gap between events is named so.
func TestGlossaryFollowsTheSourceForTTFTAndITL(t *testing.T) {
	glossary := oneCell(t, nbCells(t, notebookCells(t), "00-runtime-check.ipynb"), "### 3.3 术语表")
	row := func(prefix string) string {
		for _, l := range strings.Split(glossary.source, "\n") {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		t.Fatalf("%s: no glossary row %q", glossary.where, prefix)
		return ""
	}
	if r := row("| 首字时延（TTFT） | time"); !strings.Contains(r, "第一次有效输出") || strings.Contains(r, "流式事件") {
		t.Errorf("TTFT row %q: TTFT runs to the first effective output, not to the first streamed event", r)
	}
	if r := row("| token 间隔（ITL） |"); !strings.Contains(r, "相邻两个输出 token") {
		t.Errorf("ITL row %q: ITL is the gap between adjacent output tokens", r)
	}
	if r := row("| 事件间隔 | inter-event"); strings.Contains(r, "ITL）") {
		t.Errorf("event-gap row %q must not be named ITL", r)
	}
}

// The learner walk met SSE, prefill, OSL, Prometheus /metrics, Poisson
// arrivals and continuous batching with no word of what they are. Each has
// a row in the glossary's first table (Chinese, English, the unit's
// definition, with the key idea of the definition), and the two that the
// load tools name get a row in 05's tools table too.
func TestGlossaryExplainsTheTermsTheUnitUses(t *testing.T) {
	glossary := oneCell(t, nbCells(t, notebookCells(t), "00-runtime-check.ipynb"), "### 3.3 术语表")
	rows := map[string][]string{} // first column → the row's cells, per table
	tables := 0
	for _, l := range strings.Split(glossary.source, "\n") {
		if strings.HasPrefix(l, "|---") {
			tables++
		}
		if !strings.HasPrefix(l, "| ") || strings.HasPrefix(l, "|---") {
			continue
		}
		cols := strings.Split(strings.Trim(l, "| "), " | ")
		rows[fmt.Sprint(tables, cols[0])] = cols
	}
	for _, want := range []struct {
		zh, en string
		says   []string
	}{
		{"SSE", "server-sent events", []string{"HTTP", "事件", "data:"}},
		{"预填充", "prefill", []string{"提示词", "第一个", "TTFT"}},
		{"输出序列长度（OSL）", "output sequence length", []string{"输出 token 数"}},
		{"指标端点（`/metrics`）", "Prometheus `/metrics`", []string{"Prometheus", "文本", "计数"}},
		{"泊松到达", "Poisson arrivals", []string{"指数分布", "开环"}},
		{"连续批处理", "continuous batching", []string{"每一步", "加入", "离开"}},
	} {
		r, ok := rows[fmt.Sprint(1, want.zh)]
		if !ok {
			t.Errorf("%s: no row for %s in the glossary's first table", glossary.where, want.zh)
			continue
		}
		if len(r) != 3 || r[1] != want.en {
			t.Errorf("row %q: want three columns, the English term %q second", r, want.en)
			continue
		}
		for _, s := range want.says {
			if !strings.Contains(r[2], s) {
				t.Errorf("row %s: the definition should mention %q: %q", want.zh, s, r[2])
			}
		}
	}
	// The tools table lives in 05 (its conventions' one home), after its
	// exercises.
	tools := oneCell(t, nbCells(t, notebookCells(t), "05-read-the-tool-docs.ipynb"), "### 三个工具里的名字对照")
	toolRows := map[string][]string{}
	for _, l := range strings.Split(tools.source, "\n") {
		if strings.HasPrefix(l, "| ") {
			cols := strings.Split(strings.Trim(l, "| "), " | ")
			toolRows[cols[0]] = cols
		}
	}
	for _, zh := range []string{"输出序列长度（OSL）", "泊松到达"} {
		if r, ok := toolRows[zh]; !ok || len(r) != 4 {
			t.Errorf("%s: the tools table should name %s in each of the three tools, got %q", tools.where, zh, r)
		}
	}
}

// eventNamedITL finds text that gives the gaps between events the name ITL.
var eventNamedITL = regexp.MustCompile(`事件间隔\s*[（(/]?\s*ITL|事件间隔\s*/\s*token 间隔|ITL\s*[（(]事件间隔|ITL\s*[=＝]\s*事件间隔`)

func TestEventGapsAreNeverCalledITL(t *testing.T) {
	for _, c := range notebookCells(t) {
		for _, m := range eventNamedITL.FindAllString(c.source, -1) {
			t.Errorf("%s: %q calls event gaps ITL; ITL is the gap between output tokens", c.where, m)
		}
	}
	for where, s := range goStrings(t, filepath.Join(repo, "coursekit")) {
		for _, m := range eventNamedITL.FindAllString(s, -1) {
			t.Errorf("%s: %q calls event gaps ITL", where, m)
		}
	}
}

// Defect 6: AIPerf's "ITL" divides request_latency − TTFT, and
// request_latency stops at the last response: the course's E2E (to t_end)
// gives 150 ms on figure 01.2, AIPerf 125 ms.
func TestAIPerfITLIsWrittenWithRequestLatency(t *testing.T) {
	wrong := regexp.MustCompile(`\\mathrm\{E2E\}\s*-\s*\\mathrm\{TTFT\}`)
	n := 0
	for _, c := range notebookCells(t) {
		for _, sentence := range regexp.MustCompile(`[^。\n]*AIPerf[^。\n]*`).FindAllString(c.source, -1) {
			if !strings.Contains(sentence, "ITL") || !strings.Contains(sentence, "$") {
				continue
			}
			n++
			if !strings.Contains(c.where, "/05-") {
				t.Errorf("%s: the tools' conventions have one home, notebook 05; here one sentence and a pointer: %q", c.where, sentence)
			}
			if wrong.MatchString(sentence) {
				t.Errorf("%s: AIPerf's ITL written with the course's E2E: %q", c.where, sentence)
			}
			if !strings.Contains(sentence, "request\\_latency") {
				t.Errorf("%s: AIPerf's ITL formula should use request_latency: %q", c.where, sentence)
			}
		}
	}
	if n < 1 {
		t.Errorf("found %d formulas of AIPerf's ITL, want 05's", n)
	}
}

// Defect 7: 00's route table lists every notebook of the unit, the labs
// that follow 07 included, with a time each; no notebook ends the unit
// before the last lab; 第 08 课 is never left to be read as notebook 08;
// sections are numbered without gaps.
func TestRouteTableBridgesAndSections(t *testing.T) {
	all := notebookCells(t)
	route := oneCell(t, nbCells(t, all, "00-runtime-check.ipynb"), "### 3.2 路线与用时")
	rows := map[string]string{}
	for _, l := range strings.Split(route.source, "\n") {
		if m := regexp.MustCompile(`^\| (\d\d) `).FindStringSubmatch(l); m != nil {
			rows[m[1]] = l
		}
	}
	files, err := filepath.Glob(filepath.Join(repo, "notebooks", "unit01", "*.ipynb"))
	if err != nil || len(files) < 8 {
		t.Fatalf("unit01 notebooks: %v %v", files, err)
	}
	want := map[string]bool{"09": true, "10": true} // written by other helpers; listed ahead
	for _, f := range files {
		want[filepath.Base(f)[:2]] = true
	}
	var nums []string
	for n := range want {
		nums = append(nums, n)
	}
	sort.Strings(nums)
	for _, n := range nums {
		r, ok := rows[n]
		if !ok {
			t.Errorf("%s: the route table has no row for notebook %s", route.where, n)
			continue
		}
		if !regexp.MustCompile(`约 \d+ 分钟`).MatchString(r) {
			t.Errorf("%s: row %q gives no time", route.where, r)
		}
	}
	for n, title := range map[string]string{"09": "09 实验：真实模型", "10": "10 实验：容量与置信区间"} {
		if !strings.Contains(rows[n], title) {
			t.Errorf("%s: row %s should read %q", route.where, n, title)
		}
	}
	for _, c := range all {
		if strings.Contains(c.source, "本单元到这里结束") {
			t.Errorf("%s says the unit ends here, but the labs 08–10 follow", c.where)
		}
		if strings.Contains(c.source, "第 08 课") && !strings.Contains(c.source, "不是本单元") {
			t.Errorf("%s names 第 08 课 without saying it is not the unit's notebook 08", c.where)
		}
	}
	order, byNB := byNotebook(all)
	heading := regexp.MustCompile(`(?m)^## (\d+)\. `)
	for _, nb := range order {
		next := 1
		for _, c := range byNB[nb] {
			if c.kind != "markdown" {
				continue
			}
			for _, m := range heading.FindAllStringSubmatch(c.source, -1) {
				if n, _ := strconv.Atoi(m[1]); n != next {
					t.Errorf("%s: section %d follows section %d", c.where, n, next-1)
				}
				next++
			}
		}
	}
	lab08 := nbCells(t, all, "08-lab-goodput-quality.ipynb")
	if !strings.Contains(lab08[len(lab08)-1].source, "09 实验：真实模型") {
		t.Errorf("08 should end with the bridge to 09 实验：真实模型")
	}
}

// Defect 8: an unrated answer is unknown, not wrong: goodput without
// ratings is not computable, never "0".
func TestUnratedIsNotWrittenAsZero(t *testing.T) {
	zero := regexp.MustCompile(`goodput[^。\n]{0,6}(就是|只能报|只能是|记为|报) ?0`)
	found := false
	for _, c := range notebookCells(t) {
		for _, m := range zero.FindAllString(c.source, -1) {
			t.Errorf("%s: %q treats unknown as zero; say 无法计算", c.where, m)
		}
		found = found || strings.Contains(c.source, "无法计算（未评分）")
	}
	if !found {
		t.Error("no cell says what to report when nothing was rated: 无法计算（未评分）")
	}
}

// Defect 9: the source checked the docs on 2026-10-04; a later check says
// that it re-checked, and when. Results of one run are printed by the run,
// never announced in the text.
func TestDatesAndRunResults(t *testing.T) {
	date := regexp.MustCompile(`20\d\d-\d\d-\d\d`)
	checked := 0
	for _, c := range notebookCells(t) {
		if c.kind != "markdown" || !strings.Contains(c.source, "核对") || !date.MatchString(c.source) {
			continue
		}
		checked++
		if !strings.Contains(c.source, "2026-10-04") || !strings.Contains(c.source, "重新核对") {
			t.Errorf("%s dates a docs check without the source's date 2026-10-04 and the re-check", c.where)
		}
	}
	if checked < 2 {
		t.Errorf("found %d cells that date the docs check, want 00's glossary and 05", checked)
	}
	runResults := []string{"36 道题", "7 道被抽中", "九成出头", "接近满格", "几乎一样",
		// 09 on one machine (second review, item 24)
		"这台机器上，第一个请求并不比后面的慢多少", "几乎成比例增长", "几乎每个请求都复用了缓存"}
	for _, c := range notebookCells(t) {
		if c.kind != "markdown" {
			continue
		}
		for _, r := range runResults {
			if strings.Contains(c.source, r) {
				t.Errorf("%s announces a result of one run (%q): print it from the run instead", c.where, r)
			}
		}
	}
}

// Defect 10: 03's exercise 1 states its rounding rule and its check applies
// the same rule (nb.CompareDecimals), so 2.86 passes by the rule, not by luck.
func TestRoundingRuleIsStatedAndChecked(t *testing.T) {
	cells := nbCells(t, checkCells(t), "03-one-trace-four-conclusions.ipynb")
	ex := oneCell(t, cells, "把门槛放宽到 2 s")
	if !strings.Contains(ex.source, "四舍五入到两位小数") {
		t.Errorf("%s: exercise 1 gives no rounding rule", ex.where)
	}
	check := oneCell(t, cells, "at2s.CostPer1000, ")
	for _, field := range []string{"at2s.GoodputPerS", "at2s.CostPer1000"} {
		if !regexp.MustCompile(`nb\.CompareDecimals\([^\n]*` + regexp.QuoteMeta(field) + `[^\n]*, 2(\)|, nb\.If\()`).MatchString(check.source) {
			t.Errorf("%s: %s should be checked with nb.CompareDecimals(…, 2), the stated rule", check.where, field)
		}
	}
}

// prefilledGuess finds a yes/no prediction written as a bool: a bool has no
// "not made yet", so it starts at an answer (often the wrong one) and the
// check then grades a guess the learner never made. nb.Guess starts at
// nb.Undecided instead.
var prefilledGuess = regexp.MustCompile(`(?m)^var predict\w*\s*(bool\b|=\s*(true|false)\b)|^\t\w+\s+bool\s*//|^\t\w+:\s*(true|false),\s*//\s*改成`)

func TestPredictionsStartUnmade(t *testing.T) {
	for _, c := range notebookCells(t) {
		if c.kind != "code" || !strings.Contains(c.source, "predict") && !strings.Contains(c.source, "Prediction") {
			continue
		}
		for _, m := range prefilledGuess.FindAllString(c.source, -1) {
			t.Errorf("%s: %q pre-fills a yes/no prediction; use nb.Guess (starts at nb.Undecided)", c.where, strings.TrimSpace(m))
		}
	}
}

// englishMenu is a JupyterLab menu path in English ("Run → Run All Cells"):
// the lab is in Chinese (the zh-CN language pack), so a learner looks for
// 运行 → 运行所有单元格 and finds no "Run".
var englishMenu = regexp.MustCompile(`\b(File|Edit|View|Run|Kernel|Tabs|Settings|Help)\s*(→|->|>)\s*[A-Z]`)

// zhMenuAsShown maps a translation the language pack has to the menu text
// the lab really shows: JupyterLab 4 builds the kernel menu's "Restart Kernel
// and Run All Cells…" from "%1 and %2", which the pack renders as
// "%1 和 %2", spaces included (seen in the lab's 内核 menu).
var zhMenuAsShown = map[string]string{
	"重启并运行所有单元格": "内核 → 重启内核 和 运行所有单元格…",
}

func TestMenuPathsAreTheChineseUIs(t *testing.T) {
	for _, c := range notebookCells(t) {
		if c.kind != "markdown" {
			continue
		}
		for _, m := range englishMenu.FindAllString(c.source, -1) {
			t.Errorf("%s names the menu %q in English: write it as the zh-CN lab shows it (运行 → 运行所有单元格, 文件 → 保存 笔记本, 帮助 → 显示上下文帮助)", c.where, m)
		}
		for wrong, right := range zhMenuAsShown {
			if strings.Contains(c.source, wrong) {
				t.Errorf("%s writes the menu item %q, which the zh-CN lab's menu does not show: it reads %q", c.where, wrong, right)
			}
		}
	}
}

// methodCode is a percentile method's identifier (the card's and the
// CLI's), which Chinese output names as 最近秩 or 线性插值.
var methodCode = regexp.MustCompile(`\b(nearest-rank|linear)\b`)

// What a learner reads names the percentile method in Chinese: the cards
// and tables coursekit prints, the charts, and the notebooks' own prints,
// which pass a Method through cardfmt.MethodName. The identifiers stay in
// JSON and on the command line.
func TestPercentileMethodsAreNamedInChinese(t *testing.T) {
	for what, text := range printed(t) {
		for _, m := range methodCode.FindAllStringIndex(text, -1) {
			t.Errorf("%s prints the method code %q: %q", what, text[m[0]:m[1]], text[max(0, m[0]-30):min(len(text), m[1]+10)])
		}
	}
	for _, x := range unitCharts(t) {
		for _, s := range chartStrings(x.c) {
			if m := methodCode.FindString(s); m != "" {
				t.Errorf("%s shows the method code %q in %q", x.name, m, s)
			}
		}
	}
	bare := regexp.MustCompile(`\.(TTFT|E2E|TPOT|Event)\.Method\b|\.PercentileMethod\b`)
	literal := regexp.MustCompile(`"[^"\n]*"`)
	for _, c := range notebookCells(t) {
		if c.kind != "code" {
			continue
		}
		report := t.Errorf
		for _, line := range strings.Split(c.source, "\n") {
			if bare.MatchString(line) && strings.Contains(line, "Printf") && !strings.Contains(line, "MethodName(") {
				report("%s prints a method code; name it with cardfmt.MethodName: %q", c.where, line)
			}
			for _, l := range literal.FindAllString(line, -1) {
				if methodCode.MatchString(l) && strings.ContainsFunc(l, isHan) {
					report("%s prints the method code in a Chinese string: %s", c.where, l)
				}
			}
		}
	}
}

// Every cost per 1,000 qualified a learner reads carries its unit
// 元/千次合格, not bare 元: in what coursekit prints, in the charts, and
// in the notebooks' own prints (a literal unit or cardfmt.CostUnit).
func TestCostsCarryTheirUnit(t *testing.T) {
	for what, text := range printed(t) {
		for _, l := range CostUnitMissing(text) {
			t.Errorf("%s: a cost without 元/千次合格: %q", what, l)
		}
	}
	for _, x := range unitCharts(t) {
		for _, s := range chartStrings(x.c) {
			for _, l := range CostUnitMissing(s) {
				t.Errorf("%s: a cost without 元/千次合格: %q", x.name, l)
			}
		}
	}
	literal := regexp.MustCompile(`"[^"\n]*每千次合格成本[^"\n]*"`)
	for _, c := range notebookCells(t) {
		if c.kind != "code" {
			continue
		}
		report := t.Errorf
		for _, line := range strings.Split(c.source, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") || !literal.MatchString(line) {
				continue
			}
			if !strings.Contains(line, "元/千次合格") && !strings.Contains(line, "%s/千次合格") && !strings.Contains(line, "CostUnit(") {
				report("%s prints a cost without its unit 元/千次合格: %q", c.where, line)
			}
		}
	}
}

// A lab cell that runs its load before the prediction gate prints
// progress lines while it runs; their counts would give the prediction
// away, so the run reads the prediction itself (lab.Lab.RunFor,
// CapacityFor) and hides them until it is written. No cell spells the
// hiding out (WithCountsHidden(!guessed)): it is plumbing.
func TestLabRunsHideCountsUntilPredicted(t *testing.T) {
	run := regexp.MustCompile(`experiment\.[^\n]*\b(Run|RunEngine|RunFor|Capacity|CapacityEngine|CapacityFor)\(`)
	checked := 0
	for _, c := range notebookCells(t) {
		if c.kind != "code" {
			continue
		}
		if strings.Contains(c.source, "WithCountsHidden") {
			t.Errorf("%s hides the counts by hand; use experiment.RunFor(prediction, …)", c.where)
		}
		gate := strings.Index(c.source, "nb.Guessed(prediction)")
		at := run.FindStringIndex(c.source)
		if gate < 0 || at == nil || at[0] > gate {
			continue
		}
		checked++
		for _, line := range strings.Split(c.source, "\n") {
			if run.MatchString(line) && !strings.Contains(line, "For(prediction, ") {
				t.Errorf("%s runs the lab before its prediction is checked without hiding the counts (RunFor/CapacityFor(prediction, …)): %q", c.where, line)
			}
		}
	}
	if checked < 4 {
		t.Fatalf("%d lab cells run before a prediction gate; 07, 08 and 10 have them", checked)
	}
}

// figureNumber is a figure's number: 图 01.3 is unit 01's third figure;
// 00, the notebook before the unit, numbers its own as 图 00.N.
var figureNumber = regexp.MustCompile(`图 (\d{2})\.(\d+)`)

// chartCalls counts the charts a code cell draws (comment lines aside).
func chartCalls(code string) int {
	n := 0
	for _, line := range strings.Split(code, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			n += strings.Count(line, "nb.Chart(") + strings.Count(line, "nb.Figure(")
		}
	}
	return n
}

// figureCall is a chart drawn as a numbered figure, its number first.
var figureCall = regexp.MustCompile(`nb\.Figure\("(图 \d{2}\.\d+)",`)

// Every chart is a numbered figure: the markdown cell just before the
// cell that draws it (its 看图要点) names a new number for each chart
// before any other new one, 图 01.N in unit order, unique and increasing,
// so that the text can refer to it; and every figure the text refers to
// exists.
func TestEveryChartIsANumberedFigure(t *testing.T) {
	cells := checkCells(t)
	defined := map[string]bool{}
	last := map[string]int{}
	var numbers []string
	for i, c := range cells {
		k := 0
		if c.kind == "code" {
			k = chartCalls(c.source)
		}
		if k == 0 {
			continue
		}
		file := c.where[:strings.LastIndex(c.where, "[")]
		unit := "01"
		if strings.HasSuffix(file, "00-runtime-check.ipynb") {
			unit = "00"
		}
		var fresh []string
		if i > 0 && cells[i-1].kind == "markdown" && strings.HasPrefix(cells[i-1].where, file+"[") {
			for _, m := range figureNumber.FindAllStringSubmatch(cells[i-1].source, -1) {
				if !defined[m[0]] && !slices.Contains(fresh, m[0]) {
					fresh = append(fresh, m[0])
				}
			}
		}
		if len(fresh) < k {
			t.Errorf("%s draws %d chart(s); the markdown cell before it should name %d new figure number(s) 图 %s.N, found %q", c.where, k, k, unit, fresh)
			continue
		}
		// Each chart's title carries its number: a unit notebook draws it
		// with nb.Figure("图 01.N", …), the numbers in the order the
		// markdown names them; 00's own go-echarts example writes it into
		// its title.
		var titled []string
		for _, m := range figureCall.FindAllStringSubmatch(c.source, -1) {
			titled = append(titled, m[1])
		}
		if unit == "00" {
			for _, f := range fresh[:k] {
				if !strings.Contains(c.source, `Title: "`+f) {
					t.Errorf("%s: the chart's title does not start with its number %s", c.where, f)
				}
			}
		} else if !slices.Equal(titled, fresh[:k]) {
			t.Errorf("%s: draw each chart with nb.Figure(\"图 01.N\", …) so that its title carries the number the text gives it: titles %q, figures %q", c.where, titled, fresh[:k])
		}
		// The first k new numbers are the charts'; a later one is a
		// reference ahead, checked below like every reference.
		for _, f := range fresh[:k] {
			m := figureNumber.FindStringSubmatch(f)
			n, _ := strconv.Atoi(m[2])
			if m[1] != unit {
				t.Errorf("%s: %s belongs to another unit; this notebook numbers 图 %s.N", c.where, f, unit)
			}
			if n <= last[m[1]] {
				t.Errorf("%s: %s comes after 图 %s.%d: figure numbers increase through the unit", c.where, f, m[1], last[m[1]])
			}
			last[m[1]], defined[f] = n, true
			numbers = append(numbers, f)
		}
	}
	if len(numbers) < 15 {
		t.Fatalf("only %d numbered figures: %q", len(numbers), numbers)
	}
	// With every chart numbered, no number is skipped.
	for u, n := range last {
		for j := 1; j <= n; j++ {
			if f := fmt.Sprintf("图 %s.%d", u, j); !defined[f] {
				t.Errorf("%s is skipped: %q", f, numbers)
			}
		}
	}
	for _, c := range cells {
		for _, m := range figureNumber.FindAllString(c.source, -1) {
			if !defined[m] {
				t.Errorf("%s refers to %s, which no chart carries", c.where, m)
			}
		}
	}
}

// The route table's time for each notebook is the one its first cell
// states (预计用时), and 合计 is the sum of 01–06: a notebook that grows is
// re-timed in both places.
func TestRouteTableTimesMatchTheNotebooks(t *testing.T) {
	all := notebookCells(t)
	route := oneCell(t, nbCells(t, all, "00-runtime-check.ipynb"), "### 3.2 路线与用时")
	minutes := regexp.MustCompile(`约 (\d+) 分钟`)
	sum, total := 0, -1
	for _, l := range strings.Split(route.source, "\n") {
		if strings.Contains(l, "合计") {
			if m := minutes.FindStringSubmatch(l); m != nil {
				total, _ = strconv.Atoi(m[1])
			}
			continue
		}
		m := regexp.MustCompile(`^\| (\d\d) `).FindStringSubmatch(l)
		if m == nil {
			continue
		}
		row := minutes.FindStringSubmatch(l)
		if row == nil {
			continue // TestRouteTableBridgesAndSections names it
		}
		var first *cell
		for _, c := range all {
			if strings.Contains(c.where, "/"+m[1]+"-") && strings.HasSuffix(c.where, "[0]") {
				first = &c
				break
			}
		}
		if first == nil {
			t.Errorf("%s: no notebook %s", route.where, m[1])
			continue
		}
		own := regexp.MustCompile(`预计用时\*\*：约 (\d+) 分钟`).FindStringSubmatch(first.source)
		if own == nil || own[1] != row[1] {
			t.Errorf("%s: the route table gives notebook %s 约 %s 分钟, %s says %v", route.where, m[1], row[1], first.where, own)
		}
		if n, _ := strconv.Atoi(m[1]); n >= 1 && n <= 6 {
			v, _ := strconv.Atoi(row[1])
			sum += v
		}
	}
	if total != sum {
		t.Errorf("%s: 合计 is 约 %d 分钟, 01–06 add up to %d", route.where, total, sum)
	}
	for _, c := range nbCells(t, all, "00-runtime-check.ipynb") {
		for _, m := range regexp.MustCompile(`第 01 单元的? ?约? ?(\d+) 分钟`).FindAllStringSubmatch(c.source, -1) {
			if v, _ := strconv.Atoi(m[1]); v != sum {
				t.Errorf("%s: %q, but 01–06 add up to %d", c.where, m[0], sum)
			}
		}
	}
}

// The weak coverage is practised: 03 computes token/s and qualified/s
// from one inference trace (never training samples/s, which it does not
// hold) and checks a prediction of them; 04 lets the
// learner pick the per-request fields and checks whether the card can be
// recomputed from them.
func TestMixedUnitsAndRecordFieldsArePractised(t *testing.T) {
	all := checkCells(t)
	rates := oneCell(t, nbCells(t, all, "03-one-trace-four-conclusions.ipynb"), "nb.PerSecond(")
	if !strings.Contains(rates.source, "nb.Compare(") {
		t.Errorf("%s: the three rates are computed but no prediction is checked", rates.where)
	}
	oneCell(t, nbCells(t, all, "04-change-one-condition.ipynb"), "nb.Recomputable(")
	pick := oneCell(t, nbCells(t, all, "04-change-one-condition.ipynb"), "var keep = ")
	if !strings.Contains(pick.source, "[]string{}") {
		t.Errorf("%s: the field list should start empty, for the learner to pick: %q", pick.where, pick.source)
	}
}
