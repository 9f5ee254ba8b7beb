package wirecov

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// Every exported struct type of sdk/rpcwire is a record the agent writes
// (reachable from Responses or Events) or one a client sends.
func TestEveryWireTypeIsChecked(t *testing.T) {
	paths, err := filepath.Glob("../../sdk/rpcwire/*.go")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no sources: %v", err)
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	reached := map[string]bool{}
	for _, f := range Fields() {
		reached[f[:slices.Index([]byte(f), '.')]] = true
	}
	for _, r := range RequestOnly {
		reached[r.Name()] = true
	}
	n := 0
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if _, ok := ts.Type.(*ast.StructType); !ok || !ts.Name.IsExported() {
					continue
				}
				n++
				if !reached[ts.Name.Name] {
					t.Errorf("rpcwire.%s is neither reached from a response or event of wirecov nor listed in RequestOnly", ts.Name.Name)
				}
			}
		}
	}
	if n < 40 {
		t.Fatalf("found only %d struct types in sdk/rpcwire", n)
	}
}

func TestMarkFollowsTheDeclaredShape(t *testing.T) {
	got := map[string]bool{}
	MarkLine([]byte(`{"type":"response","command":"get_state","success":true,"data":{"model":{"id":"m","cost":{"input":1}},"thinkingLevel":"off","unknown":1}}`),
		func(f string) { got[f] = true })
	want := []string{"Model.cost", "Model.id", "ModelCost.input", "State.model", "State.thinkingLevel"}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("marked %v, want %v", keys, want)
	}
	// A failed response and a plain-string content mark nothing of their data.
	got = map[string]bool{}
	MarkLine([]byte(`{"type":"response","command":"get_state","success":false,"error":"x"}`), func(f string) { got[f] = true })
	Mark(reflect.TypeFor[rpcwire.Content](), []byte(`"text"`), func(f string) { got[f] = true })
	if len(got) != 0 {
		t.Fatalf("marked %v", got)
	}
}
