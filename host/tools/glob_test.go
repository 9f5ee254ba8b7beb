package tools

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

func TestGlobToRegexp(t *testing.T) {
	cases := []struct {
		pat   string
		yes   []string
		no    []string
		brace bool
	}{
		{pat: "*.go", yes: []string{"a.go", ".go"}, no: []string{"a/b.go", "a.gox"}},
		{pat: "a?c", yes: []string{"abc"}, no: []string{"a/c", "ac"}},
		{pat: "**/*.go", yes: []string{"a.go", "x/a.go", "x/y/a.go"}, no: []string{"a.txt"}},
		{pat: "src/**", yes: []string{"src/a", "src/a/b"}, no: []string{"src", "lib/a"}},
		{pat: "a/**/b", yes: []string{"a/b", "a/x/b", "a/x/y/b"}, no: []string{"a/xb", "b"}},
		{pat: "**", yes: []string{"a", "a/b/c"}},
		{pat: "a**b", yes: []string{"ab", "axxb"}, no: []string{"a/b"}},
		{pat: "[abc].txt", yes: []string{"a.txt", "c.txt"}, no: []string{"d.txt"}},
		{pat: "[!abc].txt", yes: []string{"d.txt"}, no: []string{"a.txt"}},
		{pat: "[a-c]x", yes: []string{"bx"}, no: []string{"dx"}},
		{pat: `\*.md`, yes: []string{"*.md"}, no: []string{"a.md"}},
		{pat: "[unclosed", yes: []string{"[unclosed"}},
		{pat: "*.{ts,tsx}", yes: []string{"a.ts", "a.tsx"}, no: []string{"a.js"}, brace: true},
		{pat: "*.{ts,tsx}", yes: []string{"a.{ts,tsx}"}, no: []string{"a.ts"}},
		{pat: "{a,b", yes: []string{"{a,b"}, brace: true},
		{pat: "a+b(c)", yes: []string{"a+b(c)"}, no: []string{"aab"}},
	}
	for _, c := range cases {
		re := regexp.MustCompile(globToRegexp(c.pat, c.brace))
		for _, s := range c.yes {
			if !re.MatchString(s) {
				t.Errorf("%q (%s) should match %q", c.pat, re, s)
			}
		}
		for _, s := range c.no {
			if re.MatchString(s) {
				t.Errorf("%q (%s) should not match %q", c.pat, re, s)
			}
		}
	}
}

func TestCompileGlob(t *testing.T) {
	g, err := compileGlob("*.go", true)
	if err != nil {
		t.Fatal(err)
	}
	if !g.match("a/b/c.go") || !g.match("X.GO") || g.match("c.go/x") {
		t.Error("basename matching failed")
	}
	g, _ = compileGlob("src/*.Go", true)
	if g.match("src/a.go") || !g.match("src/a.Go") || g.match("x/src/a.Go") {
		t.Error("path matching or smart case failed")
	}
	g, _ = compileGlob("*.go", false)
	if g.match("A.GO") {
		t.Error("case-sensitive glob matched")
	}
}

func TestIgnoreRules(t *testing.T) {
	f := parseIgnore("/r", `
# comment
*.log
!keep.log
build/
/top.txt
docs/*.html
**/gen/**
\#hash
trailing   
`)
	cases := []struct {
		path string
		dir  bool
		want bool
	}{
		{"/r/a.log", false, true},
		{"/r/x/y/a.log", false, true},
		{"/r/keep.log", false, false},
		{"/r/x/keep.log", false, false},
		{"/r/build", true, true},
		{"/r/x/build", true, true},
		{"/r/build", false, false}, // build/ only matches directories
		{"/r/top.txt", false, true},
		{"/r/x/top.txt", false, false}, // anchored
		{"/r/docs/a.html", false, true},
		{"/r/docs/x/a.html", false, false},
		{"/r/a/gen/b.go", false, true},
		{"/r/#hash", false, true},
		{"/r/trailing", false, true},
		{"/r/main.go", false, false},
		{"/other/a.log", false, false}, // outside the base
	}
	for _, c := range cases {
		_, got := f.match(c.path, c.dir)
		if got != c.want {
			t.Errorf("%s (dir=%v): ignored=%v, want %v", c.path, c.dir, got, c.want)
		}
	}
}

func TestIgnoreStackPrecedence(t *testing.T) {
	outer := parseIgnore("/r", "*.txt\n")
	inner := parseIgnore("/r/sub", "!important.txt\n")
	s := ignoreStack{outer, inner}
	if !s.ignored("/r/a.txt", false) || !s.ignored("/r/sub/a.txt", false) {
		t.Error("outer rule should apply")
	}
	if s.ignored("/r/sub/important.txt", false) {
		t.Error("inner negation should win")
	}
	if !s.ignored("/r/important.txt", false) {
		t.Error("inner file must not apply outside its directory")
	}
}

func walkNames(t *testing.T, root string) []string {
	t.Helper()
	var names []string
	err := walkTree(context.Background(), root, func(e walkEntry) error {
		n := e.Rel
		if e.IsDir {
			n += "/"
		}
		names = append(names, n)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestWalkTree(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".gitignore":          "*.log\nnode_modules/\n/dist\n",
		".hidden":             "h",
		"a.txt":               "a",
		"app.log":             "log",
		"dist/out.js":         "x",
		"node_modules/m/i.js": "x",
		"src/.gitignore":      "secret.txt\n!keep.log\n",
		"src/secret.txt":      "s",
		"src/keep.log":        "k",
		"src/main.go":         "package main",
		"src/dist/x.go":       "x", // /dist is anchored to the root
		".git/config":         "[core]",
		"sub/.ignore":         "tmp\n",
		"sub/tmp/f":           "f",
		"sub/g":               "g",
	})
	got := walkNames(t, dir)
	want := []string{".gitignore", ".hidden", "a.txt", "src/", "src/.gitignore", "src/dist/", "src/dist/x.go", "src/keep.log", "src/main.go", "sub/", "sub/.ignore", "sub/g"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("walk:\n got %q\nwant %q", got, want)
	}
}

func TestWalkTreeParentGitignore(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD":      "ref",
		".gitignore":     "*.tmp\npkg/skip/\n",
		"pkg/a.go":       "a",
		"pkg/b.tmp":      "b",
		"pkg/skip/c.go":  "c",
		"pkg/inner/d.go": "d",
	})
	got := walkNames(t, filepath.Join(dir, "pkg"))
	want := []string{"a.go", "inner/", "inner/d.go"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("walk:\n got %q\nwant %q", got, want)
	}
}

func TestWalkTreeCancelled(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a": "a"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := walkTree(ctx, dir, func(walkEntry) error { return nil })
	if err != ErrAborted {
		t.Fatalf("got %v", err)
	}
}

func TestWalkTreeSymlinkNotFollowed(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"real/f": "f"})
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	got := walkNames(t, dir)
	want := []string{"link", "real/", "real/f"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
}
