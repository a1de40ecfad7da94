package textcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Unit 01's checks live in package coursekit/unit01 (issue 33, the
// seventh review, finding 5): a learner cell calls unit01.CheckTimeline(
// prediction, timeline) and shows no answer in its text. The rules about
// checks (every right and anticipated wrong answer typed in, the gate,
// the labels, the helpers they use) read each such call as the check's
// body written in the cell, with the function's parameters replaced by the
// cell's arguments: the cell as it read before the checks moved. The
// rules about what a learner reads (cell length, no hints in the cell)
// read the cell as it is.

// checkFunc is a function of coursekit/unit01, as source.
type checkFunc struct {
	decl *ast.FuncDecl
	src  string // its file's source
	file string // its file's name
	text string // its own source, from func to the closing brace
}

// unit01Funcs are coursekit/unit01's functions (not its tests') by name,
// exported or not: one reading of the package for every rule about its
// checks.
func unit01Funcs(t *testing.T) map[string]checkFunc {
	t.Helper()
	funcs := map[string]checkFunc{}
	files, err := filepath.Glob(filepath.Join(unit01Dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, b, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				text := string(b[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset])
				funcs[fd.Name.Name] = checkFunc{fd, string(b), filepath.Base(p), text}
			}
		}
	}
	if len(funcs) == 0 {
		t.Fatal("no functions in coursekit/unit01")
	}
	return funcs
}

// inlined is the body of f with its parameters replaced by args (the
// cell's argument texts), as one block. A statement `x := T(param)` (the
// conversion of a prediction to the struct the check reads) is dropped and
// x read as the argument too.
func (f checkFunc) inlined(args []string) (string, error) {
	names := map[string]string{}
	i := 0
	for _, fl := range f.decl.Type.Params.List {
		for _, n := range fl.Names {
			if i >= len(args) {
				return "", fmt.Errorf("%s takes more arguments than the cell gives", f.decl.Name.Name)
			}
			names[n.Name] = args[i]
			i++
		}
	}
	if i != len(args) {
		return "", fmt.Errorf("%s takes %d arguments, the cell gives %d", f.decl.Name.Name, i, len(args))
	}
	type edit struct {
		from, to int
		with     string
	}
	var edits []edit
	for _, st := range f.decl.Body.List {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			continue
		}
		call, ok := as.Rhs[0].(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			continue
		}
		arg, aok := call.Args[0].(*ast.Ident)
		_, tok := call.Fun.(*ast.Ident)
		lhs, lok := as.Lhs[0].(*ast.Ident)
		if aok && tok && lok && names[arg.Name] != "" {
			names[lhs.Name] = names[arg.Name]
			edits = append(edits, edit{int(st.Pos()) - 1, int(st.End()) - 1, ""})
		}
	}
	skip := map[*ast.Ident]bool{}
	ast.Inspect(f.decl.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			skip[x.Sel] = true
		case *ast.KeyValueExpr:
			if id, ok := x.Key.(*ast.Ident); ok {
				skip[id] = true
			}
		case *ast.AssignStmt:
			for _, e := range edits {
				if int(x.Pos())-1 == e.from {
					return false
				}
			}
		case *ast.Ident:
			if with, ok := names[x.Name]; ok && !skip[x] {
				edits = append(edits, edit{int(x.Pos()) - 1, int(x.End()) - 1, with})
			}
		}
		return true
	})
	sort.Slice(edits, func(a, b int) bool { return edits[a].from > edits[b].from })
	body := f.src[f.decl.Body.Lbrace : f.decl.Body.Rbrace-1]
	base := int(f.decl.Body.Lbrace)
	for _, e := range edits {
		body = body[:e.from-base] + e.with + body[e.to-base:]
	}
	return "{" + body + "}", nil
}

// unit01Call is a call of a unit01 check in a cell.
var unit01Call = regexp.MustCompile(`\bunit01\.\w+\(`)

// withChecks returns the cells with each statement that calls a unit01
// function replaced by the function's body, read as the cell (see the top
// of this file). Cells that call none are returned as they are.
func withChecks(t *testing.T, cells []cell) []cell {
	t.Helper()
	out := make([]cell, len(cells))
	for i, c := range cells {
		out[i] = c
		if c.kind != "code" || !unit01Call.MatchString(c.source) || labCell.MatchString(c.where) {
			continue // the labs' checks keep their call: their cases are coursekit/unit01's (labchecks_test.go)
		}
		s, err := inlineChecks(t, c.source)
		if err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		out[i].source = s
	}
	return out
}

