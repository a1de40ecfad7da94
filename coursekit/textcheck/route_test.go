package textcheck

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The unit's times come from its notebooks, not from a guess (second
// review, item 14; third review: count what a learner really types): a
// notebook's minutes are estimated from what a learner does in it at the
// rates below, its stated 预计用时 is that estimate rounded, and the core
// unit 01–06 keeps to the source's 50 minutes with its predictions and the
// deliverable, every field of 06's card included. Exercises a notebook
// leaves for after class say so (afterClass) and do not count; the ones
// inside are checked and counted. A notebook whose text, cells or
// predictions grow past its time fails here; `go test
// ./coursekit/textcheck -run TestRouteTimes -update-route` rewrites every
// stated time (each notebook's first cell, 00's route table and its
// mentions, README's table) from the estimates.
//
// The rates are a desk pilot's: 01–06 worked through by a reader new to
// them, each prediction worked out one by one, gave 300 Chinese characters
// of prose a minute, 15 s a code cell with its printed lines, 24 s a
// prediction, 20 s a field of 06's card read off printed figures, 1.5 min
// an answer in the learner's own words and a minute an exercise with its
// check cell.
//
// What has few or no Chinese characters is still read (sixth review): a
// display formula ($$ … $$) costs 20 s, its Chinese not counted again; a
// markdown table row (not its header or rule line) at least 5 s, its
// Chinese at the reading rate when that takes longer; what a code cell
// prints is read within its 15 s.
const (
	readCharsPerMin    = 300       // Chinese characters of prose read, with its formulas, per minute
	codeCellMin        = 0.25      // reading a short code cell, running it and reading what it printed
	guessMin           = 0.4       // working out and writing one guess (a number, nb.Yes/nb.No)
	checkedExerciseMin = 1.0       // an exercise with a check cell, worked out and checked
	formulaMin         = 20.0 / 60 // one display formula block ($$ … $$), read and related to the text
	tableRowMin        = 5.0 / 60  // the least one row of a markdown table takes, its Chinese included
	cardFieldMin       = 0.33      // one short field of 06's card (a number, a constant, a unit, a step's name or layer), read off the printed figures
	freeTextMin        = 1.5       // one answer of 06's card written in the learner's own words
	// pathFields is what 06 asks of the path map, whose steps the template
	// leaves commented out: four steps with a name and a layer each
	// (card's map.steps), and data, device, output and failure marked once
	// each on the path (map.marks).
	pathFields  = 4*2 + 4
	unitMinutes = 50 // the source: 第 01 单元 · 约 50 分钟（含练习）; here the predictions and the deliverable, the after-class exercises outside
)

// afterClass opens the exercises a notebook leaves for after class: from
// the markdown cell that says it on, nothing counts toward the notebook's
// time (00 says which they are). The exercises before it are inside the
// time; in 01–06 each has a check cell (TestExercisesInsideTheTimeAreChecked).
const afterClass = "以下是课后练习，不计入本节用时"

// runSeconds is each notebook's running time in seconds, headless
// (docker/nbrun.py's "whole notebook" line) on the course's 2-core machine.
var runSeconds = map[string]float64{"00": 11, "01": 2, "02": 9, "03": 21, "04": 9, "05": 5, "06": 5,
	"07": 30, "08": 30, "09": 130, "10": 85}

var updateRoute = flag.Bool("update-route", false, "rewrite the stated times from the estimates")

// routeEstimate is what a notebook asks of a learner and how long it takes.
type routeEstimate struct {
	chars, formulas, rows, code, guesses, checked, fields, free int
	run, rowMin, minutes                                        float64
}

func (e routeEstimate) String() string {
	return fmt.Sprintf("%.2f min: %d characters, %d formula blocks, %d table rows, %d code cells, %d guesses, %d checked exercises, %d card fields, %d free-text answers, %.0f s running",
		e.minutes, e.chars, e.formulas, e.rows, e.code, e.guesses, e.checked, e.fields, e.free, e.run)
}

