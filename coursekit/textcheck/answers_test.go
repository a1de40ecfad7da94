package textcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/internal/capture"
	"github.com/llmperf-course/course/coursekit/nb"
)

// The answers test: every prediction and exercise check of the unit's
// notebooks is found in the notebooks themselves (the calls of nb's check
// helpers), run as the cell calls it (its label, its tolerance, its hints,
// read from the cell), and typed each right answer in the forms its text
// accepts and each wrong answer the notebook anticipates. A right answer
// must agree; an anticipated wrong one must disagree and be told its own
// hint, never the generic "回到上面的推理". The cases are in
// answers_cases_test.go; this file finds the checks and runs them.

// checkHelpers are nb's check helpers a learner's answer goes through.
var checkHelpers = []string{"Compare", "CompareWithin", "CompareDecimals", "CompareFactor", "CompareGives", "CheckObservation", "Recomputable", "SelfCheck"}

// answerCheck is one call of a check helper in a notebook cell.
type answerCheck struct {
	where, file string
	fn          string // the helper: Compare, CompareWithin, …
	label       string // the check's first argument (its printed label), or fn
	call        *ast.CallExpr
	src         string            // the cell as parsed
	strs        map[string]string // the cell's own string variables (stay := "…")
}

func (c answerCheck) text(e ast.Expr) string {
	return c.src[e.Pos()-1 : e.End()-1]
}

// answerArg is the argument the learner's answer is passed as.
func (c answerCheck) answerArg() ast.Expr {
	if strings.HasPrefix(c.fn, "unit01.") {
		return unit01AnswerArg(c.call)
	}
	switch c.fn {
	case "CheckObservation", "SelfCheck":
		return c.call.Args[0]
	case "Recomputable":
		return c.call.Args[len(c.call.Args)-1]
	}
	return c.call.Args[1]
}

// answerName is the prediction or answer variable (or field) the check
// reads: prediction.TTFTMS, need95, myCard.
func (c answerCheck) answerName() string {
	return strings.TrimPrefix(c.text(c.answerArg()), "&")
}

// cellGo makes a GoNB cell parseable Go: %% opens the body of main (it
// runs to the end of the cell), other magic lines are blanked.
func cellGo(src string) string {
	var b strings.Builder
	b.WriteString("package cell\n")
	body := false
	for _, line := range strings.Split(src, "\n") {
		switch {
		case strings.TrimSpace(line) == "%%":
			b.WriteString("func main() {")
			body = true
		case strings.HasPrefix(line, "%") || strings.HasPrefix(line, "!"):
		default:
			b.WriteString(line)
		}
		b.WriteString("\n")
	}
	if body {
		b.WriteString("}\n")
	}
	return b.String()
}

// answerSlot is one thing a learner writes: a field of a prediction
// struct (prediction.TTFTMS), or a whole variable (need95, myCard), with
// its Go type.
type answerSlot struct {
	name, typ, where string
}

