package unit01

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"sort"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/internal/capture"
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Every check of labs 07–10 typed each right answer in the forms its text
// accepts and each wrong answer the notebook anticipates: a right answer
// agrees, an anticipated wrong one disagrees and is told its own hint,
// never the generic "回到上面的推理". A check that reads a live run is
// judged on a plausible reading of one (the numbers beside each row); one
// that reads the unit's own data is run whole, as the cell calls it.

const genericHint = "回到上面的推理"

type answerCase struct {
	answer any
	right  bool
	hint   string
}

func right(answers ...any) []answerCase {
	var out []answerCase
	for _, a := range answers {
		out = append(out, answerCase{answer: a, right: true})
	}
	return out
}

func wrong(answer any, hint string) answerCase { return answerCase{answer: answer, hint: hint} }

func cases(parts ...any) []answerCase {
	var out []answerCase
	for _, p := range parts {
		switch p := p.(type) {
		case answerCase:
			out = append(out, p)
		case []answerCase:
			out = append(out, p...)
		default:
			panic(fmt.Sprintf("cases: %T", p))
		}
	}
	return out
}

func yesNo(right, wrongHint string) []answerCase {
	g := map[string]nb.Guess{"yes": nb.Yes, "no": nb.No}
	w := map[string]string{"yes": "no", "no": "yes"}[right]
	return cases(answerCase{answer: g[right], right: true}, wrong(g[w], wrongHint))
}

// f64 and integer are the learner's slot types: a float64 field takes any
// number, an int one a whole number.
func f64(a any) float64 {
	switch a := a.(type) {
	case int:
		return float64(a)
	case float64:
		return a
	}
	panic(fmt.Sprintf("not a number: %T", a))
}