// displayFormula is a $$ … $$ block; tableRow a markdown table's row that
// is neither its header (the line before the rule) nor the rule.
var (
	displayFormula = regexp.MustCompile(`(?s)\$\$.*?\$\$`)
	tableRule      = regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+\s*$`)
)

// han counts the Chinese characters of s.
func han(s string) int {
	n := 0
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			n++
		}
	}
	return n
}

// markdownCost reads a markdown cell: the Chinese characters of its prose
// (outside display formulas and table body rows), its formula blocks, its
// table body rows and the minutes they take (each at least tableRowMin).
func markdownCost(src string) (chars, formulas, rows int, rowMin float64) {
	formulas = len(displayFormula.FindAllString(src, -1))
	lines := strings.Split(displayFormula.ReplaceAllString(src, ""), "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		header := i+1 < len(lines) && tableRule.MatchString(strings.TrimSpace(lines[i+1]))
		if !strings.HasPrefix(t, "|") || tableRule.MatchString(t) || header {
			chars += han(l)
			continue
		}
		rows++
		rowMin += max(tableRowMin, float64(han(l))/readCharsPerMin)
	}
	return chars, formulas, rows, rowMin
}

var (
	guessBlank = regexp.MustCompile(`nb\.(Unset|Undecided)\b|"（[^"\n]*）"|"\?"`) // a number or yes/no not written yet, a text placeholder, a letter to choose
	cardBlank  = regexp.MustCompile(`:\s*(0|"")\s*[,}]`)
	checkCall  = regexp.MustCompile(`nb\.(Compare\w*|Recomputable|CheckObservation)\(|\bunit01\.Check\w+\(`)
	// freeText are the card's answers in words, the ones a reader marks
	// (grade/criteria.ManualText).
	freeText = regexp.MustCompile(`\b(CounterEvidence|Aggregation|DenominatorError|Training|Inference|Uncertain):\s*""`)
)

func estimate(cells []cell, number string) routeEstimate {
	var e routeEstimate
	exercises := false
	for _, c := range cells {
		if c.kind == "markdown" && strings.Contains(c.source, afterClass) {
			break
		}
		if c.kind == "markdown" {
			chars, formulas, rows, rowMin := markdownCost(c.source)
			e.chars, e.formulas, e.rows, e.rowMin = e.chars+chars, e.formulas+formulas, e.rows+rows, e.rowMin+rowMin
			exercises = exercises || strings.HasPrefix(strings.TrimSpace(c.source), "## 练习") || strings.Contains(c.source, "\n## 练习")
			continue
		}
		e.code++
		if c.tagged("card") {
			e.free = len(freeText.FindAllString(c.source, -1))
			e.fields = len(cardBlank.FindAllString(c.source, -1)) - e.free + pathFields
			continue
		}
		e.guesses += len(guessBlank.FindAllString(c.source, -1))
		if exercises && checkCall.MatchString(c.source) {
			e.checked++
		}
	}
	e.run = runSeconds[number]
	e.minutes = float64(e.chars)/readCharsPerMin + float64(e.formulas)*formulaMin + e.rowMin + float64(e.code)*codeCellMin + float64(e.guesses)*guessMin +
		float64(e.checked)*checkedExerciseMin + float64(e.fields)*cardFieldMin + float64(e.free)*freeTextMin + e.run/60
	return e
}

// statedMinutes is the 预计用时 of a notebook's first cell.
var statedMinutes = regexp.MustCompile(`预计用时\*\*：约 (\d+) 分钟`)

func TestRouteTimesFitTheNotebooks(t *testing.T) {
	order, byNB := byNotebook(notebookCells(t))
	want := map[string]int{}
	unit, unitRaw := 0, 0.0
	for _, f := range order {
		number := filepath.Base(f)[:2]
		e := estimate(byNB[f], number)
		minutes := max(1, int(math.Round(e.minutes)))
		want[number] = minutes
		if number >= "01" && number <= "06" {
			unit += minutes
			unitRaw += e.minutes
		}
		t.Logf("%s: %s", filepath.Base(f), e)
		m := statedMinutes.FindStringSubmatch(byNB[f][0].source)
		if m == nil {
			t.Errorf("%s states no 预计用时", f)
			continue
		}
		if stated, _ := strconv.Atoi(m[1]); stated != minutes && !*updateRoute {
			t.Errorf("%s states 约 %d 分钟; its text and cells take %s: restate it (go test ./coursekit/textcheck -run TestRouteTimes -update-route) or shorten it", f, stated, e)
		}
	}
	t.Logf("01–06: %d min (%.2f before rounding)", unit, unitRaw)
	if unit > unitMinutes || unitRaw > unitMinutes {
		t.Errorf("01–06 take %d minutes (%.2f before rounding); the source gives the unit %d", unit, unitRaw, unitMinutes)
	}
	if *updateRoute {
		rewriteRoute(t, want, unit)
	}
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := readmeRow.FindAllStringSubmatch(string(readme), -1)
	if len(rows) < len(want) {
		t.Errorf("README.md's notebook table has %d rows with a time, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		if n, _ := strconv.Atoi(r[2]); n != want[r[1]] && !*updateRoute {
			t.Errorf("README.md gives notebook %s %d min; it takes %d", r[1], n, want[r[1]])
		}
	}
	if m := readmeUnit.FindStringSubmatch(string(readme)); m == nil || m[1] != strconv.Itoa(unit) {
		t.Errorf("README.md should say the unit takes about %d minutes (01–06, …): %q", unit, m)
	}
	if m := readmeLabs.FindStringSubmatch(string(readme)); m == nil || m[1] != strconv.Itoa(want["07"]) || m[2] != strconv.Itoa(want["08"]) ||
		m[3] != strconv.Itoa(want["09"]) || m[4] != strconv.Itoa(want["10"]) {
		t.Errorf("README.md's sentence on the labs' minutes %q; they take %d, %d, %d and %d", m, want["07"], want["08"], want["09"], want["10"])
	}
}

