package gosrc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Parse reads the package's code below the root and nothing else: not
// testdata, node_modules or hidden directories, and _test.go files only
// when asked; paths are relative and slash-separated, and a file that does
// not parse is an error that names it.
func TestParse(t *testing.T) {
	root := t.TempDir()
	for name, src := range map[string]string{
		"a.go": "package a\n", "a_test.go": "package a\n", "sub/b.go": "package sub\n",
		"testdata/c.go": "package c\n", "node_modules/d.go": "package d\n", ".git/e.go": "package e\n", "notes.txt": "x",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths := func(tests bool) []string {
		files, err := Parse(root, tests)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range files {
			if f.AST == nil || f.Fset == nil {
				t.Errorf("%s: not parsed", f.Path)
			}
			out = append(out, f.Path)
		}
		slices.Sort(out)
		return out
	}
	if got, want := paths(false), []string{"a.go", "sub/b.go"}; !slices.Equal(got, want) {
		t.Errorf("without tests: %v, want %v", got, want)
	}
	if got, want := paths(true), []string{"a.go", "a_test.go", "sub/b.go"}; !slices.Equal(got, want) {
		t.Errorf("with tests: %v, want %v", got, want)
	}
	if err := os.WriteFile(filepath.Join(root, "sub", "bad.go"), []byte("package sub\nfunc {"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(root, false); err == nil || !strings.Contains(err.Error(), "bad.go") {
		t.Errorf("a file that does not parse: %v", err)
	}
}