// inlineChecks is withChecks for one cell's source.
func inlineChecks(t *testing.T, raw string) (string, error) {
	funcs := unit01Funcs(t)
	src := cellGo(raw)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, 0)
	if err != nil {
		return "", fmt.Errorf("cannot parse the cell as Go: %w", err)
	}
	lines := strings.SplitAfter(raw, "\n")
	offset := func(p token.Pos) int {
		pos := fset.Position(p) // line 1 is cellGo's package clause
		o := 0
		for _, l := range lines[:pos.Line-2] {
			o += len(l)
		}
		return o + pos.Column - 1
	}
	type edit struct {
		from, to int
		with     string
	}
	var edits []edit
	var problem error
	ast.Inspect(f, func(n ast.Node) bool {
		es, ok := n.(*ast.ExprStmt)
		if !ok {
			if call, ok := n.(*ast.CallExpr); ok && problem == nil {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && isIdent(sel.X, "unit01") {
					problem = fmt.Errorf("unit01.%s is called inside an expression: call a check as a statement of its own", sel.Sel.Name)
				}
			}
			return true
		}
		call, ok := es.X.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !isIdent(sel.X, "unit01") {
			return true
		}
		fn, ok := funcs[sel.Sel.Name]
		if !ok {
			problem = fmt.Errorf("no function unit01.%s", sel.Sel.Name)
			return false
		}
		var args []string
		for _, a := range call.Args {
			args = append(args, src[a.Pos()-1:a.End()-1])
		}
		body, err := fn.inlined(args)
		if err != nil {
			problem = err
			return false
		}
		edits = append(edits, edit{offset(es.Pos()), offset(es.End()), body})
		return false
	})
	if problem != nil {
		return "", problem
	}
	sort.Slice(edits, func(a, b int) bool { return edits[a].from > edits[b].from })
	for _, e := range edits {
		raw = raw[:e.from] + e.with + raw[e.to:]
	}
	return raw, nil
}

// checkCells are the notebooks' cells with their unit01 checks inlined.
func checkCells(t *testing.T) []cell { return withChecks(t, notebookCells(t)) }

// hintCall is a hint of nb's check helpers.
var hintCall = regexp.MustCompile(`\bnb\.(If|IfAbove|IfBelow|Otherwise)\(`)

// checkNotebooks are 01–05: 02–05's checks live in coursekit/unit01, and
// 01's one check, nb.CheckObservation, holds no hint in its cell either.
var checkNotebooks = []string{"01-draw-the-system.ipynb", "02-client-timeline.ipynb", "03-one-trace-four-conclusions.ipynb", "04-change-one-condition.ipynb", "05-read-the-tool-docs.ipynb"}

// The seventh review (finding 5): anyone scrolling down read the answers in
// a check cell's hints ("TPOT 止于最后一个 token（950 ms）"). A learner
// cell of 01–05 holds no hint: a check of 02–05 is one call of
// coursekit/unit01.
func TestCheckCellsHoldNoHints(t *testing.T) {
	all := notebookCells(t)
	calls := 0
	for _, file := range checkNotebooks {
		for _, c := range nbCells(t, all, file) {
			if c.kind != "code" {
				continue
			}
			if m := hintCall.FindString(c.source); m != "" {
				t.Errorf("%s holds the hint %s…) of a check: its hints (and the answers they give away) belong in coursekit/unit01", c.where, m)
			}
			calls += len(unit01Call.FindAllString(c.source, -1))
		}
	}
	if calls < 15 {
		t.Errorf("only %d calls of coursekit/unit01's checks in 02–05", calls)
	}
}

