package nodeext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// import() of a package is recorded, decides for Node, and is not read:
// its files (mermaid has thousands) are not part of the graph.
func TestAnalyzeDoesNotFollowImportOfAPackage(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ext/index.ts", `import { helper } from "./helper"; export default async function (pi) { const m = await import("bigpkg"); helper(m); }`)
	write("ext/helper.ts", `export const helper = (m) => m;`)
	write("node_modules/bigpkg/package.json", `{"name":"bigpkg","main":"index.js"}`)
	write("node_modules/bigpkg/index.js", `module.exports = require("./inner");`)
	write("node_modules/bigpkg/inner.js", `module.exports = 1;`)
	g := Analyze(filepath.Join(dir, "ext", "index.ts"), Provides)
	if g.Problem != "" {
		t.Fatal(g.Problem)
	}
	for _, f := range g.Files {
		if strings.Contains(f, "bigpkg") {
			t.Fatalf("the package was read: %v", g.Files)
		}
	}
	if len(g.Files) != 2 {
		t.Fatalf("files %v", g.Files)
	}
	if lacks := GojaLacks(g); len(lacks) != 1 || !strings.Contains(lacks[0], "bigpkg") {
		t.Fatalf("goja lacks %v", lacks)
	}
}
