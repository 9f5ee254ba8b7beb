package nodeext

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/jsext"
)

func newChooser(t *testing.T, h *fakeHost) *Chooser {
	t.Helper()
	rt := newRuntime(t, h)
	return &Chooser{Goja: &jsext.Runtime{Log: slog.New(slog.DiscardHandler), CacheDir: t.TempDir()}, Node: rt}
}

// CopyTestdata copies a testdata extension into a directory of its own
// (the fallback tests' extensions write marks.txt next to themselves) and
// returns its path (also for the black-box tests).
func CopyTestdata(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, src, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Evaluations is how many times the extension's file was evaluated
// (lines of its marks.txt).
func Evaluations(t *testing.T, ext string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(ext), "marks.txt"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "loaded\n")
}

func chooserLoad(t *testing.T, c *Chooser, h *fakeHost, path string) (extensions.Extension, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ext, err := c.Load(ctx, extensions.Spec{Path: path, Kind: extensions.KindScript, Dir: filepath.Dir(path)}, h)
	if ext != nil {
		t.Cleanup(func() { ext.Close() })
	}
	return ext, err
}

func reasonOf(ext extensions.Extension) string {
	if r, ok := ext.(extensions.RuntimeReasoner); ok {
		return r.RuntimeReason()
	}
	return ""
}

