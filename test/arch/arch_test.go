// Package arch checks the import rules of docs/architecture.md against the
// code: every package of the module is named by a rule, each of its direct
// imports (outside the standard library) is one the rule allows, and every
// allowance is used by some package of its rule. It also checks that only
// the front ends and programs write to stdout.
package arch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/atomic-go/atomic"

// buildTags are the optional build tags whose files the rules cover too
// (host/tui's Glamour renderer is built with -tags glamour).
const buildTags = "glamour"

// rule is one line of the "imports" block: a package pattern and the
// patterns it may import. A pattern ending in "/..." matches the path and
// everything below it; "*" allows anything.
type rule struct {
	pattern string
	allowed []string
	line    int
}

func match(pattern, path string) bool {
	if pattern == "*" {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

// specificity orders rules: an exact path beats any "/..." pattern, and a
// longer pattern beats a shorter one.
func specificity(pattern string) int {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return len(base)
	}
	return 1 << 20
}

func parseRules(t *testing.T, doc []byte) []rule {
	t.Helper()
	var rules []rule
	in := false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "```imports":
			in = true
			continue
		case in && line == "```":
			in = false
			continue
		case !in || line == "" || strings.HasPrefix(line, "#"):
			continue
		}
		pkgs, allowed, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("docs/architecture.md:%d: want `package: allowed imports`, got %q", n, line)
		}
		for _, p := range strings.Fields(pkgs) {
			rules = append(rules, rule{pattern: p, allowed: strings.Fields(allowed), line: n})
		}
	}
	if len(rules) == 0 {
		t.Fatal("docs/architecture.md has no ```imports block")
	}
	return rules
}

type goPackage struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	// TestGoFiles and XTestGoFiles are the package's tests (in the
	// package and in package x_test).
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string
	Standard     bool
}

// modulePackages lists the module's packages with their imports, in the
// default build and with buildTags, merged: a rule must allow what either
// build imports, and an allowance counts as used when either needs it.
func modulePackages(t *testing.T, root string) []goPackage {
	t.Helper()
	listed.Do(func() { listed.pkgs = listModule(t, root) })
	if listed.pkgs == nil {
		t.Fatal("listing the module's packages failed")
	}
	return listed.pkgs
}

// listed is the module's package list, made once for every test.
var listed struct {
	sync.Once
	pkgs []goPackage
}

func listModule(t *testing.T, root string) []goPackage {
	var order []string
	byPath := map[string]*goPackage{}
	for _, tags := range []string{"", buildTags} {
		for _, p := range listPackages(t, root, tags) {
			have, ok := byPath[p.ImportPath]
			if !ok {
				c := p
				byPath[p.ImportPath] = &c
				order = append(order, p.ImportPath)
				continue
			}
			for _, imp := range p.Imports {
				if !slices.Contains(have.Imports, imp) {
					have.Imports = append(have.Imports, imp)
				}
			}
		}
	}
	pkgs := make([]goPackage, 0, len(order))
	for _, path := range order {
		pkgs = append(pkgs, *byPath[path])
	}
	return pkgs
}

func listPackages(t *testing.T, root, tags string) []goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", tags, "-json=ImportPath,Name,Dir,GoFiles,TestGoFiles,XTestGoFiles,Imports,Standard", "./...")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -tags %q: %v", tags, err)
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// isStd says whether an import path is in the standard library: its first
// element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func TestImportRulesOfTheArchitecture(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rules := parseRules(t, doc)
	used := map[int]bool{}
	// allowUsed records, per rule line, the allowances some import of a
	// package of that line needed: an allowance nothing uses is an error,
	// so the rules cannot drift towards allowing more than the code does.
	allowUsed := map[int]map[string]bool{}
	for _, p := range modulePackages(t, root) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		var r *rule
		for i := range rules {
			if match(rules[i].pattern, rel) && (r == nil || specificity(rules[i].pattern) > specificity(r.pattern)) {
				r = &rules[i]
			}
		}
		if r == nil {
			t.Errorf("%s: no import rule names this package; add it to the imports block of docs/architecture.md", rel)
			continue
		}
		used[r.line] = true
		for _, imp := range p.Imports {
			if isStd(imp) {
				continue
			}
			name := imp
			if in, ok := strings.CutPrefix(imp, module+"/"); ok {
				name = in
			}
			ok := false
			for _, a := range r.allowed {
				if match(a, name) {
					ok = true
					if allowUsed[r.line] == nil {
						allowUsed[r.line] = map[string]bool{}
					}
					allowUsed[r.line][a] = true
					break
				}
			}
			if !ok {
				t.Errorf("%s imports %s, which its rule (docs/architecture.md:%d, %q) does not allow", rel, name, r.line, r.pattern)
			}
		}
	}
	reported := map[int]bool{}
	for _, r := range rules {
		if !used[r.line] {
			t.Errorf("docs/architecture.md:%d: the rule for %q names no package", r.line, r.pattern)
			continue
		}
		if reported[r.line] {
			continue
		}
		reported[r.line] = true
		for _, a := range r.allowed {
			if a != "*" && !allowUsed[r.line][a] {
				t.Errorf("docs/architecture.md:%d: %q is allowed to import %q, but none of its packages does; remove the allowance", r.line, r.pattern, a)
			}
		}
	}
}

// frontEnds are the library packages that own stdout (one writer in rpc,
// acp and json modes; the terminal in the interactive UI).
var frontEnds = []string{"host/rpc", "host/acp", "host/tui"}

// TestOnlyFrontEndsReachStdout checks the first rule of the house: no
// library package but the front ends names os.Stdout or prints with
// fmt.Print, Printf or Println (which write to stdout). Programs (package
// main: cmd/, bench/, examples/, the test servers under internal/) own
// their stdout.
func TestOnlyFrontEndsReachStdout(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range modulePackages(t, root) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if p.Name == "main" || slices.Contains(frontEnds, rel) {
			continue
		}
		fset := token.NewFileSet()
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			imported := map[string]string{} // local name -> import path
			for _, imp := range f.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				local := filepath.Base(path)
				if imp.Name != nil {
					local = imp.Name.Name
				}
				imported[local] = path
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				switch {
				case imported[x.Name] == "os" && sel.Sel.Name == "Stdout",
					imported[x.Name] == "fmt" && (sel.Sel.Name == "Print" || sel.Sel.Name == "Printf" || sel.Sel.Name == "Println"):
					t.Errorf("%s: %s.%s: only the front ends (%s) and programs may write to stdout", fset.Position(sel.Pos()), x.Name, sel.Sel.Name, strings.Join(frontEnds, ", "))
				}
				return true
			})
		}
	}
}
