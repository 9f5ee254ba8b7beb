package arch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

const leaktestPath = module + "/internal/leaktest"

// TestGoroutinesAreLeakChecked: every package whose non-test code starts
// a goroutine (a go statement) runs its tests under internal/leaktest, so
// a goroutine that outlives its Close or cancel fails that package's
// tests. The check is a TestMain that calls leaktest.VerifyTestMain or
// leaktest.Run. Programs without tests (package main: their goroutines
// end with the process, and there is nothing to run the check on) are
// the only exception.
func TestGoroutinesAreLeakChecked(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range modulePackages(t, root) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		site := firstGoStatement(t, p.Dir, p.GoFiles)
		if site == "" {
			continue
		}
		tests := append(append([]string{}, p.TestGoFiles...), p.XTestGoFiles...)
		if p.Name == "main" && len(tests) == 0 {
			continue
		}
		checked++
		if !hasLeakTestMain(t, p.Dir, tests) {
			t.Errorf("%s starts goroutines (%s) but has no TestMain that calls leaktest.VerifyTestMain or leaktest.Run: add one (see internal/leaktest)", rel, site)
		}
	}
	if checked == 0 {
		t.Fatal("no package of the module starts a goroutine: the check looks at nothing")
	}
}

// firstGoStatement returns the position of the first go statement in the
// files, or "".
func firstGoStatement(t *testing.T, dir string, files []string) string {
	t.Helper()
	fset := token.NewFileSet()
	for _, f := range parseFiles(t, fset, dir, files) {
		site := ""
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok && site == "" {
				site = fset.Position(g.Pos()).String()
			}
			return site == ""
		})
		if site != "" {
			return strings.TrimPrefix(site, dir+string(filepath.Separator))
		}
	}
	return ""
}

// hasLeakTestMain reports whether one of the test files declares
// TestMain and calls internal/leaktest's VerifyTestMain or Run in it.
func hasLeakTestMain(t *testing.T, dir string, files []string) bool {
	t.Helper()
	for _, f := range parseFiles(t, token.NewFileSet(), dir, files) {
		local := ""
		for _, imp := range f.Imports {
			if strings.Trim(imp.Path.Value, `"`) == leaktestPath {
				local = "leaktest"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Name.Name != "TestMain" || fn.Body == nil {
				continue
			}
			found := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return !found
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && (sel.Sel.Name == "VerifyTestMain" || sel.Sel.Name == "Run") {
						found = true
					}
				}
				return !found
			})
			if found {
				return true
			}
		}
	}
	return false
}

// parseFiles parses the named files of dir.
func parseFiles(t *testing.T, fset *token.FileSet, dir string, names []string) []*ast.File {
	t.Helper()
	var out []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}