// An extension that fails to load in goja on a module goja lacks, required
// at run time (which the import graph cannot see), is loaded in Node with
// what it registered there only; the choice is remembered, so a second
// load goes to Node without evaluating the file in goja.
func TestAutoLoadsInNodeWhatFailsInGojaAndRemembers(t *testing.T) {
	h := &fakeHost{}
	c := newChooser(t, h)
	p := CopyTestdata(t, "fallback.ts")
	ext, err := chooserLoad(t, c, h, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := ext.(extensions.RuntimeNamer).RuntimeName(); n != "node" {
		t.Fatalf("runtime %s", n)
	}
	if r := reasonOf(ext); !strings.Contains(r, `the module "node:worker_threads"`) || !strings.HasPrefix(r, "auto: ") {
		t.Fatalf("reason %q", r)
	}
	var names []string
	for _, cmd := range ext.Commands() {
		names = append(names, cmd.Name)
	}
	if strings.Join(names, ",") != "early,wt" {
		t.Fatalf("commands %v", names)
	}
	if n := Evaluations(t, p); n != 2 {
		t.Fatalf("evaluated %d times, want 2 (goja, then Node)", n)
	}
	if len(h.errors) != 0 {
		t.Fatalf("errors reported: %v", h.errors)
	}
	ext.Close()

	ext, err = chooserLoad(t, c, h, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := Evaluations(t, p); n != 3 {
		t.Fatalf("evaluated %d times in all, want 3 (the second load in Node only)", n)
	}
	if r := reasonOf(ext); !strings.Contains(r, "remembered") || !strings.Contains(r, "node:worker_threads") {
		t.Fatalf("reason %q", r)
	}
	ext.Close()

	// A new version of the extension is tried in goja again.
	if err := os.WriteFile(p, append(mustRead(t, p), []byte("\n// changed\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := chooserLoad(t, c, h, p); err != nil {
		t.Fatal(err)
	}
	if n := Evaluations(t, p); n != 5 {
		t.Fatalf("evaluated %d times in all, want 5 (a changed file: goja, then Node)", n)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A global goja lacks (a ReferenceError in goja) sends the extension to
// Node too.
func TestAutoLoadsInNodeWhatLacksAGlobalInGoja(t *testing.T) {
	h := &fakeHost{}
	c := newChooser(t, h)
	ext, err := chooserLoad(t, c, h, CopyTestdata(t, "messagechannel.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if n := ext.(extensions.RuntimeNamer).RuntimeName(); n != "node" {
		t.Fatalf("runtime %s", n)
	}
	if r := reasonOf(ext); !strings.Contains(r, "the global MessageChannel") {
		t.Fatalf("reason %q", r)
	}
}

// An error of the extension's own is reported as goja gave it, and the
// extension is not tried in Node (no Node process was started).
func TestAutoDoesNotRetryAnExtensionsOwnError(t *testing.T) {
	h := &fakeHost{}
	c := newChooser(t, h)
	p := CopyTestdata(t, "ownfault.ts")
	_, err := chooserLoad(t, c, h, p)
	if err == nil || !strings.Contains(err.Error(), "my own fault") {
		t.Fatalf("err %v", err)
	}
	if n := Evaluations(t, p); n != 1 {
		t.Fatalf("evaluated %d times, want 1", n)
	}
	c.Node.mu.Lock()
	started := c.Node.shared != nil || c.Node.progDir != ""
	c.Node.mu.Unlock()
	if started {
		t.Fatal("the Node runtime was used")
	}
}

// A goja extension says why it runs there.
func TestAutoNamesWhyGoja(t *testing.T) {
	h := &fakeHost{}
	c := newChooser(t, h)
	ext, err := chooserLoad(t, c, h, CopyTestdata(t, "both.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if n := ext.(extensions.RuntimeNamer).RuntimeName(); n != "goja" || !strings.Contains(reasonOf(ext), "provides everything") {
		t.Fatalf("runtime %s: %q", n, reasonOf(ext))
	}
}

func TestGojaLacked(t *testing.T) {
	pkg := Graph{Files: []string{"/x/ext.ts", "/x/node_modules/@s/pkg/index.js"}}
	for _, c := range []struct {
		err  string
		g    Graph
		want string
	}{
		{"ReferenceError: Intl is not defined (intl.ts:2:17)", Graph{}, "the global Intl"},
		{"the extension's factory failed: ReferenceError: fetch is not defined (f.ts:4:13)", Graph{}, "the global fetch"},
		{"the extension's factory failed: ReferenceError: notDefinedAnywhere is not defined (typo.ts:2:22)", Graph{}, ""},
		{`the extension's factory failed: Cannot find module "node:sqlite": it is neither a file next to the script, a package in node_modules, nor a module atomic provides (s.ts:5:36)`, Graph{}, `the module "node:sqlite"`},
		{`Cannot find module "worker_threads": it is neither a file next to the script, a package in node_modules, nor a module atomic provides (s.ts:5:36)`, Graph{}, `the module "worker_threads"`},
		{`Cannot find module "@s/pkg/sub": it is neither a file next to the script, a package in node_modules, nor a module atomic provides (s.ts:5:36)`, pkg, `the module "@s/pkg/sub"`},
		{`Cannot find module "left-pad": it is neither a file next to the script, a package in node_modules, nor a module atomic provides (s.ts:5:36)`, pkg, ""},
		{`Cannot find module "./helper": it is neither a file next to the script, a package in node_modules, nor a module atomic provides (s.ts:5:36)`, pkg, ""},
		{"the extension's factory failed: fs.watch() is not available to extensions: use readFile/writeFile (sync or promise forms) (fsw.ts:2:41)", Graph{}, "fs.watch()"},
		{`the extension's factory failed: "styleText" is not available from "node:util" in atomic's script runtime (m.ts:3:42)`, Graph{}, `styleText from the module "node:util"`},
		{`the extension's factory failed: "getPackageDir" is not available from "@earendil-works/pi-coding-agent" in atomic's script runtime (m.ts:2:32)`, Graph{}, ""},
		{"SyntaxError: Invalid flags supplied to RegExp constructor 'v' at /tmp/fb/syntax.js:2:10", Graph{}, "syntax the built-in runtime cannot parse"},
		{"SyntaxError: Unexpected token at /tmp/x.js:3:1", Graph{}, "syntax the built-in runtime cannot parse"},
		{"the extension's factory failed: SyntaxError: invalid character 'b' (json.ts:1:43)", Graph{}, ""},
		{`badts.ts:1:42: Unexpected ";"`, Graph{}, ""},
		{"the extension's factory failed: my own fault (thrower.ts:3:9)", Graph{}, ""},
		{"the extension's factory failed: ReferenceError: Intl is made up (x.ts:1:1)", Graph{}, ""},
		{"the extension did not finish loading within the start-up deadline", Graph{}, ""},
	} {
		if got := gojaLacked(errors.New(c.err), c.g); got != c.want {
			t.Errorf("%s: got %q, want %q", c.err, got, c.want)
		}
	}
}

// A choice file that is not what recall wrote (garbage, another entry,
// another version, too big) is no memory: goja is tried.
func TestCorruptChoiceIsIgnored(t *testing.T) {
	dir := t.TempDir()
	entry := filepath.Join(dir, "ext.ts")
	if err := os.WriteFile(entry, []byte("export default function () {}"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := Graph{Entry: entry, Files: []string{entry}}
	store := choiceStore{dir: filepath.Join(dir, "choices"), version: "v1"}
	store.remember(g, "because")
	if why, ok := store.recall(g); !ok || why != "because" {
		t.Fatalf("recall: %q %v", why, ok)
	}
	if _, ok := (choiceStore{dir: store.dir, version: "v2"}).recall(g); ok {
		t.Fatal("another version recalled")
	}
	for _, bad := range []string{"", "{", "null", `{"version":"v1","entry":"/other","digest":"x","runtime":"node","reason":"r"}`,
		strings.Repeat("x", maxChoiceBytes+1)} {
		if err := os.WriteFile(store.file(entry), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := store.recall(g); ok {
			t.Fatalf("recalled from %.40q", bad)
		}
	}
	// A directory where the file should be: no memory, no crash, and
	// remember does not fail loudly.
	_ = os.Remove(store.file(entry))
	if err := os.Mkdir(store.file(entry), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, ok := store.recall(g); ok {
		t.Fatal("recalled from a directory")
	}
	store.remember(g, "because")
}

// esbuild's own helper module (its CommonJS wrapper, "<runtime>" in the
// metafile) is not a module goja lacks.
func TestGojaLacksIgnoresEsbuildsRuntime(t *testing.T) {
	g := Graph{External: []Import{{Name: "<runtime>", Kind: "import-statement", Importer: "/x/node_modules/elkjs/lib/elk.bundled.js"}, {Name: "node:fs"}}}
	if got := GojaLacks(g); len(got) != 0 {
		t.Fatalf("lacks %v", got)
	}
}
