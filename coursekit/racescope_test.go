package coursekit_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// concurrencyImports are the packages whose use means memory is shared
// between goroutines: locks, atomics, goroutine groups, and HTTP test
// servers (each request is served on a goroutine of its own).
var concurrencyImports = map[string]string{
	"sync":                        "imports sync",
	"sync/atomic":                 "imports sync/atomic",
	"golang.org/x/sync/errgroup":  "imports errgroup",
	"golang.org/x/sync/semaphore": "imports semaphore",
	"net/http/httptest":           "starts an HTTP test server",
}

// concurrencyCalls run a function on another goroutine, or serve HTTP
// requests each on its own.
var concurrencyCalls = map[string]string{
	"time.AfterFunc":         "time.AfterFunc runs a function on its own goroutine",
	"context.AfterFunc":      "context.AfterFunc runs a function on its own goroutine",
	"http.ListenAndServe":    "serves HTTP, a goroutine per request",
	"http.ListenAndServeTLS": "serves HTTP, a goroutine per request",
	"http.Serve":             "serves HTTP, a goroutine per request",
	"http.ServeTLS":          "serves HTTP, a goroutine per request",
	"http.Server":            "serves HTTP, a goroutine per request",
}

// concurrency names, per package below the module (coursekit/loadgen), the
// first place in its code or its tests that starts a goroutine or shares
// memory between goroutines.
func concurrency(t *testing.T) map[string]string {
	t.Helper()
	found := map[string]string{}
	for _, g := range walkModuleFiles(t, true) {
		if _, ok := found[g.pkg]; ok {
			continue
		}
		if n, what := concurrentAt(g.f); n != nil {
			found[g.pkg] = fmt.Sprintf("%s:%d %s", g.path, g.fset.Position(n.Pos()).Line, what)
		}
	}
	return found
}

// concurrentAt is the first node of f that starts a goroutine or shares
// memory between goroutines, and what it does (nil if none).
func concurrentAt(f *ast.File) (at ast.Node, what string) {
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if w, ok := concurrencyImports[p]; ok {
			return im, w
		}
	}
	return concurrentIn(f)
}

// concurrentIn is concurrentAt within n, imports aside.
func concurrentIn(n ast.Node) (at ast.Node, what string) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			at, what = n, "starts a goroutine"
		case *ast.ChanType:
			at, what = n, "uses a channel"
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				if w, ok := concurrencyCalls[x.Name+"."+n.Sel.Name]; ok {
					at, what = n, w
				} else if x.Name == "sync" || x.Name == "atomic" || x.Name == "errgroup" {
					at, what = n, "uses "+x.Name+"."+n.Sel.Name
				}
			}
		}
		return at == nil
	})
	return at, what
}

// makeVar reads the Makefile variable name := value, continued over lines
// ending in a backslash.
func makeVar(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	_, def, ok := strings.Cut(string(b), "\n"+name+" :=")
	if !ok {
		t.Fatalf("Makefile: no %s := line", name)
	}
	var val []string
	for line := range strings.Lines(def) {
		body, more := strings.CutSuffix(strings.TrimRight(line, "\n"), `\`)
		val = append(val, strings.TrimSpace(body))
		if !more {
			break
		}
	}
	return strings.Join(val, " ")
}

// racePackages is the Makefile's RACE_PKGS (./coursekit/loadgen ...) as
// paths below the module.
func racePackages(t *testing.T) []string {
	t.Helper()
	var pkgs []string
	for _, f := range strings.Fields(makeVar(t, "RACE_PKGS")) {
		pkgs = append(pkgs, strings.TrimPrefix(f, "./"))
	}
	return pkgs
}

// test-go runs the race detector only on the packages whose own code or
// tests start goroutines or share memory between them (RACE_PKGS); the
// rest run without it, as a race needs two goroutines. Code of a plain
// package that another package runs concurrently is instrumented in that
// package's race build. This list is derived from the source, so a new
// concurrent package cannot slip out of -race, nor a package that no longer
// is one keep its cost.
func TestRaceScope(t *testing.T) {
	found := concurrency(t)
	listed := map[string]bool{}
	for _, p := range racePackages(t) {
		listed[p] = true
		if _, ok := found[p]; !ok {
			t.Errorf("Makefile: RACE_PKGS lists ./%s, but no file of it starts a goroutine or shares memory between goroutines: remove it", p)
		}
	}
	var missing []string
	for p, why := range found {
		if !listed[p] {
			missing = append(missing, fmt.Sprintf("./%s (%s)", p, why))
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("Makefile: RACE_PKGS lacks %s: add it, so that test-go runs it with -race", m)
	}
}

// Each form of concurrency is found, and a file without any is not.
func TestConcurrencyFound(t *testing.T) {
	for src, want := range map[string]string{
		"func f() { go g() }":                                                     "starts a goroutine",
		"func f() { go func() {}() }":                                             "starts a goroutine",
		"var c = make(chan int)":                                                  "uses a channel",
		"func f(c <-chan int) {}":                                                 "uses a channel",
		`import "sync"; var mu sync.Mutex`:                                        "imports sync",
		`import "sync/atomic"; var n atomic.Int64`:                                "imports sync/atomic",
		`import "net/http/httptest"; var s = httptest.NewServer(nil)`:             "starts an HTTP test server",
		`import "time"; var _ = time.AfterFunc(0, func() {})`:                     "time.AfterFunc runs a function on its own goroutine",
		`import "net/http"; var s = &http.Server{}`:                               "serves HTTP, a goroutine per request",
		`import "net/http"; func f() { http.ListenAndServe(":0", nil) }`:          "serves HTTP, a goroutine per request",
		`import "strings"; func f(s string) string { return strings.ToUpper(s) }`: "",
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+src, 0)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if _, got := concurrentAt(f); got != want {
			t.Errorf("%s: found %q, want %q", src, got, want)
		}
	}
}
