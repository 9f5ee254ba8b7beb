// Package arch checks the import rules of docs/architecture.md against the
// code: every package of the module is named by a rule, and each of its
// direct imports (outside the standard library) is one the rule allows.
package arch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/atomic-go/atomic"

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
	Imports    []string
	Standard   bool
}

func modulePackages(t *testing.T, root string) []goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Standard", "./...")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
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
					break
				}
			}
			if !ok {
				t.Errorf("%s imports %s, which its rule (docs/architecture.md:%d, %q) does not allow", rel, name, r.line, r.pattern)
			}
		}
	}
	for _, r := range rules {
		if !used[r.line] {
			t.Errorf("docs/architecture.md:%d: the rule for %q names no package", r.line, r.pattern)
		}
	}
}