var (
	readmeRow  = regexp.MustCompile("(?m)^\\| `(\\d\\d)-[^`]*` \\|.*\\| (\\d+) min \\|$")
	readmeUnit = regexp.MustCompile(`Unit 01 takes about (\d+) minutes \(01–06`)
	readmeLabs = regexp.MustCompile(`plus about (\d+) for the lab 07, (\d+) for the lab 08, (\d+) for the real engine in 09 and (\d+) for capacity and intervals in 10`)
)

// rewriteRoute writes the estimated minutes into every place that states
// them, as text, so that the notebooks keep their JSON layout byte for
// byte elsewhere.
func rewriteRoute(t *testing.T, want map[string]int, unit int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(repo, "notebooks", "unit01", "*.ipynb"))
	files = append(files, filepath.Join(repo, "notebooks", "00-runtime-check.ipynb"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		number := filepath.Base(f)[:2]
		s = regexp.MustCompile(`预计用时\*\*：约 \d+ 分钟`).ReplaceAllString(s, fmt.Sprintf("预计用时**：约 %d 分钟", want[number]))
		if number == "00" {
			s = regexp.MustCompile(`(?m)^(    "\| (\d\d) [^\n]*\| (?:选做，)?(?:另需)?约 )\d+( 分钟)`).ReplaceAllStringFunc(s, func(l string) string {
				m := regexp.MustCompile(`^(    "\| (\d\d) [^\n]*\| (?:选做，)?(?:另需)?约 )\d+( 分钟)`).FindStringSubmatch(l)
				return m[1] + strconv.Itoa(want[m[2]]) + m[3]
			})
			s = regexp.MustCompile(`\*\*约 \d+ 分钟（`).ReplaceAllString(s, fmt.Sprintf("**约 %d 分钟（", unit))
			s = regexp.MustCompile(`第 01 单元的 \d+ 分钟`).ReplaceAllString(s, fmt.Sprintf("第 01 单元的 %d 分钟", unit))
			s = regexp.MustCompile(`第 01 单元约 \d+ 分钟`).ReplaceAllString(s, fmt.Sprintf("第 01 单元约 %d 分钟", unit))
		}
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(repo, "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := readmeRow.ReplaceAllStringFunc(string(b), func(l string) string {
		m := readmeRow.FindStringSubmatch(l)
		return strings.TrimSuffix(l, m[2]+" min |") + strconv.Itoa(want[m[1]]) + " min |"
	})
	s = readmeUnit.ReplaceAllString(s, fmt.Sprintf("Unit 01 takes about %d minutes (01–06", unit))
	s = readmeLabs.ReplaceAllString(s, fmt.Sprintf("plus about %d for the lab 07, %d for the lab 08, %d for the real engine in 09 and %d for capacity and intervals in 10",
		want["07"], want["08"], want["09"], want["10"]))
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exerciseItem is one numbered exercise of a 练习 list.
var exerciseItem = regexp.MustCompile(`(?m)^\d+\. `)

// insideExercises counts a notebook's exercises inside its time (numbered
// before the afterClass line) and the check cells among them.
func insideExercises(cells []cell) (items, checked int, all int) {
	inside, exercises := true, false
	for _, c := range cells {
		text := c.source
		if c.kind == "markdown" && strings.HasPrefix(strings.TrimSpace(text), "## 练习") {
			exercises = true
		}
		if !exercises {
			continue
		}
		if c.kind == "markdown" {
			all += len(exerciseItem.FindAllString(text, -1))
			if i := strings.Index(text, afterClass); i >= 0 && inside {
				items += len(exerciseItem.FindAllString(text[:i], -1))
				inside = false
			} else if inside {
				items += len(exerciseItem.FindAllString(text, -1))
			}
			continue
		}
		if inside && checkCall.MatchString(c.source) {
			checked++
		}
	}
	return items, checked, all
}

// The time of 01–10 counts every exercise it says is inside: each one
// before the afterClass line has a check cell (a discussion question
// inside the time would go uncounted), and 00's route says which
// notebooks leave all their exercises for after class.
func TestExercisesInsideTheTimeAreChecked(t *testing.T) {
	order, byNB := byNotebook(notebookCells(t))
	var after []string
	route := ""
	for _, f := range order {
		number := filepath.Base(f)[:2]
		if number == "00" {
			for _, c := range byNB[f] {
				if strings.Contains(c.source, "### 3.2 路线与用时") {
					route = c.source
				}
			}
		}
		if number == "00" {
			continue
		}
		items, checked, all := insideExercises(byNB[f])
		if items != checked {
			t.Errorf("%s: %d exercises inside the time but %d check cells: give each a check cell, or move it after %q", f, items, checked, afterClass)
		}
		// 00 says a lab's time holds at most the one checked exercise.
		if number > "06" && items > 1 {
			t.Errorf("%s: %d exercises inside the time; a lab counts only its checked one, the rest go after %q", f, items, afterClass)
		}
		if number > "06" {
			continue
		}
		if items == 0 && all > 0 {
			after = append(after, number)
		}
	}
	if want := numberList(after) + " 的练习全部在课后"; len(after) > 0 && !strings.Contains(route, want) {
		t.Errorf("00's route should say %q (and why)", want)
	}
	// 00 states the rates the estimate uses, as the constants have them.
	for _, rate := range []string{
		fmt.Sprintf("每分钟读 %d 字", readCharsPerMin),
		fmt.Sprintf("每个公式块约 %.0f 秒", formulaMin*60),
		fmt.Sprintf("表格每行约 %.0f 秒", tableRowMin*60),
		fmt.Sprintf("每个代码单元格约 %.0f 秒", codeCellMin*60),
		fmt.Sprintf("每个预测约 %.0f 秒", guessMin*60),
		fmt.Sprintf("带核对单元格的练习 %.0f 分钟", checkedExerciseMin),
		fmt.Sprintf("每个数字、常量或单位约 %.0f 秒", cardFieldMin*60),
		fmt.Sprintf("每段用自己的话写的回答约 %g 分钟", freeTextMin),
		afterClass,
	} {
		if !strings.Contains(route, rate) {
			t.Errorf("00's route does not state %q, the rate the estimate uses", rate)
		}
	}
}

// numberList writes notebook numbers as 00 does: 01–06 for a run, else 01、03.
func numberList(ns []string) string {
	run := len(ns) > 2
	for i := 1; i < len(ns); i++ {
		a, _ := strconv.Atoi(ns[i-1])
		b, _ := strconv.Atoi(ns[i])
		run = run && b == a+1
	}
	if run {
		return ns[0] + "–" + ns[len(ns)-1]
	}
	return strings.Join(ns, "、")
}

// Every kind of answer still to be written is a prediction the estimate
// counts: a number or yes/no (nb.Unset, nb.Undecided), a text
// placeholder, and a letter asked as "?" (03's quiz).
func TestEstimateCountsEveryPlaceholder(t *testing.T) {
	cells := []cell{{where: "x[0]", kind: "code", source: `var p = P{Denominator: "?", P95MS: nb.Unset, Moves: nb.Undecided, Note: "（写下你的观察）"}`}}
	if got := estimate(cells, "99").guesses; got != 4 {
		t.Errorf("the estimate counts %d predictions in %q, want 4", got, cells[0].source)
	}
}

// Formulas and tables cost their time though they hold few Chinese
// characters: the Chinese inside a formula is not counted twice, a
// table's header and rule are no rows, and a row takes at least 5 s or
// its Chinese at the reading rate.
func TestEstimateCountsFormulasAndTableRows(t *testing.T) {
	long := strings.Repeat("长", 40) // 8 s at 300 a minute, more than a row's 5 s
	md := "先读一句。\n\n$$\n\\text{联合合格} = Q/A\n$$\n\n| 观察 | 层 |\n|---|---|\n| 变慢 | 推理层 |\n| " + long + " | 设备层 |\n"
	chars, formulas, rows, rowMin := markdownCost(md)
	if chars != 4+3 || formulas != 1 || rows != 2 || math.Abs(rowMin-(tableRowMin+43.0/readCharsPerMin)) > 1e-9 {
		t.Errorf("markdownCost = %d characters, %d formulas, %d rows, %v min of rows; want 7 (prose and header only), 1, 2, 5 s + 43 characters", chars, formulas, rows, rowMin)
	}
	e := estimate([]cell{{where: "x[0]", kind: "markdown", source: md}}, "99")
	if want := 7.0/readCharsPerMin + formulaMin + tableRowMin + 43.0/readCharsPerMin; math.Abs(e.minutes-want) > 1e-9 {
		t.Errorf("estimate = %v min, want %v", e.minutes, want)
	}
}
