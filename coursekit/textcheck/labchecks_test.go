package textcheck

import (
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The checks of labs 07–10 live in coursekit/unit01, one exported function
// per check (issue 33, seventh review: the hint tables in the check cells
// put the answers on screen for anyone scrolling). A learner cell calls
// unit01.CheckX(…) with its answer; the function's verdicts and hints are
// typed right and wrong answers in coursekit/unit01's own test, which
// fails when an exported check has no cases. This file ties the cells to
// those functions.

// unit01Dir is the package of the labs' checks.
var unit01Dir = filepath.Join(repo, "coursekit", "unit01")

// isUnit01Check reports whether a call is unit01.Check…(…).
func isUnit01Check(call *ast.CallExpr) (string, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !isIdent(sel.X, "unit01") || !strings.HasPrefix(sel.Sel.Name, "Check") || len(call.Args) == 0 {
		return "", false
	}
	return sel.Sel.Name, true
}

// unit01AnswerArg is the learner's answer a unit01 check is passed: the
// argument after the whole prediction (prediction, prediction.Field, …),
// else the first.
func unit01AnswerArg(call *ast.CallExpr) ast.Expr {
	if len(call.Args) > 1 {
		if id, ok := call.Args[0].(*ast.Ident); ok {
			if sel, ok := call.Args[1].(*ast.SelectorExpr); ok && isIdent(sel.X, id.Name) {
				return call.Args[1]
			}
		}
	}
	return call.Args[0]
}

// withUnit01Checks is a cell's source followed by the source of every
// unit01 check it calls: what the cell runs, for rules that look for a
// helper the check must go through.
func withUnit01Checks(t *testing.T, src string, funcs map[string]checkFunc) string {
	for _, m := range unit01CheckCall.FindAllStringSubmatch(src, -1) {
		src += "\n" + funcs[m[1]].text
	}
	return src
}

var unit01CheckCall = regexp.MustCompile(`\bunit01\.(Check\w+)\(`)

// Every unit01 check a cell of 07–10 calls exists, has its cases in
// coursekit/unit01's test (checkRows), and is called once: one check, one
// call. Every exported check is called by some cell.
func TestLabChecksAreUnit01FunctionsWithCases(t *testing.T) {
	funcs := unit01Funcs(t)
	cases, err := os.ReadFile(filepath.Join(unit01Dir, "checks_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	called := map[string]string{}
	for _, c := range unitCode(t) {
		if !labCell.MatchString(c.where) {
			continue // 02–05's checks have their cases in unit01_test.go
		}
		for _, m := range unit01CheckCall.FindAllStringSubmatch(c.source, -1) {
			name := m[1]
			if prev, ok := called[name]; ok {
				t.Errorf("%s: unit01.%s is called again (first in %s): one check, one call", c.where, name, prev)
			}
			called[name] = c.where
			if _, ok := funcs[name]; !ok {
				t.Errorf("%s: unit01.%s does not exist", c.where, name)
			}
			if !strings.Contains(string(cases), `"`+name+`":`) {
				t.Errorf("%s: unit01.%s has no row of typed answers in coursekit/unit01/checks_test.go", c.where, name)
			}
		}
	}
	for name, f := range funcs { // 02–05's checks (not in labs*.go): unit01checks_test.go
		if strings.HasPrefix(f.file, "labs") && ast.IsExported(name) && strings.HasPrefix(name, "Check") && called[name] == "" {
			t.Errorf("unit01.%s is called by no cell of 07–10", name)
		}
	}
	if len(called) < 20 {
		t.Errorf("found %d unit01 checks in the lab cells; the rule stopped seeing them", len(called))
	}
}

// labCell is where a cell of 07–10 is.
var labCell = regexp.MustCompile(`/(0[789]|10)-`)

// labHint is a hint table of nb's check helpers written in a cell.
var labHint = regexp.MustCompile(`\bnb\.(If|IfAbove|IfBelow|IfNear|Otherwise)\(`)

// No learner cell of 07–10 holds a check's hints: they name the answers
// (10's "≈ 71.9…向上取整"), readable by anyone scrolling past. The checks
// are unit01 functions (above).
func TestLabCellsHoldNoHintTables(t *testing.T) {
	seen := 0
	for _, c := range notebookCells(t) {
		if c.kind != "code" || !labCell.MatchString(c.where) {
			continue
		}
		seen++
		if m := labHint.FindString(c.source); m != "" {
			t.Errorf("%s: %s…: a check's hints in a learner cell show its answers; move the check into coursekit/unit01", c.where, m)
		}
	}
	if seen < 50 {
		t.Errorf("read %d code cells of 07–10", seen)
	}
}

// The rule above finds the hint tables main's 07–10 had.
func TestLabHintRuleFindsMainsHintTables(t *testing.T) {
	for _, src := range []string{
		`nb.Compare("P95 的区间有上界至少要的样本数", prediction.NeedN, ci.NeedNHigh, nb.If(71, "ln 0.025 ÷ ln 0.95 ≈ 71.9，样本数要向上取整"))`,
		`nb.CompareWithin("闭环", prediction.ClosedPerS, closed.CycleRate(), 0.1, nb.IfAbove(closed.CycleRate(), "空载"))`,
		`nb.CompareWithin("练习 1", littleAnswer, x, 0.05, nb.Otherwise("λ = U / (W + Z)"))`,
	} {
		if !labHint.MatchString(src) {
			t.Errorf("the rule misses %q", src)
		}
	}
	if labHint.MatchString(`unit01.CheckNeedN(prediction.NeedN, unit)`) {
		t.Error("the rule flags a unit01 check")
	}
}

// A check's arguments are evaluated before the check's own gate: a cell
// that hands it a saved run (experiment.Load) reads that run even while
// the prediction is blank, and stops with "no run named …" when the
// experiment above was itself gated (09's experiment 6 did, which failed
// the committed notebook's execution). Such a cell gates first.
func TestLoadedRunsAreReadAfterTheGate(t *testing.T) {
	loadArg := regexp.MustCompile(`\bunit01\.Check\w+\([^\n]*\.Load\(`)
	seen := 0
	for _, c := range notebookCells(t) {
		if c.kind != "code" || !loadArg.MatchString(c.source) {
			continue
		}
		seen++
		if i, j := strings.Index(c.source, "nb.Guessed("), loadArg.FindStringIndex(c.source)[0]; i < 0 || i > j {
			t.Errorf("%s: a saved run is loaded for a unit01 check before the prediction's gate: gate first (if !nb.Guessed(…) { return })", c.where)
		}
	}
	if seen == 0 {
		t.Error("found no unit01 check given a loaded run: the rule stopped seeing them")
	}
}
