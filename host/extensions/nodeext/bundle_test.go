package nodeext

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
)

// WriteBundleFixture writes a package for the bundle tests into dir and
// returns its entry: TypeScript with an extensionless relative import, a
// dependency under node_modules that reads a file next to itself through
// import.meta.url, a CommonJS dependency that uses __dirname and requires a
// built-in and an optional package that is not installed, a CommonJS file
// of its own required through createRequire(import.meta.url), TypeBox, and
// an import() of a name known only when it runs (resolved from the file).
func WriteBundleFixture(t testing.TB, dir string) string {
	t.Helper()
	files := map[string]string{
		"package.json": `{"name":"bundled-ext","type":"module"}`,
		"index.ts": `import { greeting } from "dep";
import where from "./helper";
import legacy from "cjsdep";
import { createRequire } from "node:module";
import { Type } from "@sinclair/typebox";
const require = createRequire(import.meta.url);
const own = require("./own.cjs");
export default function (pi: any) {
  pi.registerCommand("where", {
    description: "where everything is",
    handler: async (_args: string, ctx: any) => {
      ctx.ui.notify([greeting(), where(), own.dir, legacy.file, legacy.optional, import.meta.filename, __dirname].join("|"), "info");
    },
  });
  pi.registerCommand("boom", { description: "fails", handler: async () => { throw new Error("bundled boom"); } });
  pi.registerCommand("later", {
    description: "import() of a name given at run time",
    handler: async (args: string, ctx: any) => {
      const m = await import(args);
      ctx.ui.notify("later: " + m.value, "info");
    },
  });
  pi.registerTool({
    name: "shout", label: "Shout", description: "Shout the text",
    parameters: Type.Object({ text: Type.String() }),
    async execute(_id: string, p: { text: string }) {
      return { content: [{ type: "text", text: p.text.toUpperCase() + " " + greeting() }], details: {} };
    },
  });
  pi.registerCommand("stack", { handler: async (_a: string, ctx: any) => { ctx.ui.notify(String(new Error("here").stack).split("\n").slice(0, 2).join("|"), "info"); } });
}
`,
		"helper.ts":                        `export default function where(): string { return new URL(".", import.meta.url).pathname; }` + "\n",
		"own.cjs":                          `module.exports = { dir: __dirname };` + "\n",
		"later.js":                         `export const value = "from later.js";` + "\n",
		"node_modules/dep/package.json":    `{"name":"dep","type":"module","main":"index.js"}`,
		"node_modules/dep/index.js":        `import { readFileSync } from "node:fs";` + "\n" + `const text = readFileSync(new URL("./prompt.md", import.meta.url), "utf8").trim();` + "\n" + `export const greeting = () => text;` + "\n",
		"node_modules/dep/prompt.md":       "hello from dep\n",
		"node_modules/cjsdep/package.json": `{"name":"cjsdep","main":"lib/index.js"}`,
		"node_modules/cjsdep/lib/index.js": `const path = require("path");` + "\n" + `let optional = "no optional";` + "\n" + `try { require("not-installed-optional"); optional = "optional found"; } catch (e) { optional = e.code; }` + "\n" + `module.exports = { file: path.join(__dirname, "x.txt"), optional };` + "\n",
	}
	for rel, src := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "index.ts")
}

// observeBundles records what each bundle lookup found.
func observeBundles(t *testing.T) func() []bundleResult {
	var mu sync.Mutex
	var seen []bundleResult
	old := bundleObserver
	bundleObserver = func(_ string, r bundleResult) {
		mu.Lock()
		seen = append(seen, r)
		mu.Unlock()
	}
	t.Cleanup(func() { bundleObserver = old })
	// What the test writes is older than the cache's racy window.
	oldClock := graphClock
	graphClock = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { graphClock = oldClock })
	return func() []bundleResult {
		mu.Lock()
		defer mu.Unlock()
		return append([]bundleResult(nil), seen...)
	}
}

func notified(t *testing.T, h *fakeHost) string {
	t.Helper()
	select {
	case ui := <-h.uiCh:
		return ui
	case <-time.After(30 * time.Second):
		t.Fatal("no notification")
		return ""
	}
}

