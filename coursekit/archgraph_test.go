package coursekit_test

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var updateGraph = flag.Bool("update-graph", false, "rewrite docs/architecture.md's package graph")

const (
	graphBegin = "<!-- BEGIN package graph: generated from go list; go test ./coursekit -run TestPackageGraph -update-graph rewrites it -->\n"
	graphEnd   = "<!-- END package graph -->\n"
)

// packageGraph draws the module's own import graph as Mermaid, from go list,
// so that the architecture guide cannot drift from the code.
func packageGraph(t *testing.T) string {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/llmperf-course/course/"
	var edges []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		from, ok := strings.CutPrefix(f[0], mod)
		if !ok {
			continue
		}
		for _, imp := range f[1:] {
			if to, ok := strings.CutPrefix(imp, mod); ok {
				edges = append(edges, "  "+node(from)+" --> "+node(to))
			}
		}
	}
	sort.Strings(edges)
	return "```mermaid\ngraph LR\n" + strings.Join(edges, "\n") + "\n```\n"
}

// node is a Mermaid node: an id without slashes, labelled with the path.
func node(path string) string {
	return strings.NewReplacer("/", "_", ".", "_").Replace(path) + `["` + path + `"]`
}

// The architecture guide's package graph is the one go list reports.
func TestPackageGraph(t *testing.T) {
	path := filepath.Join("..", "docs", "architecture.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, graphBegin), strings.Index(s, graphEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q ... %q", path, graphBegin, graphEnd)
	}
	want := packageGraph(t)
	if s[i+len(graphBegin):j] == want {
		return
	}
	if *updateGraph {
		if err := os.WriteFile(path, []byte(s[:i+len(graphBegin)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's package graph is out of date with go list: run go test ./coursekit -run TestPackageGraph -update-graph", path)
}
