package nodeext

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// graphFixture is an extension with a relative import, a package under
// node_modules (with a main field) and a missing optional package.
type graphFixture struct {
	t     *testing.T
	root  string
	cache string
	entry string
}

func newGraphFixture(t *testing.T) *graphFixture {
	if runtime.GOOS == "windows" {
		t.Skip("no graph cache without inodes")
	}
	// Everything the test writes is older than the racy window for the
	// cache (the files are backdated; their change times are now).
	old := graphClock
	graphClock = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { graphClock = old })
	f := &graphFixture{t: t, root: t.TempDir(), cache: t.TempDir()}
	f.entry = filepath.Join(f.root, "ext", "index.ts")
	f.write("ext/index.ts", `import { helper } from "./helper"; import p from "pkg"; import("./later").catch(() => {}); try { require("optional-pkg") } catch {} export default function (pi) { helper(p); }`)
	f.write("ext/helper.js", `export const helper = (m) => m;`)
	f.write("node_modules/pkg/package.json", `{"name":"pkg","main":"lib/main.js"}`)
	f.write("node_modules/pkg/lib/main.js", `module.exports = require("./inner");`)
	f.write("node_modules/pkg/lib/inner.js", `module.exports = 1;`)
	f.backdate()
	return f
}

func (f *graphFixture) write(rel, src string) {
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// backdate sets every path's modification time an hour back, so that a
// change made by the test shows in the times whatever their granularity.
func (f *graphFixture) backdate() {
	then := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(f.root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, then, then)
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// analyze runs the cached analysis and checks it against a fresh one.
func (f *graphFixture) analyze(wantHit bool) Graph {
	f.t.Helper()
	g, hit := cachedAnalyze(f.cache, f.entry, Provides)
	if hit != wantHit {
		f.t.Fatalf("cache hit %v, want %v", hit, wantHit)
	}
	if g.Problem != "" {
		f.t.Fatal(g.Problem)
	}
	if fresh := Analyze(f.entry, Provides); !reflect.DeepEqual(g, fresh) {
		f.t.Fatalf("cached graph\n%+v\nfresh\n%+v", g, fresh)
	}
	return g
}

func hasFile(g Graph, f string) bool {
	for _, x := range g.Files {
		if x == f {
			return true
		}
	}
	return false
}

func TestGraphCacheHitIsTheFreshResult(t *testing.T) {
	f := newGraphFixture(t)
	g := f.analyze(false)
	if len(g.Files) != 4 || len(g.Missing) != 2 {
		t.Fatalf("files %v missing %v", g.Files, g.Missing)
	}
	f.analyze(true)
	f.analyze(true)
}

func TestGraphCacheChangedFile(t *testing.T) {
	f := newGraphFixture(t)
	f.analyze(false)
	f.write("ext/helper.js", `import "./extra"; export const helper = (m) => m;`)
	f.write("ext/extra.js", `export {};`)
	g := f.analyze(false)
	if !hasFile(g, filepath.Join(f.root, "ext", "extra.js")) {
		t.Fatalf("files %v", g.Files)
	}
}

// A file created where a probe looked (the missing ./later; helper.ts,
// which esbuild prefers to helper.js; the optional package) is found.
func TestGraphCacheNewFileAProbeFinds(t *testing.T) {
	for _, c := range []struct{ rel, want string }{
		{"ext/later.ts", "ext/later.ts"},
		{"ext/helper.ts", "ext/helper.ts"},
		{"node_modules/optional-pkg/index.js", "node_modules/optional-pkg/index.js"},
		{"ext/node_modules/pkg/index.js", "ext/node_modules/pkg/index.js"},
	} {
		t.Run(c.rel, func(t *testing.T) {
			f := newGraphFixture(t)
			f.analyze(false)
			f.analyze(true)
			f.write(c.rel, `export const helper = (m) => m; export default 2;`)
			g := f.analyze(false)
			if !hasFile(g, filepath.Join(f.root, c.want)) {
				t.Fatalf("files %v", g.Files)
			}
			f.analyze(true)
		})
	}
}

func TestGraphCachePackageJSONEdit(t *testing.T) {
	f := newGraphFixture(t)
	f.analyze(false)
	f.write("node_modules/pkg/lib/other.js", `module.exports = 3;`)
	f.backdate()
	f.analyze(false) // lib/ changed
	f.analyze(true)
	f.write("node_modules/pkg/package.json", `{"name":"pkg","main":"lib/other.js"}`)
	g := f.analyze(false)
	if !hasFile(g, filepath.Join(f.root, "node_modules/pkg/lib/other.js")) || hasFile(g, filepath.Join(f.root, "node_modules/pkg/lib/main.js")) {
		t.Fatalf("files %v", g.Files)
	}
}

// A main field naming a missing file falls back to index.js; creating
// the file it names is seen.
func TestGraphCacheMainFieldFallback(t *testing.T) {
	f := newGraphFixture(t)
	f.write("node_modules/pkg/package.json", `{"name":"pkg","main":"dist/main.js"}`)
	f.write("node_modules/pkg/index.js", `module.exports = 4;`)
	f.write("node_modules/pkg/dist/keep.txt", ``)
	f.backdate()
	g := f.analyze(false)
	if !hasFile(g, filepath.Join(f.root, "node_modules/pkg/index.js")) {
		t.Fatalf("files %v", g.Files)
	}
	f.analyze(true)
	f.write("node_modules/pkg/dist/main.js", `module.exports = 5;`)
	g = f.analyze(false)
	if !hasFile(g, filepath.Join(f.root, "node_modules/pkg/dist/main.js")) {
		t.Fatalf("files %v", g.Files)
	}
}

func TestGraphCacheCorruptEntryIgnored(t *testing.T) {
	f := newGraphFixture(t)
	f.analyze(false)
	entries, err := filepath.Glob(filepath.Join(f.cache, "*.json"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache files %v %v", entries, err)
	}
	for _, junk := range []string{"", "{", `{"version":1}`, "\x00\xff garbage"} {
		if err := os.WriteFile(entries[0], []byte(junk), 0o600); err != nil {
			t.Fatal(err)
		}
		f.analyze(false)
		f.analyze(true)
	}
	// Unreadable: a directory where the file was.
	if err := os.Remove(entries[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(entries[0], 0o700); err != nil {
		t.Fatal(err)
	}
	f.analyze(false)
	f.analyze(false)
}

// What provided answers is part of the result.
func TestGraphCacheProvidedAnswers(t *testing.T) {
	f := newGraphFixture(t)
	f.analyze(false)
	g, hit := cachedAnalyze(f.cache, f.entry, func(n string) bool { return n == "pkg" || Provides(n) })
	if hit || hasFile(g, filepath.Join(f.root, "node_modules/pkg/lib/main.js")) {
		t.Fatalf("hit %v files %v", hit, g.Files)
	}
}

// Paths changed just before the analysis are not trusted: not cached.
func TestGraphCacheRacyNotCached(t *testing.T) {
	f := newGraphFixture(t)
	graphClock = time.Now
	f.write("ext/helper.js", `export const helper = (m) => m + 1;`)
	f.analyze(false)
	f.analyze(false)
}

func TestPruneGraphs(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i := range 5 {
		p := filepath.Join(dir, string(rune('a'+i))+".json")
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := now.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	pruneGraphs(dir, 3, 1<<20)
	left, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(left) != 3 || filepath.Base(left[0]) != "c.json" {
		t.Fatalf("left %v", left)
	}
	pruneGraphs(dir, 3, 5) // two bytes each
	left, _ = filepath.Glob(filepath.Join(dir, "*.json"))
	if len(left) != 2 || filepath.Base(left[0]) != "d.json" {
		t.Fatalf("left %v", left)
	}
}

// A file created in a directory above the extension, where esbuild looks
// up only fixed names, keeps the entry; a package.json created there does
// not.
func TestGraphCacheUnrelatedFileAbove(t *testing.T) {
	f := newGraphFixture(t)
	f.analyze(false)
	f.write("unrelated.txt", "x")
	f.analyze(true)
	f.write("package.json", `{"type":"module"}`)
	f.analyze(false)
	f.analyze(true)
}

// A package linked into node_modules (pnpm's layout) pointed elsewhere.
func TestGraphCacheRelinkedPackage(t *testing.T) {
	f := newGraphFixture(t)
	for _, v := range []string{"a", "b"} {
		f.write("store/pkg-"+v+"/package.json", `{"name":"pkg","main":"`+v+`.js"}`)
		f.write("store/pkg-"+v+"/"+v+".js", `module.exports = 1;`)
	}
	link := filepath.Join(f.root, "node_modules", "pkg")
	if err := os.RemoveAll(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.root, "store", "pkg-a"), link); err != nil {
		t.Fatal(err)
	}
	f.backdate()
	g := f.analyze(false)
	if !hasFile(g, filepath.Join(f.root, "store/pkg-a/a.js")) {
		t.Fatalf("files %v", g.Files)
	}
	f.analyze(true)
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.root, "store", "pkg-b"), link); err != nil {
		t.Fatal(err)
	}
	g = f.analyze(false)
	if !hasFile(g, filepath.Join(f.root, "store/pkg-b/b.js")) {
		t.Fatalf("files %v", g.Files)
	}
}