// A package loads as one bundle in Node; each file keeps its own
// import.meta, __dirname and require; its command and tool work; the
// second load takes the bundle from the cache.
func TestBundledExtensionLoadsAndKeepsItsFiles(t *testing.T) {
	seen := observeBundles(t)
	h := &fakeHost{uiCh: make(chan string, 10)}
	rt := newRuntime(t, h)
	dir := t.TempDir()
	entry := WriteBundleFixture(t, dir)
	ext := loadExt(t, rt, h, entry, extensions.Options{})
	s := seen()
	if len(s) != 1 || s[0].Path == "" || s[0].Hit {
		t.Fatalf("bundle lookups: %+v", s)
	}
	if s[0].Hooks {
		t.Fatalf("this bundle needs no module hooks: %+v", s[0])
	}
	ctx := context.Background()
	if err := ext.RunCommand(ctx, "where", ""); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{"hello from dep", dir + "/", dir, filepath.Join(dir, "node_modules", "cjsdep", "lib", "x.txt"),
		"MODULE_NOT_FOUND", entry, dir}, "|")
	if ui := notified(t, h); !strings.Contains(ui, want) {
		t.Fatalf("where: %s\nwant %s", ui, want)
	}
	if err := ext.RunCommand(ctx, "later", "./later.js"); err != nil {
		t.Fatal(err)
	}
	if ui := notified(t, h); !strings.Contains(ui, "later: from later.js") {
		t.Fatalf("later: %s", ui)
	}
	// Errors name the original file and position (the bundle's source map).
	if err := ext.RunCommand(ctx, "boom", ""); err == nil || !strings.Contains(err.Error(), "bundled boom (index.ts:15:83)") {
		t.Fatalf("boom: %v", err)
	}
	// The extension's own stack traces too (the map is read when needed).
	if err := ext.RunCommand(ctx, "stack", ""); err != nil {
		t.Fatal(err)
	}
	if ui := notified(t, h); !strings.Contains(ui, "Error: here|    at ") || !strings.Contains(ui, entry+":30:97)") {
		t.Fatalf("stack: %s", ui)
	}
	res, err := ext.ExecuteTool(ctx, "shout", "c1", map[string]any{"text": "hey"}, nil)
	if err != nil || res.ResultText() != "HEY hello from dep" {
		t.Fatalf("tool: %+v %v", res, err)
	}
	ext.Close()

	loadExt(t, rt, h, entry, extensions.Options{})
	if s := seen(); len(s) != 2 || !s[1].Hit || s[1].Path != s[0].Path {
		t.Fatalf("second load: %+v", s)
	}
}

