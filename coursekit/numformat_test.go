package coursekit_test

import (
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// floatVerb is a format verb that writes a float: %f, %.1f, %+.2f, %g, %e.
var floatVerb = regexp.MustCompile(`%[-+#0]*[0-9]*(\.[0-9]+)?[fgeFGE]`)

// One number formatter: the views of a summary (the card's text and
// Markdown, the report and every chart, the capacity search's text, the
// notebooks' tables and the labs, the import's comparison) write numbers
// through coursekit/internal/numfmt, never with a float verb or
// strconv.FormatFloat of their own, so one number reads the same in each.
func TestViewsFormatNumbersThroughNumfmt(t *testing.T) {
	views := []string{"coursekit/cardfmt", "coursekit/charts", "coursekit/nb", "coursekit/lab", "coursekit/importer/compare"}
	files := map[string]bool{"coursekit/cmd/coursekit/capacity.go": true, "coursekit/cmd/coursekit/report.go": true}
	checked := 0
	for _, g := range moduleFiles(t) {
		in := files[g.path]
		for _, v := range views {
			in = in || g.pkg == v || strings.HasPrefix(g.pkg, v+"/")
		}
		if !in {
			continue
		}
		checked++
		ast.Inspect(g.f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if x.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(x.Value)
				if err != nil {
					return true
				}
				if v := floatVerb.FindString(strings.ReplaceAll(s, "%%", "")); v != "" {
					t.Errorf("%s: formats a number with %q: write it with numfmt (Num, MS, Exact, Fixed, Pct, Measure…)", g.fset.Position(x.Pos()), v)
				}
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "strconv" && (x.Sel.Name == "FormatFloat" || x.Sel.Name == "AppendFloat") {
					t.Errorf("%s: strconv.%s: write the number with numfmt", g.fset.Position(x.Pos()), x.Sel.Name)
				}
			}
			return true
		})
	}
	if checked < 20 {
		t.Fatalf("only %d view files found: the walk is wrong", checked)
	}
}