// unitChecks parses every code cell of the unit's notebooks and returns
// the check calls and the answer slots, by notebook file name.
func unitChecks(t *testing.T) (calls []answerCheck, slots map[string][]answerSlot) {
	t.Helper()
	files, by := byNotebook(withChecks(t, unitCode(t)))
	slots = map[string][]answerSlot{}
	for _, f := range files {
		file := f[strings.LastIndex(f, "/")+1:]
		structs := map[string][]answerSlot{} // named struct types: their fields
		type learnerVar struct {
			spec  *ast.ValueSpec
			src   string
			where string
		}
		var vars []learnerVar
		for _, c := range by[f] {
			src := cellGo(c.source)
			fset := token.NewFileSet()
			af, err := parser.ParseFile(fset, "", src, 0)
			if err != nil {
				t.Errorf("%s: cannot parse the cell as Go: %v", c.where, err)
				continue
			}
			for _, d := range af.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok {
					continue
				}
				for _, s := range gd.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if st, ok := s.Type.(*ast.StructType); ok {
							structs[s.Name.Name] = fieldSlots(st, src, "", c.where)
						}
					case *ast.ValueSpec:
						if gd.Tok == token.VAR {
							vars = append(vars, learnerVar{s, src, c.where})
						}
					}
				}
			}
			strs := map[string]string{}
			ast.Inspect(af, func(n ast.Node) bool {
				if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
					id, iok := as.Lhs[0].(*ast.Ident)
					lit, lok := as.Rhs[0].(*ast.BasicLit)
					if iok && lok && lit.Kind == token.STRING {
						strs[id.Name], _ = strconv.Unquote(lit.Value)
					}
				}
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if name, ok := isUnit01Check(call); ok { // a lab's check: its cases are coursekit/unit01's (labchecks_test.go)
					calls = append(calls, answerCheck{where: c.where, file: file, fn: "unit01." + name, label: name, call: call, src: src, strs: strs})
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || !isIdent(sel.X, "nb") || !slices.Contains(checkHelpers, sel.Sel.Name) {
					return true
				}
				cc := answerCheck{where: c.where, file: file, fn: sel.Sel.Name, label: sel.Sel.Name, call: call, src: src, strs: strs}
				if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.HasPrefix(cc.fn, "Compare") {
					cc.label, _ = strconv.Unquote(lit.Value)
				}
				calls = append(calls, cc)
				return true
			})
		}
		read := map[string]bool{}
		for _, cc := range calls {
			if cc.file == file {
				read[cc.answerName()] = true
			}
		}
		for _, v := range vars {
			init := ""
			for _, e := range v.spec.Values {
				init += v.src[e.Pos()-1 : e.End()-1]
			}
			for _, id := range v.spec.Names {
				learner := read[id.Name] || strings.Contains(init, "nb.Unset") || strings.Contains(init, "nb.Undecided") || strings.Contains(init, `"?"`)
				if !learner {
					continue
				}
				slots[file] = append(slots[file], varSlots(id.Name, v.spec, v.src, structs, v.where)...)
			}
		}
	}
	return calls, slots
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// fieldSlots are a struct type's fields as slots prefix.Field.
func fieldSlots(st *ast.StructType, src, prefix, where string) []answerSlot {
	var out []answerSlot
	for _, fl := range st.Fields.List {
		typ := src[fl.Type.Pos()-1 : fl.Type.End()-1]
		for _, n := range fl.Names {
			out = append(out, answerSlot{prefix + n.Name, typ, where})
		}
	}
	return out
}

// varSlots are the slots of one learner variable: its fields when it is a
// struct (named in the notebook or written inline), else itself.
func varSlots(name string, spec *ast.ValueSpec, src string, structs map[string][]answerSlot, where string) []answerSlot {
	typ := spec.Type
	if typ == nil && len(spec.Values) == 1 {
		switch v := spec.Values[0].(type) {
		case *ast.CompositeLit:
			typ = v.Type
		case *ast.SelectorExpr:
			if isIdent(v.X, "nb") && v.Sel.Name == "Undecided" {
				return []answerSlot{{name, "nb.Guess", where}}
			}
		}
	}
	switch x := typ.(type) {
	case *ast.StructType:
		return fieldSlots(x, src, name+".", where)
	case *ast.Ident:
		if fields, ok := structs[x.Name]; ok {
			var out []answerSlot
			for _, f := range fields {
				out = append(out, answerSlot{name + "." + f.name, f.typ, where})
			}
			return out
		}
	}
	t := ""
	if typ != nil {
		t = src[typ.Pos()-1 : typ.End()-1]
	}
	return []answerSlot{{name, t, where}}
}

// answerRow is the cases of one check, keyed by its notebook and label.
type answerRow struct {
	file, label string
	// actual is the computed value's argument as the cell writes it
	// (CompareGives: the result the answer gives). The row's values give
	// it, so the test fails when the cell computes something else.
	actual string
	// values are the expressions of the call the test cannot read off the
	// cell (what it computes), each computed here with the helper the cell
	// calls, or, for a live run, a plausible reading. A func(answer any)
	// any is a value computed from the learner's answer (CompareGives).
	values map[string]any
	// judge runs a check that is not a Compare (CheckObservation,
	// Recomputable, SelfCheck): whether it passes the answer, and what it
	// printed.
	judge func(t *testing.T, answer any) (bool, string)
	cases []answerCase
}

// answerCase is one answer typed into a check: right, or an anticipated
// wrong answer with (a few words of) its own hint.
type answerCase struct {
	answer any
	right  bool
	hint   string
	// pending marks an anticipated mistake whose notebook does not give it
	// a hint yet (a notebook being edited elsewhere): it must be wrong and,
	// until the hint comes, gets the generic line. When the hint is there,
	// the case fails and becomes a wrong one.
	pending bool
}

// right are answers the check must accept; wrong is one it must reject
// with the hint that has the given words.
func right(answers ...any) []answerCase {
	var out []answerCase
	for _, a := range answers {
		out = append(out, answerCase{answer: a, right: true})
	}
	return out
}

func wrong(answer any, hint string) answerCase { return answerCase{answer: answer, hint: hint} }

