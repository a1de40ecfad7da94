package coursekit_test

import (
	"go/ast"
	"go/token"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/internal/gosrc"
)

const modPath = "github.com/llmperf-course/course/"

// goFile is one Go file of the module, parsed.
type goFile struct {
	path string // relative to the repository
	pkg  string // import path below the module, e.g. coursekit/cmd/coursekit
	f    *ast.File
	fset *token.FileSet
}

// moduleFiles parses the module's non-test Go files.
func moduleFiles(t *testing.T) []goFile {
	t.Helper()
	return walkModuleFiles(t, false)
}

// walkModuleFiles parses the module's Go files outside testdata, its _test.go
// files too if tests is set.
func walkModuleFiles(t *testing.T, tests bool) []goFile {
	t.Helper()
	files, err := gosrc.Parse("..", tests)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]goFile, 0, len(files))
	for _, f := range files {
		out = append(out, goFile{path: f.Path, pkg: path.Dir(f.Path), f: f.AST, fset: f.Fset})
	}
	return out
}

// importName is the name a file uses for the module package pkg ("" if it
// does not import it).
func importName(f *ast.File, pkg string) string {
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if p != modPath+pkg {
			continue
		}
		if im.Name != nil {
			return im.Name.Name
		}
		return pkg[strings.LastIndex(pkg, "/")+1:]
	}
	return ""
}

// uses calls visit for every selector pkg.Name the file makes of the
// module package pkg, with the function declaration it is in ("" at the
// top level).
func uses(g goFile, pkg string, visit func(name, fn string, pos token.Position)) {
	local := importName(g.f, pkg)
	if local == "" {
		return
	}
	for _, decl := range g.f.Decls {
		fn := ""
		if fd, ok := decl.(*ast.FuncDecl); ok {
			fn = fd.Name.Name
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
					visit(sel.Sel.Name, fn, g.fset.Position(sel.Pos()))
				}
			}
			return true
		})
	}
}

// One summary per command: only coursekit/cardopts turns a trace into a
// metrics.Summary (it is where flags meet the trace's recorded
// conditions); each command of the CLI summarizes in one place; and no
// view holds a qualification rule of its own: labels, tables, funnels and
// the grader ask a condition's metrics.Rule (or metrics.RuleAt, the
// rule of a TTFT SLO alone), never build one, and never use
// metrics.Judge.
func TestOneSummaryPerCommandAndOneRule(t *testing.T) {
	summarize := map[string]bool{"Summarize": true, "SummarizeFile": true, "SummarizeReader": true, "SummarizeStream": true, "NewAccumulator": true}
	perFunc := map[string]int{} // cmd/coursekit function → cardopts summaries
	for _, g := range moduleFiles(t) {
		if g.pkg == "coursekit/metrics" {
			continue
		}
		uses(g, "coursekit/metrics", func(name, fn string, pos token.Position) {
			switch {
			case summarize[name] && g.pkg != "coursekit/cardopts":
				t.Errorf("%s: metrics.%s outside coursekit/cardopts: summarize through cardopts, so that flags and the trace's conditions are read one way", pos, name)
			case name == "Judge":
				t.Errorf("%s: metrics.%s: a view judges with its condition's rule (Condition.Rule, or RuleAt for a TTFT SLO alone), never its own", pos, name)
			}
		})
		if g.pkg == "coursekit/cmd/coursekit" {
			uses(g, "coursekit/cardopts", func(name, fn string, pos token.Position) {
				if strings.Contains(name, "Summarize") {
					perFunc[fn]++
					if perFunc[fn] > 1 {
						t.Errorf("%s: %s summarizes a second time: a command computes one summary and every view reads it", pos, fn)
					}
				}
			})
		}
		// A composite literal metrics.Rule{...} builds a rule.
		local := importName(g.f, "coursekit/metrics")
		ast.Inspect(g.f, func(n ast.Node) bool {
			if cl, ok := n.(*ast.CompositeLit); ok {
				if sel, ok := cl.Type.(*ast.SelectorExpr); ok && local != "" {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == local && sel.Sel.Name == "Rule" {
						t.Errorf("%s: builds a metrics.Rule of its own", g.fset.Position(cl.Pos()))
					}
				}
			}
			return true
		})
	}
	for _, cmd := range []string{"cmdCard", "cmdReport", "cmdImport"} {
		if perFunc[cmd] != 1 {
			t.Errorf("%s summarizes %d times, want once", cmd, perFunc[cmd])
		}
	}
}