// A changed source file makes a new bundle; a bundle file whose content
// is not what was written is rebuilt and rewritten, and so is a cache
// entry that does not parse.
func TestBundleCacheInvalidation(t *testing.T) {
	seen := observeBundles(t)
	rt := &Runtime{CacheDir: t.TempDir()}
	prog, err := rt.programDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	entry := WriteBundleFixture(t, dir)
	first := rt.bundle(prog, entry)
	if first.Path == "" || first.Hit {
		t.Fatalf("first: %+v", first)
	}
	if again := rt.bundle(prog, entry); !again.Hit || again.Path != first.Path {
		t.Fatalf("again: %+v", again)
	}

	// A dependency's source changes.
	dep := filepath.Join(dir, "node_modules", "dep", "index.js")
	src, _ := os.ReadFile(dep)
	if err := os.WriteFile(dep, append(src, []byte("globalThis.__extraMark = \"extra\";\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := rt.bundle(prog, entry)
	if changed.Hit || changed.Path == "" || changed.Path == first.Path {
		t.Fatalf("after a change: %+v (before %s)", changed, first.Path)
	}
	code, _ := os.ReadFile(changed.Path)
	if !bytes.Contains(code, []byte("extra")) {
		t.Fatal("the new bundle lacks the change")
	}

	// The bundle file is damaged: rebuilt, rewritten.
	if err := os.WriteFile(changed.Path, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	fixed := rt.bundle(prog, entry)
	if fixed.Hit || fixed.Path != changed.Path {
		t.Fatalf("damaged bundle: %+v", fixed)
	}
	if now, _ := os.ReadFile(fixed.Path); !bytes.Equal(now, code) {
		t.Fatal("the damaged bundle was not rewritten")
	}
	if r := rt.bundle(prog, entry); !r.Hit {
		t.Fatalf("after the rewrite: %+v", r)
	}

	// The cache entry is damaged.
	entries, _ := filepath.Glob(filepath.Join(rt.cacheDir(), "bundles", "graphs", "*.json"))
	if len(entries) != 1 {
		t.Fatalf("cache entries: %v", entries)
	}
	if err := os.WriteFile(entries[0], []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := rt.bundle(prog, entry); r.Hit || r.Path != changed.Path {
		t.Fatalf("damaged entry: %+v", r)
	}
	if r := rt.bundle(prog, entry); !r.Hit {
		t.Fatalf("after the entry was rewritten: %+v", r)
	}
	if n := len(seen()); n != 7 {
		t.Fatalf("%d lookups observed, want 7", n)
	}
}

// An extension a bundle cannot keep the same (require.resolve, which
// would resolve from the bundle's place) is loaded file by file as
// before, and the reason is given.
func TestUnbundleableExtensionLoadsFileByFile(t *testing.T) {
	seen := observeBundles(t)
	h := &fakeHost{uiCh: make(chan string, 10)}
	rt := newRuntime(t, h)
	dir := t.TempDir()
	entry := filepath.Join(dir, "resolver.ts")
	if err := os.WriteFile(entry, []byte(`const side = require.resolve("./side.js");
export default function (pi: any) {
  pi.registerCommand("side", { handler: async (_a: string, ctx: any) => ctx.ui.notify("side at " + side, "info") });
  pi.registerCommand("boom", { handler: async (): Promise<void> => { throw new Error("file boom"); } });
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "side.js"), []byte("module.exports = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ext := loadExt(t, rt, h, entry, extensions.Options{})
	s := seen()
	if len(s) != 1 || s[0].Path != "" || !strings.Contains(s[0].Why, "require.resolve") {
		t.Fatalf("bundle lookups: %+v", s)
	}
	if err := ext.RunCommand(context.Background(), "side", ""); err != nil {
		t.Fatal(err)
	}
	if ui := notified(t, h); !strings.Contains(ui, "side at "+filepath.Join(dir, "side.js")) {
		t.Fatalf("side: %s", ui)
	}
	// Positions are the TypeScript file's (its transform's inline map).
	if err := ext.RunCommand(context.Background(), "boom", ""); err == nil || !strings.Contains(err.Error(), "file boom (resolver.ts:4:") {
		t.Fatalf("boom: %v", err)
	}
}

// import() calls are made the file's own where they are calls, not where
// the text is in a string or a template.
func TestOwnImportsLeaveStringsAlone(t *testing.T) {
	bd := &bundling{provided: Provides}
	code := "const a = (x) => import(x);\nconst s = `import(${y})`;\nconst t = \"import(z)\";\nconst p = import(\"some-package\");\nconst q = import(\"./local.js\");\nconst v = import(\"@earendil-works/pi-ai\");\n"
	if metaLeft("const s = \"import.meta.main\"; // import.meta\nconst u = \"file:///x\";") {
		t.Error("import.meta in a string or a comment counted as a reference")
	}
	if !metaLeft("const m = import.meta;") || !metaLeft("const m = import.meta.main;") {
		t.Error("a reference to import.meta not seen")
	}
	out := bd.ownImports("/x/f.js", code)
	if len(bd.why) > 0 {
		t.Fatal(bd.why)
	}
	if !regexp.MustCompile(`const p = __a\w{3}\("some-package"\)`).MatchString(out) {
		t.Errorf("the package import is not the file's own:\n%s", out)
	}
	for _, want := range []string{"(x) => __a000(x)", "`import(${y})`", `"import(z)"`, `import("./local.js")`, `import("@earendil-works/pi-ai")`, `globalThis.__atomicImport(s, "file:///x/f.js", o)`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
}

// A bundle Node cannot link (a name a virtual module does not export) is
// loaded file by file, which fails as it always did: the same error.
func TestBundleThatDoesNotLinkFailsAsBefore(t *testing.T) {
	seen := observeBundles(t)
	h := &fakeHost{}
	rt := newRuntime(t, h)
	var logged safeBuffer
	rt.Log = slog.New(slog.NewTextHandler(&logged, nil))
	entry := filepath.Join(t.TempDir(), "nolink.ts")
	if err := os.WriteFile(entry, []byte(`import { notExportedByPi } from "@mariozechner/pi-coding-agent";
export default function (pi: any) { pi.registerCommand("x", { handler: async () => notExportedByPi }); }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ext, err := rt.Load(ctx, extensions.Spec{Path: entry, Kind: extensions.KindScript, Dir: filepath.Dir(entry)}, h)
	if err == nil {
		ext.Close()
		t.Fatal("loaded")
	}
	if !strings.Contains(err.Error(), "notExportedByPi") {
		t.Fatalf("error: %v", err)
	}
	if s := seen(); len(s) != 1 || s[0].Path == "" {
		t.Fatalf("bundle lookups: %+v", s)
	}
	if !strings.Contains(logged.String(), "Node extension bundle not used: loading it file by file") {
		t.Fatalf("the file-by-file load was not tried:\n%s", logged.String())
	}
}

// safeBuffer is a bytes.Buffer for a logger that writes from several
// goroutines.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
