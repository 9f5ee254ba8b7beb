package nodeext_test

import (
	"path/filepath"
	"testing"
)

// resolveExtWant is what pi 1.6 gives for the extension of
// ../jsext/testdata/resolve (its /resolved command's description; the
// goja side is TestScriptResolvesExportsAndImports).
const resolveExtWant = `{"dual":"dual-esm","sub":"a","nested":"n-import","util":"util-node","cond":"i","ts":"ts-only","tsjs":"ts-only","self":"feature","dep":"dual-esm","fromCjs":"dual-cjs+r","required":"dual-cjs","notExported":"ERR_PACKAGE_PATH_NOT_EXPORTED: Package subpath './private/a' is not defined by \"exports\" in node_modules/dual/package.json"}`

// TestPackageExportsAndImportsInBothRuntimes loads an extension that
// imports through package.json "exports" and "imports" (an extensionless
// "#src/*" path to a TypeScript file, and one by its .js name, among
// them) in each runtime: both resolve every import as pi 1.6 does.
func TestPackageExportsAndImportsInBothRuntimes(t *testing.T) {
	needNode(t)
	ext, err := filepath.Abs("../jsext/testdata/resolve/app/src/ext.ts")
	if err != nil {
		t.Fatal(err)
	}
	for _, runtime := range []string{"goja", "node"} {
		a := start(t, nil, map[string]any{"extensionRuntime": runtime, "extensions": []any{ext}}, nil)
		if st := statuses(t, a)["ext.ts"]; st["state"] != "loaded" || st["runtime"] != runtime {
			t.Errorf("%s: %v", runtime, st)
			continue
		}
		got := ""
		for _, c := range a.MustSucceed(map[string]any{"type": "get_commands"})["data"].(map[string]any)["commands"].([]any) {
			if m := c.(map[string]any); m["name"] == "resolved" {
				got, _ = m["description"].(string)
			}
		}
		if got != resolveExtWant {
			t.Errorf("%s:\n got %s\nwant %s", runtime, got, resolveExtWant)
		}
	}
}