// pending is a wrong answer the notebook anticipates, not yet told its own
// hint (the words the hint is to have); see answerCase.pending.
func pending(answer any, hint string) answerCase {
	return answerCase{answer: answer, hint: hint, pending: true}
}

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

// genericHint is the line a wrong answer gets when no hint of its own
// matches (nb's fallback).
const genericHint = "回到上面的推理"

// printedBy captures what f prints.
func printedBy(t *testing.T, f func()) string {
	t.Helper()
	out, err := capture.Stdout(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// typed is the answer as the learner's slot holds it: an int slot takes a
// whole number only, a float64 slot any number, nb.Guess only nb.Yes or
// nb.No, a string a string. An answer the slot cannot hold is a case the
// learner cannot type (a compile error), so the row is wrong.
func typed(answer any, typ string) (any, error) {
	switch typ {
	case "float64":
		switch a := answer.(type) {
		case int:
			return float64(a), nil
		case float64:
			return a, nil
		}
	case "int":
		switch a := answer.(type) {
		case int:
			return a, nil
		case float64:
			if a == math.Trunc(a) {
				return int(a), nil
			}
		}
	case "nb.Guess":
		if g, ok := answer.(nb.Guess); ok && (g == nb.Yes || g == nb.No) {
			return g, nil
		}
	case "string":
		if s, ok := answer.(string); ok {
			return s, nil
		}
	default:
		return answer, nil
	}
	return nil, fmt.Errorf("a %s answer cannot be %T %v", typ, answer, answer)
}

// eval is the value of an argument of c: the row's value for its text, a
// literal, a constant expression of literals, nb.Yes/No, or a string the
// cell assigned.
func (c answerCheck) eval(e ast.Expr, values map[string]any, answer any) (any, error) {
	if v, ok := values[c.text(e)]; ok {
		if f, ok := v.(func(any) any); ok {
			if answer == nil { // only asked whether there is a value
				return nil, nil
			}
			return f(answer), nil
		}
		return v, nil
	}
	switch x := e.(type) {
	case *ast.BasicLit:
		switch x.Kind {
		case token.INT:
			return strconv.Atoi(x.Value)
		case token.FLOAT:
			return strconv.ParseFloat(x.Value, 64)
		case token.STRING:
			return strconv.Unquote(x.Value)
		}
	case *ast.Ident:
		switch x.Name {
		case "true", "false":
			return x.Name == "true", nil
		}
		if s, ok := c.strs[x.Name]; ok {
			return s, nil
		}
	case *ast.SelectorExpr:
		if isIdent(x.X, "nb") {
			switch x.Sel.Name {
			case "Yes":
				return nb.Yes, nil
			case "No":
				return nb.No, nil
			}
		}
	case *ast.ParenExpr:
		return c.eval(x.X, values, answer)
	case *ast.UnaryExpr:
		v, err := c.eval(x.X, values, answer)
		if err != nil || x.Op != token.SUB {
			break
		}
		switch v := v.(type) {
		case int:
			return -v, nil
		case float64:
			return -v, nil
		}
	case *ast.BinaryExpr:
		a, err1 := c.eval(x.X, values, answer)
		b, err2 := c.eval(x.Y, values, answer)
		if err1 != nil || err2 != nil {
			break
		}
		ai, aInt := a.(int)
		bi, bInt := b.(int)
		if aInt && bInt && x.Op != token.QUO {
			switch x.Op {
			case token.ADD:
				return ai + bi, nil
			case token.SUB:
				return ai - bi, nil
			case token.MUL:
				return ai * bi, nil
			}
		}
		af, aok := asFloat(a)
		bf, bok := asFloat(b)
		if aok && bok {
			switch x.Op {
			case token.ADD:
				return af + bf, nil
			case token.SUB:
				return af - bf, nil
			case token.MUL:
				return af * bf, nil
			case token.QUO:
				if aInt && bInt {
					return ai / bi, nil
				}
				return af / bf, nil
			}
		}
	}
	return nil, fmt.Errorf("no value for %s: give it in the row's values", c.text(e))
}

func asFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case *float64:
		if v != nil {
			return *v, true
		}
	}
	return 0, false
}

