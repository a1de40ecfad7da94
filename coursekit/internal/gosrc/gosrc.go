// Package gosrc parses the Go files of a source tree, for the tests that
// state properties of coursekit's own code: every lang.Msg holds both
// languages, every importer note is made from one, metrics.Summarize is
// called from one place per command. One walk, so that each such test
// reads the same files the same way.
package gosrc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
)

// File is one parsed Go file.
type File struct {
	// Path is slash-separated and relative to the walked root.
	Path string
	AST  *ast.File
	// Fset positions AST's nodes (shared by every file of one Parse).
	Fset *token.FileSet
}

// Pos is where n stands, as "path:line:column" from the working directory.
func (f File) Pos(n ast.Node) token.Position { return f.Fset.Position(n.Pos()) }

// Parse parses every .go file below root, its _test.go files only when
// tests is set. It skips testdata, node_modules and hidden directories:
// what they hold is not the package's code.
func Parse(root string, tests bool) ([]File, error) {
	fset := token.NewFileSet()
	var out []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || !tests && strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		out = append(out, File{Path: filepath.ToSlash(rel), AST: f, Fset: fset})
		return nil
	})
	return out, err
}
