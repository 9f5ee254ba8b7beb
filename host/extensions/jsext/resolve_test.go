package jsext

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPackageResolutionAsNode resolves the cases of testdata/resolve
// (package.json "exports" and "imports": subpaths, patterns, conditions,
// nested conditions, arrays, null targets, self-reference, invalid
// targets) with the goja resolver and compares each with what Node 22
// answered (node22.json, written by testdata/resolve/record.mjs), for an
// import and for a require.
func TestPackageResolutionAsNode(t *testing.T) {
	root, err := filepath.Abs("testdata/resolve")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "node22.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Spec, From, Kind, Path, Code, Message string
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	importedFrom := regexp.MustCompile(` imported from [^\s;]+`)
	r := newPackageResolver()
	for _, c := range cases {
		conds := importConditions
		if c.Kind == "require" {
			conds = requireConditions
		}
		dir := filepath.Join(root, c.From)
		got, handled, err := r.resolve(c.Spec, dir, filepath.Join(dir, "__probe"), conds)
		name := c.Kind + " " + c.Spec + " from " + c.From
		switch {
		case c.Path != "" && err != nil:
			t.Errorf("%s: %v, Node: %s", name, err, c.Path)
		case c.Path != "" && !handled:
			// Not a package with "exports": the require module's own
			// lookup (main, the file) finds it.
			if !strings.Contains(c.Path, "legacy") {
				t.Errorf("%s: left to the legacy lookup, Node: %s", name, c.Path)
			}
		case c.Path != "" && !filepath.IsAbs(got):
			// A built-in module ("#fs": "fs"): the name.
			if "node:"+strings.TrimPrefix(got, "node:") != c.Path {
				t.Errorf("%s: %s, Node: %s", name, got, c.Path)
			}
		case c.Path != "" && isDir(got):
			// An "imports" target naming a package without "exports":
			// its directory, looked up as legacy (main).
			if rel, _ := filepath.Rel(root, got); !strings.HasPrefix(c.Path, rel+"/") {
				t.Errorf("%s: %s, Node: %s", name, rel, c.Path)
			}
		case c.Path != "":
			if rel, _ := filepath.Rel(root, got); rel != c.Path {
				t.Errorf("%s: %s, Node: %s", name, rel, c.Path)
			}
		case c.Code == "ERR_INVALID_URL_SCHEME":
			// Node's require cannot turn the node:fs an "imports" entry
			// maps to into a path (its import can): we give the module.
			if got != strings.TrimPrefix(got, "node:") || err != nil {
				t.Errorf("%s: %q, %v", name, got, err)
			}
		case c.Code == "MODULE_NOT_FOUND":
			// require's lookup after the resolution: the file is missing,
			// or (a "#" name in a package without "imports") no package.
			if err == nil && isFile(got) {
				t.Errorf("%s: %s, Node: %s", name, got, c.Message)
			}
		default:
			var re *ResolveError
			if !errors.As(err, &re) {
				t.Errorf("%s: %q, %v; Node: %s %s", name, got, err, c.Code, c.Message)
				continue
			}
			msg := strings.ReplaceAll(re.Message, root+"/", "")
			if c.Code == "ERR_INVALID_PACKAGE_CONFIG" {
				// Node's words vary by kind; ours add what is wrong.
				msg, c.Message = strings.SplitN(msg, ".json", 2)[0], strings.SplitN(c.Message, ".json", 2)[0]
			}
			if re.Code != c.Code || importedFrom.ReplaceAllString(msg, "") != importedFrom.ReplaceAllString(c.Message, "") {
				t.Errorf("%s:\n got %s: %s\nNode %s: %s", name, re.Code, msg, c.Code, c.Message)
			}
		}
	}
}

// resolveExtWant is what pi 1.6 gives for testdata/resolve/app/src/ext.ts
// (run with -e, its /resolved command's description).
const resolveExtWant = `{"dual":"dual-esm","sub":"a","nested":"n-import","util":"util-node","cond":"i","ts":"ts-only","tsjs":"ts-only","self":"feature","dep":"dual-esm","fromCjs":"dual-cjs+r","required":"dual-cjs","notExported":"ERR_PACKAGE_PATH_NOT_EXPORTED: Package subpath './private/a' is not defined by \"exports\" in node_modules/dual/package.json"}`

// TestScriptResolvesExportsAndImports loads an extension in goja that
// imports through "exports" (conditions, patterns, nested conditions,
// self-reference) and "imports" (conditions, a package target, an
// extensionless path to a .ts file, a .ts file by its .js name), and
// requires through createRequire and from a CommonJS file (the
// "require" condition).
func TestScriptResolvesExportsAndImports(t *testing.T) {
	h := newHarness(t)
	if err := os.CopyFS(filepath.Join(h.dir, "app"), os.DirFS("testdata/resolve/app")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/resolve/app/src/ext.ts")
	if err != nil {
		t.Fatal(err)
	}
	out := evalScript(t, h, "app/src/ext.ts", string(b))
	if out != resolveExtWant {
		t.Fatalf("got\n%s\nwant (pi 1.6)\n%s", out, resolveExtWant)
	}
}

// TestPackageResolutionRefusesHostileManifests: a package.json nested
// past the bound, or not JSON, is an error naming it, not a crash or a
// deep recursion.
func TestPackageResolutionRefusesHostileManifests(t *testing.T) {
	dir := t.TempDir()
	deep := strings.Repeat(`{"node":`, 100000) + `"./x.js"` + strings.Repeat("}", 100000)
	for name, pj := range map[string]string{
		"deep":   `{"name":"deep","exports":` + deep + `}`,
		"broken": `{"name":"broken","exports":{"./a":`,
		"array":  `["not", "an", "object"]`,
	} {
		p := filepath.Join(dir, "node_modules", name, "package.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(pj), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := newPackageResolver().resolve(name, dir, filepath.Join(dir, "x.ts"), importConditions)
		var re *ResolveError
		if !errors.As(err, &re) || re.Code != "ERR_INVALID_PACKAGE_CONFIG" || !strings.Contains(re.Message, p) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCreateRequireFindsPackagesFromItsFile: createRequire(file) finds a
// package without "exports" (through main) in node_modules above that
// file, not above the script.
func TestCreateRequireFindsPackagesFromItsFile(t *testing.T) {
	h := newHarness(t)
	h.write("vendor/node_modules/old/package.json", `{"name":"old","main":"lib/old.js"}`)
	h.write("vendor/node_modules/old/lib/old.js", `module.exports = "old main";`)
	out := evalScript(t, h, "main.ts", `import { createRequire } from "node:module";
import * as path from "node:path";
const req = createRequire(path.join(__dirname, "vendor", "x.js"));
export default function (pi: any) { pi.registerFlag("out", { type: "string", default: req("old") }); }`)
	if out != "old main" {
		t.Fatalf("got %q", out)
	}
}