func unitTrace(t *testing.T) *trace.Trace {
	t.Helper()
	tr, err := trace.ReadFile(coursekit.Data("unit01/trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// checkRow is one exported check: how its verdict is reached for an
// answer, and the answers typed into it.
type checkRow struct {
	judge func(answer any) bool
	cases []answerCase
}

func checkRows(t *testing.T) map[string]checkRow {
	unit := unitTrace(t)
	g := func(a any) nb.Guess { return a.(nb.Guess) }
	return map[string]checkRow{
		// 07: a closed loop of 4 users (a run: 6.78 cycles/s, the window's
		// send rate 8/s, §1's config 4 / (32 × 16 ms) = 7.8/s, where the
		// idle conversion says 12).
		"CheckClosedLoopRate": {func(a any) bool { return closedLoopRate(f64(a), 6.78, 8, 4/(32*0.016)) },
			cases(right(6.78, 7, 7.4, 6.2), wrong(7.8, "按第 1 节的配置估算的 7.8 次/s"), wrong(7.81, "客户端和 HTTP"), wrong(8, "窗口里发出的次数"), wrong(8.1, "窗口里发出的次数"),
				wrong(12, "空载"), wrong(12.1, "空载"))},
		"CheckOpenQueueGrows":    {func(a any) bool { return openQueueGrows(g(a), true) }, yesNo("yes", "只能排队")},
		"CheckOpenTimeouts":      {func(a any) bool { return openTimeouts(g(a), true) }, yesNo("yes", "超过 1.5 s 的尝试被放弃")},
		"CheckBusyShowsWhoWaits": {func(a any) bool { return busyShowsWhoWaits(g(a)) }, yesNo("no", "只有 1 个用户")},
		// Exercise 1: think time Z = 0.5 s on the closed run's W = 0.51 s;
		// U / W (the cycle rate §6 printed) forgets Z.
		"CheckThinkTimeRate": {func(a any) bool { return thinkTimeRate(f64(a), 4/1.01, 7.8) },
			cases(right(3.96, 4, 3.8), wrong(7.84, "没有思考时间的 U / W"), wrong(8, "没有思考时间的 U / W"), wrong(2, "Z = 0.5 s"), wrong(5.5, "Z = 0.5 s"))},

		// 08: the same load answered right, then 20 % wrong (a run: the
		// goodput's share 0.806, TTFT and busy unmoved, 8 quality fails).
		"CheckGoodputShare": {func(a any) bool { return goodputShare(f64(a), 0.806) },
			cases(right(0.8, 0.75, 4.0/5, 0.806), wrong(0.2, "下降的比例"), wrong(0.19, "下降的比例"), wrong(1.25, "除反了"), wrong(1.24, "除反了"),
				wrong(80, "0 到 1 之间"), wrong(0.0, "两个整数相除"))},
		"CheckTTFTMoves":  {func(a any) bool { return ttftMoves(g(a), false) }, yesNo("no", "答错的回答")},
		"CheckBusyMoves":  {func(a any) bool { return busyMovesCheck(g(a), false) }, yesNo("no", "活一样多")},
		"CheckPanelTells": {func(a any) bool { return panelTells(g(a), false) }, yesNo("no", "质量评分")},
		"CheckQualityDrops": {func(a any) bool { return qualityDrops(a.(int), 8) },
			cases(right(8), wrong(7, "差 1 次"), wrong(9, "差 1 次"))},

		// 09: the real engine (a run: the first request as fast as the
		// rest, the cache's TTFT share 0.06, 256 words 2.5 times 64, 4
		// slots with longer gaps and about the same tokens/s, far from 4
		// times, the difference within the runs' noise, 60 % of the easy
		// questions passed, 3 ms between TTFT and prompt_ms).
		"CheckFirstSlower": {func(a any) bool { return firstSlower(g(a), false) }, yesNo("no", "llama.cpp 加载模型时先空跑一遍")},
		"CheckCacheShare": {func(a any) bool { return cacheShare(f64(a), 0.06) },
			cases(right(0.06, 0.1, 0.05, 0.04), wrong(0.5, "差别是数量级的"), wrong(1, "差别是数量级的"), wrong(0.001, "TTFT 不会趋近于 0"))},
		"CheckLongerTimes":    {func(a any) bool { return longerTimes(f64(a), 2.5) }, cases(right(2.5, 3, 2), wrong(4, "固定开销"))},
		"CheckGapLonger":      {func(a any) bool { return gapLonger(g(a), true) }, yesNo("yes", "每一步都要为 4 条序列算")},
		"CheckFourTimes":      {func(a any) bool { return fourTimes(g(a), false) }, yesNo("no", "1 个线程算 4 条序列")},
		"CheckTokensSeparate": {func(a any) bool { return tokensSeparate(g(a), false) }, yesNo("no", "运行之间的波动")},
		"CheckEasyPass": {func(a any) bool { return easyPass(f64(a), 0.6) },
			cases(right(0.6, 0.5, 0.8), wrong(60, "0 到 1 之间"), wrong(80, "0 到 1 之间"))},
		"CheckGapSmall": {func(a any) bool { return gapSmall(g(a), true) }, yesNo("yes", "本机回环")},

		// 10: the unit's own trace (8 successes), then a search (a run:
		// the short step inconclusive, no step above saturation meets,
		// busy alike around the answer, the engine's slot under 90 % busy
		// at its answer).
		"CheckP95HasUpper": {func(a any) bool { return CheckP95HasUpper(g(a), unit) }, yesNo("no", "连最大的样本也当不了上界")},
		"CheckNeedN": {func(a any) bool { return CheckNeedN(a.(int), unit) },
			cases(right(72), wrong(59, "单侧 95% 上界"), wrong(60, "要它不超过 2.5%"), wrong(71, "向上取整"), wrong(100, "问的是至少要多少个"))},
		"CheckShortMeets":      {func(a any) bool { return shortMeets(g(a), false) }, yesNo("no", "尝试太少")},
		"CheckAboveSatMeets":   {func(a any) bool { return aboveSatMeets(g(a), false) }, yesNo("no", "队列越排越长")},
		"CheckBusyGapAtAnswer": {func(a any) bool { return busyGapAtAnswer(g(a), false) }, yesNo("no", "两步的批都几乎一直在跑")},
		"CheckEngineBusyHigh":  {func(a any) bool { return engineBusyHigh(g(a), false) }, yesNo("no", "扎堆")},
		"CheckNeed95": {func(a any) bool { return CheckNeed95(a.(int)) },
			cases(right(capacity.AttemptsToMeet(0.95)), wrong(72, "向上取整"), wrong(35, "目标 90% 时的数"), wrong(76, "z 取 1.96"),
				wrong(19, "19 是 z² 前面的系数"))},
	}
}

func TestEveryCheckTakesItsRightFormsAndNamesItsMistakes(t *testing.T) {
	rows := checkRows(t)
	names := make([]string, 0, len(rows))
	for n := range rows {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		row := rows[name]
		t.Run(name, func(t *testing.T) {
			rights := 0
			for _, k := range row.cases {
				var ok bool
				out, err := capture.Stdout(func() { ok = row.judge(k.answer) })
				if err != nil {
					t.Fatal(err)
				}
				if k.right {
					rights++
					if !ok || !strings.Contains(out, "一致 ✓") {
						t.Errorf("the right answer %v is marked wrong:\n%s", k.answer, out)
					}
					continue
				}
				if ok {
					t.Errorf("the wrong answer %v passes:\n%s", k.answer, out)
				}
				if !strings.Contains(out, k.hint) {
					t.Errorf("the wrong answer %v is not told its hint %q:\n%s", k.answer, k.hint, out)
				}
				if strings.Contains(out, genericHint) {
					t.Errorf("the anticipated wrong answer %v gets the generic hint:\n%s", k.answer, out)
				}
			}
			if rights == 0 {
				t.Error("no right answer typed")
			}
		})
	}
}

// exportedChecks are the labs' exported checks (labs*.go), from their
// source; 02–05's checks have their cases in unit01_test.go.
func exportedChecks(t *testing.T) []string {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return strings.HasPrefix(fi.Name(), "labs") && !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() && strings.HasPrefix(fd.Name.Name, "Check") {
					out = append(out, fd.Name.Name)
				}
			}
		}
	}
	return out
}