// hints evaluates the hint arguments of a Compare call (nb.If, nb.IfAbove,
// nb.IfBelow, nb.Otherwise) and returns them with their texts.
func (c answerCheck) hints(args []ast.Expr, values map[string]any) ([]nb.Hint, []string, error) {
	var hs []nb.Hint
	var texts []string
	for _, a := range args {
		call, ok := a.(*ast.CallExpr)
		sel, sok := (*ast.SelectorExpr)(nil), false
		if ok {
			sel, sok = call.Fun.(*ast.SelectorExpr)
		}
		if !sok || !isIdent(sel.X, "nb") {
			return nil, nil, fmt.Errorf("%s is not an nb hint", c.text(a))
		}
		var vs []any
		for _, x := range call.Args {
			v, err := c.eval(x, values, nil)
			if err != nil {
				return nil, nil, err
			}
			vs = append(vs, v)
		}
		text, _ := vs[len(vs)-1].(string)
		switch sel.Sel.Name {
		case "If":
			hs = append(hs, nb.If(vs[0], text))
		case "IfAbove", "IfBelow":
			bound, ok := asFloat(vs[0])
			if !ok {
				return nil, nil, fmt.Errorf("%s: the bound is not a number", c.text(a))
			}
			if sel.Sel.Name == "IfAbove" {
				hs = append(hs, nb.IfAbove(bound, text))
			} else {
				hs = append(hs, nb.IfBelow(bound, text))
			}
		case "IfNear":
			near, ok1 := asFloat(vs[0])
			tol, ok2 := asFloat(vs[1])
			if !ok1 || !ok2 {
				return nil, nil, fmt.Errorf("%s: the value or tolerance is not a number", c.text(a))
			}
			hs = append(hs, nb.IfNear(near, tol, text))
		case "Otherwise":
			hs = append(hs, nb.Otherwise(text))
		default:
			return nil, nil, fmt.Errorf("%s is not an nb hint", c.text(a))
		}
		texts = append(texts, text)
	}
	return hs, texts, nil
}

// compareJudge runs a Compare call of the cell with answer in place of the
// learner's: the label, the tolerance and the hints are the cell's.
func (c answerCheck) compareJudge(row answerRow, typ string) (judge func(t *testing.T, answer any) (bool, string), hintTexts []string, err error) {
	args := c.call.Args
	label, err := c.eval(args[0], row.values, nil)
	if err != nil {
		return nil, nil, err
	}
	what, _ := label.(string)
	// The arguments before the hints: what, answer, actual and, by helper,
	// the tolerance, the decimals, the factor, or gives, got and want.
	fixed := map[string]int{"Compare": 3, "CompareWithin": 4, "CompareDecimals": 4, "CompareFactor": 4, "CompareGives": 5}[c.fn]
	if len(args) < fixed {
		return nil, nil, fmt.Errorf("%s has %d arguments", c.fn, len(args))
	}
	hs, texts, err := c.hints(args[fixed:], row.values)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range args[2:fixed] {
		if _, err := c.eval(e, row.values, nil); err != nil {
			return nil, nil, err
		}
	}
	return func(t *testing.T, answer any) (bool, string) {
		a, err := typed(answer, typ)
		if err != nil {
			t.Fatalf("%s: %v", c.label, err)
		}
		v := func(i int) any {
			x, err := c.eval(args[i], row.values, a)
			if err != nil {
				t.Fatal(err)
			}
			return x
		}
		num := func(i int) float64 {
			f, ok := asFloat(v(i))
			if !ok {
				t.Fatalf("%s: %s is not a number", c.label, c.text(args[i]))
			}
			return f
		}
		var ok bool
		out := printedBy(t, func() {
			switch c.fn {
			case "Compare":
				ok = nb.Compare(what, a, v(2), hs...)
			case "CompareWithin":
				ok = nb.CompareWithin(what, a, v(2), num(3), hs...)
			case "CompareDecimals":
				ok = nb.CompareDecimals(what, a, v(2), int(num(3)), hs...)
			case "CompareFactor":
				ok = nb.CompareFactor(what, a, v(2), num(3), hs...)
			case "CompareGives":
				gives, _ := v(2).(string)
				ok = nb.CompareGives(what, a, gives, v(3), v(4), hs...)
			}
		})
		return ok, out
	}, texts, nil
}

