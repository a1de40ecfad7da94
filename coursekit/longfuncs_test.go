package coursekit_test

import (
	"go/ast"
	"testing"
)

// Long functions as named steps (flags → options → run, read → pick →
// build, as vegeta's attackCmd → attack(opts)): the importers' Import,
// bench's and grade's commands and loadgen.Run only compose their steps,
// and no step in their files is long enough to hide another.
func TestLongFunctionsAreNamedSteps(t *testing.T) {
	const composeMax, stepMax = 40, 100
	composers := map[string]string{ // file → the function that composes its steps
		"coursekit/importer/aiperf/aiperf.go":               "Import",
		"coursekit/importer/vllm/vllm.go":                   "Import",
		"coursekit/importer/guidellm/guidellm.go":           "Import",
		"coursekit/importer/genaiperf/genaiperf.go":         "Import",
		"coursekit/importer/llmperf/llmperf.go":             "Import",
		"coursekit/importer/inferenceperf/inferenceperf.go": "Import",
		"coursekit/cmd/coursekit/bench.go":                  "cmdBench",
		"coursekit/cmd/coursekit/grade.go":                  "cmdGrade",
		"coursekit/loadgen/loadgen.go":                      "Run",
	}
	seen := 0
	for _, g := range moduleFiles(t) {
		composer, ok := composers[g.path]
		if !ok {
			continue
		}
		for _, d := range g.f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			lines := g.fset.Position(fd.End()).Line - g.fset.Position(fd.Pos()).Line + 1
			switch {
			case fd.Recv == nil && fd.Name.Name == composer:
				seen++
				if lines > composeMax {
					t.Errorf("%s: %s is %d lines: it should only compose named steps (at most %d lines)", g.fset.Position(fd.Pos()), composer, lines, composeMax)
				}
			case lines > stepMax:
				t.Errorf("%s: %s is %d lines: split it into named steps (at most %d lines)", g.fset.Position(fd.Pos()), fd.Name.Name, lines, stepMax)
			}
		}
	}
	if seen != len(composers) {
		t.Errorf("found %d of the %d composing functions: a file or function was renamed", seen, len(composers))
	}
}