// Every exported check of the labs has its row, and every row a check.
func TestEveryLabCheckHasItsCases(t *testing.T) {
	rows := checkRows(t)
	got := exportedChecks(t)
	if len(got) < 20 {
		t.Fatalf("found %d exported checks; the parse stopped seeing them", len(got))
	}
	seen := map[string]bool{}
	for _, n := range got {
		seen[n] = true
		if _, ok := rows[n]; !ok {
			t.Errorf("%s has no row in checkRows: type its right answers and the wrong answers it anticipates", n)
		}
	}
	for n := range rows {
		if !seen[n] {
			t.Errorf("row %s: no such exported check", n)
		}
	}
}

// A check passed a prediction that is not written yet shows nothing: it
// reads no run (the lab's directory is empty, the runs are nil: reading
// one would stop the test) and compares nothing; it says why, as
// nb.Guessed does. The checks that read their answer only (08's, 10's
// interval checks, the exercises) show their unset line instead, in
// TestUnsetAnswersShowNoValue.
func TestChecksShowNothingBeforeThePrediction(t *testing.T) {
	type pred struct{ A nb.Guess }
	unset := pred{}
	empty := labInEmptyDir(t)
	for name, check := range map[string]func() bool{
		"CheckClosedLoopRate":    func() bool { return CheckClosedLoopRate(unset, nb.Unset, empty) },
		"CheckOpenQueueGrows":    func() bool { return CheckOpenQueueGrows(unset, nb.Undecided, empty) },
		"CheckOpenTimeouts":      func() bool { return CheckOpenTimeouts(unset, nb.Undecided, empty) },
		"CheckBusyShowsWhoWaits": func() bool { return CheckBusyShowsWhoWaits(unset, nb.Undecided, empty) },
		"CheckFirstSlower":       func() bool { return CheckFirstSlower(nb.Undecided, nil) },
		"CheckCacheShare":        func() bool { return CheckCacheShare(nb.Unset, empty) },
		"CheckLongerTimes":       func() bool { return CheckLongerTimes(nb.Unset, empty) },
		"CheckGapLonger":         func() bool { return CheckGapLonger(nb.Undecided, nil) },
		"CheckFourTimes":         func() bool { return CheckFourTimes(nb.Undecided, nil) },
		"CheckTokensSeparate":    func() bool { return CheckTokensSeparate(nb.Undecided, nil) },
		"CheckEasyPass":          func() bool { return CheckEasyPass(nb.Unset, nil) },
		"CheckGapSmall":          func() bool { return CheckGapSmall(nb.Undecided, nil) },
		"CheckShortMeets":        func() bool { return CheckShortMeets(unset, nb.Undecided, nil, capacity.Config{}) },
		"CheckAboveSatMeets":     func() bool { return CheckAboveSatMeets(unset, nb.Undecided, empty, capacity.Config{}) },
		"CheckBusyGapAtAnswer":   func() bool { return CheckBusyGapAtAnswer(unset, nb.Undecided, empty, capacity.Config{}) },
		"CheckEngineBusyHigh":    func() bool { return CheckEngineBusyHigh(unset, nb.Undecided, empty) },
	} {
		var ok bool
		out, err := capture.Stdout(func() { ok = check() })
		if err != nil {
			t.Fatal(err)
		}
		if ok || strings.Contains(out, "，计算结果") || strings.Contains(out, "一致") || !strings.Contains(out, "要等你写下") || strings.Count(out, "\n") != 1 {
			t.Errorf("%s with its prediction unwritten: %v\n%s\nwant only the reminder to predict first", name, ok, out)
		}
	}
}

// The checks that read only their own answer show its unset line, never
// the computed value, while it is unset (the cells had no gate either).
func TestUnsetAnswersShowNoValue(t *testing.T) {
	unit := unitTrace(t)
	for name, check := range map[string]func() bool{
		"CheckP95HasUpper": func() bool { return CheckP95HasUpper(nb.Undecided, unit) },
		"CheckNeedN":       func() bool { return CheckNeedN(nb.Unset, unit) },
		"CheckNeed95":      func() bool { return CheckNeed95(nb.Unset) },
		"goodputShare":     func() bool { return goodputShare(nb.Unset, 0.806) },
		"ttftMoves":        func() bool { return ttftMoves(nb.Undecided, false) },
		"thinkTimeRate":    func() bool { return thinkTimeRate(nb.Unset, 3.96, 7.8) },
		"qualityDrops":     func() bool { return qualityDrops(nb.Unset, 8) },
	} {
		var ok bool
		out, err := capture.Stdout(func() { ok = check() })
		if err != nil {
			t.Fatal(err)
		}
		if ok || strings.Contains(out, "，计算结果") || !strings.Contains(out, "未填") {
			t.Errorf("%s with its answer unset: %v\n%s", name, ok, out)
		}
	}
}

// labInEmptyDir is a lab whose runs directory holds nothing: a check that
// read a run there would stop the test.
func labInEmptyDir(t *testing.T) lab.Lab {
	return lab.Lab{Dir: t.TempDir()}
}