func TestEveryAnswerCheckTakesItsRightFormsAndNamesItsMistakes(t *testing.T) {
	calls, slots := unitChecks(t)
	rows := answerRows(t)
	byKey := map[string]*answerRow{}
	for i := range rows {
		k := rows[i].file + " " + rows[i].label
		if byKey[k] != nil {
			t.Errorf("two rows for %s", k)
		}
		byKey[k] = &rows[i]
	}
	// Every learner answer is read by a check.
	read := map[string]bool{}
	for _, c := range calls {
		read[c.file+" "+c.answerName()] = true
	}
	nslots := 0
	for file, ss := range slots {
		for _, s := range ss {
			nslots++
			if !read[file+" "+s.name] {
				t.Errorf("%s: %s is written by the learner, but no check reads it", s.where, s.name)
			}
		}
	}
	used := map[string]bool{}
	ncases := 0
	for _, c := range calls {
		if strings.HasPrefix(c.fn, "unit01.") {
			continue // typed its answers in coursekit/unit01 (TestLabChecksAreUnit01FunctionsWithCases)
		}
		key := c.file + " " + c.label
		row := byKey[key]
		if row == nil {
			t.Errorf("%s: the check nb.%s(%q, %s, …) has no row in answerRows: add its right answers and the wrong answers it anticipates", c.where, c.fn, c.label, c.answerName())
			continue
		}
		if used[key] {
			t.Errorf("%s: a second check labelled %q: give each check its own label", c.where, c.label)
			continue
		}
		used[key] = true
		t.Run(c.file[:2]+" "+c.label, func(t *testing.T) {
			ncases += runRow(t, c, *row, slots[c.file])
		})
	}
	for k := range byKey {
		if !used[k] {
			t.Errorf("row %s: no such check in the notebooks (renamed or removed?)", k)
		}
	}
	t.Logf("%d checks, %d learner answers, %d cases", len(used), nslots, ncases)
}

// runRow types each case of row into the check c and asserts its verdict
// and hint. It returns the number of cases.
func runRow(t *testing.T, c answerCheck, row answerRow, slots []answerSlot) int {
	judge := row.judge
	var hintTexts []string
	if strings.HasPrefix(c.fn, "Compare") {
		if got := c.text(c.call.Args[map[bool]int{true: 3, false: 2}[c.fn == "CompareGives"]]); got != row.actual {
			t.Fatalf("%s: the cell computes %s, the row %s: update the row's values", c.where, got, row.actual)
		}
		typ := ""
		for _, s := range slots {
			if s.name == c.answerName() {
				typ = s.typ
			}
		}
		var err error
		if judge, hintTexts, err = c.compareJudge(row, typ); err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
	}
	if judge == nil {
		t.Fatalf("%s: the row has no judge for nb.%s", c.where, c.fn)
	}
	var rights, wrongs int
	told := map[string]bool{}
	for _, k := range row.cases {
		ok, out := judge(t, k.answer)
		name := fmt.Sprintf("%#v", k.answer)
		if g, ok := k.answer.(nb.Guess); ok {
			name = "nb." + map[nb.Guess]string{nb.Yes: "Yes", nb.No: "No"}[g]
		}
		if k.right {
			rights++
			if !ok || strings.Contains(out, "✗") {
				t.Errorf("%s: the right answer %s is marked wrong:\n%s", c.where, name, out)
			}
			continue
		}
		wrongs++
		if ok {
			t.Errorf("%s: the wrong answer %s passes:\n%s", c.where, name, out)
		}
		if k.pending {
			if !strings.Contains(out, genericHint) {
				t.Errorf("%s: the pending mistake %s now has a hint of its own: make its case wrong(…, %q):\n%s", c.where, name, k.hint, out)
			} else {
				t.Logf("%s: %s still gets the generic hint (pending: a hint about %q)", c.where, name, k.hint)
			}
			continue
		}
		if k.hint == "" || !strings.Contains(out, k.hint) {
			t.Errorf("%s: the wrong answer %s is not told its hint %q:\n%s", c.where, name, k.hint, out)
		}
		if strings.Contains(out, genericHint) {
			t.Errorf("%s: the anticipated wrong answer %s gets the generic hint:\n%s", c.where, name, out)
		}
		for _, h := range hintTexts {
			if strings.Contains(out, h) {
				told[h] = true
			}
		}
	}
	if rights == 0 {
		t.Errorf("%s: no right answer typed into %q", c.where, c.label)
	}
	// A yes/no prediction has one wrong answer, and asking it anticipates
	// it: both are typed.
	for _, s := range slots {
		if s.name != c.answerName() || s.typ != "nb.Guess" {
			continue
		}
		for _, g := range []nb.Guess{nb.Yes, nb.No} {
			if !slices.ContainsFunc(row.cases, func(k answerCase) bool { return k.answer == g }) {
				t.Errorf("%s: %q is a yes/no prediction: type both nb.Yes and nb.No", c.where, c.label)
			}
		}
	}
	// Each hint the cell gives is a mistake it anticipates: a case must
	// make it show.
	for _, h := range hintTexts {
		if !told[h] {
			t.Errorf("%s: no case is told the hint %q: add the wrong answer it is for", c.where, h)
		}
	}
	return rights + wrongs
}
