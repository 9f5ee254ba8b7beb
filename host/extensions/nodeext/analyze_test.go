package nodeext

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// A file of the import graph that is not a regular file (a FIFO, a
// symlink to /dev/zero, a device) or is too large is refused, naming it,
// instead of blocking the analysis or reading until memory runs out; so
// is a TypeScript entry file of the same kinds.
func TestAnalyzeRefusesSpecialFiles(t *testing.T) {
	cases := []struct {
		name  string
		entry string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"FIFO import", "index.ts", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, "index.ts"), `import "./dep.js"; export default function () {}`)
			if err := syscall.Mkfifo(filepath.Join(d, "dep.js"), 0o644); err != nil {
				t.Skip(err)
			}
		}, "dep.js is a FIFO"},
		{"JSON symlink to /dev/zero", "index.ts", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, "index.ts"), `import c from "./conf.json"; export default function () { return c }`)
			if err := os.Symlink("/dev/zero", filepath.Join(d, "conf.json")); err != nil {
				t.Fatal(err)
			}
		}, "a character device"},
		{"asset FIFO", "index.ts", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, "index.ts"), `import txt from "./notes.txt"; export default function () { return txt }`)
			if err := syscall.Mkfifo(filepath.Join(d, "notes.txt"), 0o644); err != nil {
				t.Skip(err)
			}
		}, "notes.txt is a FIFO"},
		{"too large", "index.ts", func(t *testing.T, d string) {
			writeFile(t, filepath.Join(d, "index.ts"), `import "./big.js"; export default function () {}`)
			f, err := os.Create(filepath.Join(d, "big.js"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(16<<20 + 1); err != nil { // sparse
				t.Fatal(err)
			}
		}, "too large"},
		{"entry FIFO", "index.ts", func(t *testing.T, d string) {
			if err := syscall.Mkfifo(filepath.Join(d, "index.ts"), 0o644); err != nil {
				t.Skip(err)
			}
		}, "is a FIFO"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(t, dir)
			done := make(chan Graph, 1)
			go func() { done <- Analyze(filepath.Join(dir, c.entry), Provides) }()
			select {
			case g := <-done:
				if !strings.Contains(g.Problem, c.want) {
					t.Fatalf("problem %q, want one naming %q", g.Problem, c.want)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the analysis did not return (blocked reading a special file)")
			}
		})
	}
}

func writeFile(t *testing.T, p, src string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}
