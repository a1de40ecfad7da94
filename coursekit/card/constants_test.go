package card

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// literalConsts parses this package's non-test sources and returns every
// exported string constant a card literal can hold: untyped, or of type
// Layer or Task (Status and the MIME names are not card values).
func literalConsts(t *testing.T) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				typ := ""
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				}
				if typ != "" && typ != "Layer" && typ != "Task" {
					continue
				}
				for i, name := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !name.IsExported() || !ok || lit.Kind != token.STRING || name.Name == "MIMEType" || name.Name == "PayloadSchema" {
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					got[name.Name] = v
				}
			}
		}
	}
	return got
}

func TestConstantsListsEveryCardValueConstant(t *testing.T) {
	declared := literalConsts(t)
	if !maps.Equal(declared, Constants) {
		t.Errorf("Constants and the declared constants differ:\n declared %v\n Constants %v", declared, Constants)
	}
	for _, name := range []string{"NearestRank", "FixedWindow", "PerEvent", "ClientClock", "InferenceTask", "Device"} {
		if _, ok := Constants[name]; !ok {
			t.Errorf("Constants lacks %s", name)
		}
	}
}

// Every constant the card literal can name is a value the check reads the
// intended way (so that an example in the card cell is never a trap).
func TestConstantsAreUnderstoodByTheCheck(t *testing.T) {
	if m, ok := parseMethod(NearestRank); !ok || string(m) != "nearest-rank" {
		t.Errorf("NearestRank parses as %q", m)
	}
	if m, ok := parseMethod(Linear); !ok || string(m) != "linear" {
		t.Errorf("Linear parses as %q", m)
	}
	if canonWindowKind(FixedWindow) != "fixed" || canonWindowKind(SlidingWindow) == "fixed" {
		t.Error("window kinds")
	}
	if canonRecorded(PerEvent) != "event" || canonRecorded(PerToken) != "token" {
		t.Error("recorded")
	}
	if canonClock(ClientClock) != "client" || canonClock(ServerClock) != "server" {
		t.Error("clocks")
	}
	for _, u := range []string{Seconds, Milliseconds} {
		if _, ok := secondsOf(u); !ok {
			t.Errorf("%q is not a time unit to the check", u)
		}
	}
	keys := slices.Sorted(maps.Keys(Constants))
	if len(keys) < 16 {
		t.Errorf("only %d constants: %v", len(keys), keys)
	}
}