// Each call of a unit01 check reads, inlined, as the cell it replaced: the
// inliner puts the cell's own names in the function's place.
func TestInlinedCheckReadsAsTheCell(t *testing.T) {
	got, err := inlineChecks(t, "%%\ndefer gonbui.Sync()\nunit01.CheckPause(prediction.PauseChangesTTFT, timeline)")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"if !nb.Guessed(prediction.PauseChangesTTFT) {", "timeline.Attempts[0].WithPause(1, 2000)", `nb.Compare("暂停之后 TTFT 变了吗", prediction.PauseChangesTTFT, ttft != before`} {
		if !strings.Contains(got, want) {
			t.Errorf("inlined 02's pause check lacks %q:\n%s", want, got)
		}
	}
	got, err = inlineChecks(t, "%%\nunit01.CheckTimeline(myGuess, timeline)")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"if !nb.Guessed(myGuess) {", "nb.Compare(\"TTFT（毫秒）\", myGuess.TTFTMS, ttft,"} {
		if !strings.Contains(got, want) {
			t.Errorf("inlined 02's timeline check lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TimelinePrediction(") {
		t.Errorf("the conversion to the check's struct is left in:\n%s", got)
	}
}

// The seventh review (finding 6): Fig. 01.3 printed "P95 线性插值（numpy
// 默认）= 1720 ms" before 03's exercise 3 asks for exactly that. 03 draws
// it with the nearest-rank P95 alone; the linear one is printed by the
// exercise's check, once the answer is written.
func TestFigure013KeepsExercise3sAnswer(t *testing.T) {
	all := checkCells(t)
	drawn := false
	for _, c := range nbCells(t, all, "03-one-trace-four-conclusions.ipynb") {
		if c.kind != "code" || !strings.Contains(c.source, `"图 01.3"`) {
			continue
		}
		drawn = true
		if !strings.Contains(c.source, "tracefig.TTFTDistributionNearestRank(unit)") {
			t.Errorf("%s draws Fig. 01.3 with the linear P95 on it, before exercise 3 asks for it: draw tracefig.TTFTDistributionNearestRank(unit)", c.where)
		}
	}
	if !drawn {
		t.Fatal("03 draws no Fig. 01.3")
	}
	unit, err := trace.ReadFile(filepath.Join(repo, "data", "unit01", "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	opt := tracefig.TTFTDistributionNearestRank(unit, charts.WithID("d")).RenderSnippet().Option
	if !strings.Contains(opt, "2000") {
		t.Error("Fig. 01.3 lacks the nearest-rank P95, 2000 ms")
	}
	for _, giveaway := range []string{"1720", "线性插值"} {
		if strings.Contains(opt, giveaway) {
			t.Errorf("Fig. 01.3 says %q: exercise 3's answer", giveaway)
		}
	}
}

// The seventh review (finding 13): 04 gave "R6 这 1/10 的 95% Wilson 区间"
// without saying what proportion 1/10 is; the eighth: the interval came
// before 10 §5 teaches it. 01–05 state no Wilson interval: where a share's
// uncertainty is raised, the sentence points to 10 第 5 节 (a Wilson
// named there still names its proportion, … 占 …).
func TestWilsonIntervalsNameTheirProportion(t *testing.T) {
	interval := regexp.MustCompile(`\d+(\.\d+)?%[–-]\d+(\.\d+)?%`)
	for _, c := range notebookCells(t) {
		if c.kind != "markdown" || !regexp.MustCompile(`unit01/0[1-5]-`).MatchString(c.where) {
			continue
		}
		for _, m := range regexp.MustCompile(`Wilson`).FindAllStringIndex(c.source, -1) {
			sentence := c.source[:m[0]]
			if k := strings.LastIndexAny(sentence, "。\n"); k >= 0 {
				sentence = sentence[k:]
			}
			rest := c.source[m[0]:]
			if k := strings.IndexAny(rest, "。\n"); k >= 0 {
				rest = rest[:k]
			}
			if !strings.Contains(sentence+rest, "10 第 5 节") {
				t.Errorf("%s: Wilson before 10 §5 teaches it: point to 10 第 5 节 instead, before %q", c.where, rest)
			}
			if !strings.Contains(sentence, "占") {
				t.Errorf("%s: a Wilson interval of no named proportion: say what falls where, of which attempts (… 占 …), before %q", c.where, rest)
			}
		}
		if m := interval.FindString(c.source); m != "" {
			t.Errorf("%s: %q: an interval of a share in 01–05; intervals are taught in 10 (§5 for a share): point there", c.where, m)
		}
	}
}
