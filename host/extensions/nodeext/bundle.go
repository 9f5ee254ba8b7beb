package nodeext

// Bundles: a Node-runtime extension loaded as one file. esbuild bundles
// the extension's import graph once (the same build that reads the graph,
// analyze.go, with bundling options), the virtual modules and aliases
// resolved, Node's built-ins left to Node; the Node host imports the file
// as an ordinary ES module, without its module hooks (which Node runs on
// a thread of their own, a round trip per module) on the path.
//
// Each file keeps what it knows of itself: import.meta.url, .filename,
// .dirname and __filename/__dirname are the original file's (replaced per
// file with esbuild's define, so only real references change, not strings
// or shadowing names), import.meta.resolve resolves from the original
// file, and createRequire(import.meta.url) is therefore the original
// file's require. A virtual module (the pi packages, TypeBox) is a small
// ES module file the Node host writes into its program directory
// (virtual/<hex of the name>.mjs, exporting the names the stand-in has);
// required from CommonJS it is the stand-in's object, bundled.
//
// What a bundle cannot keep the same is not bundled: the extension is
// then loaded file by file as before, and the log says why (Info): an
// import() or require() whose argument is not a string (it would resolve
// from the bundle's place), require.resolve and the other uses of require
// as a value, import.meta used otherwise than by those members, a file that
// is not JavaScript, TypeScript or JSON (a native addon, an asset), an
// import that resolves to nothing, and anything esbuild fails on.
//
// The cache: the bundle is written under the runtime's cache directory
// (bundles/<key>.mjs and its source map), key = a digest of bundlerVersion,
// the Node host program and stand-ins (its directory's name), esbuild's
// version and the content of every input file. Which bundle an entry has
// is kept like the import graph (graphcache.go: valid while every path
// the build depended on is as it was, checked by lstat at the next start)
// in bundles/graphs/, with the digest of the bundle and map files: a
// bundle whose content does not match is rebuilt and rewritten. Files are
// written atomically (a temporary file renamed into place); at most
// maxBundles bundles and maxBundleTotal bytes are kept, the least
// recently used removed first.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/atomic-go/atomic/host/extensions/jsext"
	"github.com/atomic-go/atomic/internal/fsutil"
)

// bundlerVersion changes whenever a bundle can change for the same inputs
// (cache key).
const bundlerVersion = "bundle-2"

// Bounds of the bundle cache: bundles kept and their total size (with
// their source maps), the size of one.
const (
	maxBundles      = 64
	maxBundleTotal  = 512 << 20
	maxBundleBytes  = 64 << 20
	maxBundleReason = 8
)

// virtualNamespace is esbuild's namespace of the virtual modules required
// from CommonJS (bundled as the stand-in's object).
const virtualNamespace = "atomic-virtual"

// requireNamespace is esbuild's namespace of the packages a CommonJS file
// requires that esbuild does not find (an optional dependency in a try):
// required from the file when the require runs, as Node would.
const requireNamespace = "atomic-require"

// builtinNamespace is esbuild's namespace of the Node built-ins that an
// import statement names and whose ES module facade costs more than the
// module (builtinFacades): the bundle requires them instead.
const builtinNamespace = "atomic-builtin"

// builtinFacades are the built-ins whose ES module facade, which reads
// every export, loads more than their CommonJS object: "http" reads its
// lazy WebSocket getters and loads undici (about 70 more internal
// modules and tens of milliseconds of a start); "fs", "util", "sys" and
// "process" load the streams. Imported by a statement, they are bundled
// as require()d modules: the names are the same properties, read when
// used (esbuild's namespace object for a CommonJS module), and the
// default import is the module object, as Node's is.
var builtinFacades = map[string]bool{"fs": true, "http": true, "util": true, "sys": true, "process": true}

// bundleBanner gives the bundle a require for esbuild's require shim,
// which CommonJS code's require() of Node's built-ins goes through (every
// other require() is bundled). One line: the source map's lines stay.
const bundleBanner = `import { createRequire as __atomicCreateRequire } from "node:module"; var require = __atomicCreateRequire(import.meta.url);`

// bundleRef is the bundle of an entry as its cache entry records it.
type bundleRef struct {
	// Key names the files bundles/<Key>.mjs and .mjs.map.
	Key    string `json:"key,omitempty"`
	Sum    string `json:"sum,omitempty"`
	MapSum string `json:"mapSum,omitempty"`
	// Hooks: the extension import()s a package by name (not bundled, left
	// to load on first use as before): Node's module hooks must be in
	// place for it.
	Hooks bool `json:"hooks,omitempty"`
	// Why it is not bundled (the extension is loaded file by file).
	Why string `json:"why,omitempty"`
}

// bundling is one build's bundling state (callbacks run concurrently).
type bundling struct {
	provided   func(string) bool
	virtualDir string
	outfile    string
	mu         sync.Mutex
	why        []string
	hooks      bool
	code, smap []byte
}

func (bd *bundling) refuse(format string, args ...any) {
	bd.mu.Lock()
	defer bd.mu.Unlock()
	if len(bd.why) < maxBundleReason {
		bd.why = append(bd.why, fmt.Sprintf(format, args...))
	}
}

// virtualFile is the Node host's file of a virtual module (host.mjs
// writes it: the same name rule).
func virtualFile(progDir, name string) string {
	return filepath.Join(progDir, "virtual", hex.EncodeToString([]byte(name))+".mjs")
}

func fileURL(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

// virtual resolves a virtual module: imported, the host's ES module file
// (external: Node loads it); required, the stand-in's object (bundled).
func (bd *bundling) virtual(a api.OnResolveArgs) (api.OnResolveResult, error) {
	switch a.Kind {
	case api.ResolveJSRequireCall:
		return api.OnResolveResult{Path: a.Path, Namespace: virtualNamespace}, nil
	case api.ResolveJSRequireResolve:
		bd.refuse("require.resolve(%q) of a module the agent provides", a.Path)
		return api.OnResolveResult{Path: a.Path, External: true}, nil
	}
	return api.OnResolveResult{Path: fileURL(virtualFile(bd.virtualDir, a.Path)), External: true}, nil
}

// builtin resolves a Node built-in: external, except one that
// builtinFacades names imported by a statement.
func (bd *bundling) builtin(a api.OnResolveArgs) (api.OnResolveResult, error) {
	if a.Kind == api.ResolveJSImportStatement && builtinFacades[strings.TrimPrefix(a.Path, "node:")] {
		return api.OnResolveResult{Path: a.Path, Namespace: builtinNamespace}, nil
	}
	return api.OnResolveResult{Path: a.Path, External: true}, nil
}

// lazyPackage resolves import() of a package by name: not bundled (such
// a package may be very large and used rarely), imported by its file URL
// when it runs, through Node's module hooks as before.
func (bd *bundling) lazyPackage(b api.PluginBuild, a api.OnResolveArgs, rec *lookups) (api.OnResolveResult, error) {
	r := b.Resolve(a.Path, api.ResolveOptions{ResolveDir: a.ResolveDir, Kind: a.Kind, Importer: a.Importer, PluginData: resolving{}})
	rec.add(lookup{spec: a.Path, dir: a.ResolveDir, failed: len(r.Errors) > 0})
	bd.mu.Lock()
	bd.hooks = true
	bd.mu.Unlock()
	if len(r.Errors) > 0 || r.External || r.Namespace != "file" || !filepath.IsAbs(r.Path) {
		// As before: Node resolves it when it runs (and fails then).
		return api.OnResolveResult{Path: a.Path, External: true}, nil
	}
	return api.OnResolveResult{Path: fileURL(r.Path), External: true}, nil
}

// requireLater resolves a require() of a package esbuild does not find to
// a module that requires it from the importing file when it runs.
func (bd *bundling) requireLater(a api.OnResolveArgs) (api.OnResolveResult, error) {
	return api.OnResolveResult{Path: a.Path, Namespace: requireNamespace, PluginData: a.Importer}, nil
}

// nameOf is the module name of an external path of the bundle's metafile.
func (bd *bundling) nameOf(path, original string) string {
	if rest, ok := strings.CutPrefix(path, virtualNamespace+":"); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(path, builtinNamespace+":"); ok {
		return rest
	}
	if strings.HasPrefix(path, "file://") && original != "" {
		return original
	}
	return path
}

func (bd *bundling) setup(b api.PluginBuild) {
	b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: virtualNamespace}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
		name, _ := json.Marshal(a.Path)
		code := "module.exports = globalThis.__atomicVirtualModule(" + string(name) + ");"
		return api.OnLoadResult{Contents: &code, Loader: api.LoaderJS}, nil
	})
	b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: requireNamespace}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
		importer, _ := a.PluginData.(string)
		name, _ := json.Marshal(a.Path)
		from, _ := json.Marshal(fileURL(importer))
		code := "module.exports = globalThis.__atomicRequire(" + string(from) + ", " + string(name) + ");"
		return api.OnLoadResult{Contents: &code, Loader: api.LoaderJS}, nil
	})
	b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: builtinNamespace}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
		name, _ := json.Marshal(a.Path)
		code := "module.exports = require(" + string(name) + ");"
		return api.OnLoadResult{Contents: &code, Loader: api.LoaderJS}, nil
	})
	b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "file"}, bd.load)
}

// load reads one file of the bundle (the regular-file rule, as
// loadSource), with its own import.meta and __dirname/__filename.
func (bd *bundling) load(a api.OnLoadArgs) (api.OnLoadResult, error) {
	loader, ok := sourceLoaders[strings.ToLower(filepath.Ext(a.Path))]
	if !ok {
		if _, err := fsutil.StatRegular(a.Path); err != nil {
			return api.OnLoadResult{}, err
		}
		bd.refuse("it loads %s, which is not JavaScript, TypeScript or JSON", a.Path)
		empty := ""
		return api.OnLoadResult{Contents: &empty, Loader: api.LoaderEmpty}, nil
	}
	src, err := jsext.ReadSource(a.Path)
	if err != nil {
		return api.OnLoadResult{}, err
	}
	code := string(src)
	if loader == api.LoaderJSON || !perFileNames().MatchString(code) {
		return api.OnLoadResult{Contents: &code, Loader: loader}, nil
	}
	out, err := bd.ownNames(a.Path, code, loader)
	if err != nil {
		return api.OnLoadResult{}, err
	}
	return api.OnLoadResult{Contents: &out, Loader: api.LoaderJS}, nil
}

var perFileNames = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`import\s*\.\s*meta|__dirname|__filename|import\s*\(`)
})

// resolveName is the name a file's import.meta.resolve becomes.
const resolveName = "__atomic_import_meta_resolve"

// ownNames replaces a file's import.meta members and __dirname/__filename
// by the original file's (esbuild's define: references only, not
// strings, not names the file declares itself), keeping its positions in
// an inline source map the bundle's map builds on. __dirname and
// __filename are given in ES modules too, as pi's loader does.
func (bd *bundling) ownNames(file, code string, loader api.Loader) (string, error) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	dir := filepath.Dir(file)
	r := api.Transform(code, api.TransformOptions{
		Loader: loader, Sourcefile: file, Sourcemap: api.SourceMapInline, LogLevel: api.LogLevelSilent,
		Define: map[string]string{
			"import.meta.url": q(fileURL(file)), "import.meta.filename": q(file), "import.meta.dirname": q(dir),
			"import.meta.resolve": resolveName, "__filename": q(file), "__dirname": q(dir),
		},
	})
	if len(r.Errors) > 0 {
		return "", transformError(file, r.Errors[0])
	}
	out := string(r.Code)
	if strings.Contains(out, "import.meta") && metaLeft(out) {
		bd.refuse("%s uses import.meta otherwise than .url, .filename, .dirname and .resolve", file)
	}
	if dynamicImport().MatchString(out) {
		out = bd.ownImports(file, out)
	}
	if strings.Contains(out, resolveName) {
		// Prepended on the first line: the source map's lines stay.
		out = "var " + resolveName + " = (s) => globalThis.__atomicResolve(s, " + q(fileURL(file)) + "); " + out
	}
	return out, nil
}

// metaLeft reports whether code still refers to import.meta (a define
// replaces references, not the text of a string or a comment).
func metaLeft(code string) bool {
	const left = "__atomic_import_meta_left"
	if strings.Contains(code, left) {
		return true
	}
	r := api.Transform(code, api.TransformOptions{Loader: api.LoaderJS, LogLevel: api.LogLevelSilent, Define: map[string]string{"import.meta": left}})
	return len(r.Errors) > 0 || strings.Contains(string(r.Code), left)
}

// ownImports makes a file's import() calls whose argument is not a string,
// or is a package's name, resolve from the file (where the bundle's own
// import() would resolve from the bundle; a package imported so is not
// bundled: it may be very large and used rarely): each becomes a call of
// a function of the file's that resolves the name from the file
// (globalThis.__atomicImport, host.mjs) and imports that. The calls are found in esbuild's printed code, each
// replaced by a name of its own as long as "import" (columns, and so the
// source map, stay); esbuild then says which of them are references (a
// define replaces those, not one inside a string or a template), and the
// others are put back. The host puts its module hooks in place at the
// first such call: what it loads was loaded through them before.
func (bd *bundling) ownImports(file, code string) string {
	end := len(code)
	if i := strings.LastIndex(code, "\n//# sourceMappingURL="); i >= 0 {
		end = i
	}
	body := code[:end]
	var sites [][]int
	for _, m := range dynamicImport().FindAllStringSubmatchIndex(body, -1) {
		if m[2] >= 0 {
			name := body[m[2]:m[3]]
			if isRelative(name) || strings.HasPrefix(name, "#") || strings.Contains(name, ":") || isBuiltin(name) || bd.provided(name) {
				continue // bundled, Node's, or the host's file of it
			}
		}
		sites = append(sites, m[:2])
	}
	if len(sites) == 0 {
		return code
	}
	var markers []string
	for n := 0; len(markers) < len(sites) && n < 36*36*36; n++ {
		m := "__a" + fmt.Sprintf("%03s", strconv.FormatInt(int64(n), 36))
		if !strings.Contains(code, m) {
			markers = append(markers, m)
		}
	}
	if len(markers) < len(sites) {
		bd.refuse("%s calls import() with a value that is not a string", file)
		return code
	}
	replace := func(keep map[string]bool) string {
		var b strings.Builder
		last := 0
		for i, s := range sites {
			at := s[0] + strings.Index(body[s[0]:s[1]], "import(")
			b.WriteString(body[last:at])
			if keep == nil || keep[markers[i]] {
				b.WriteString(markers[i])
			} else {
				b.WriteString("import")
			}
			last = at + len("import")
		}
		b.WriteString(body[last:])
		return b.String()
	}
	defines := map[string]string{}
	for _, m := range markers {
		defines[m] = "__atomic_checked"
	}
	check := api.Transform(replace(nil), api.TransformOptions{Loader: api.LoaderJS, LogLevel: api.LogLevelSilent, Define: defines})
	if len(check.Errors) > 0 {
		bd.refuse("%s calls import() with a value that is not a string", file)
		return code
	}
	calls := map[string]bool{}
	for _, m := range markers {
		if !strings.Contains(string(check.Code), m) {
			calls[m] = true
		}
	}
	if len(calls) == 0 {
		return code // all in strings
	}
	// The same check of the result: exactly those are references.
	final := replace(calls)
	again := api.Transform(final, api.TransformOptions{Loader: api.LoaderJS, LogLevel: api.LogLevelSilent, Define: defines})
	if len(again.Errors) > 0 {
		bd.refuse("%s calls import() with a value that is not a string", file)
		return code
	}
	for m := range calls {
		if strings.Contains(string(again.Code), m) {
			bd.refuse("%s calls import() with a value that is not a string", file)
			return code
		}
	}
	q, _ := json.Marshal(fileURL(file))
	var pre strings.Builder
	pre.WriteString("var __atomicOwnImport = (s, o) => globalThis.__atomicImport(s, " + string(q) + ", o)")
	for m := range calls {
		pre.WriteString(", " + m + " = __atomicOwnImport")
	}
	pre.WriteString("; ")
	return pre.String() + final + code[end:]
}

func (bd *bundling) options(o *api.BuildOptions) {
	o.Outdir = ""
	o.Outfile = bd.outfile
	o.Sourcemap = api.SourceMapExternal
	// Stack traces need the positions, not the sources (which the files
	// have): a smaller map for Node to read at each start.
	o.SourcesContent = api.SourcesContentExclude
	o.Banner = map[string]string{"js": bundleBanner}
	// Node ignores "sideEffects" and /* @__PURE__ */: nothing a module
	// does when it is evaluated is left out. Function and class names stay
	// the files' own where the bundle renames them.
	o.IgnoreAnnotations = true
	o.KeepNames = true
	o.LegalComments = api.LegalCommentsNone
	o.Loader = nil
}

func (bd *bundling) output(files []api.OutputFile) {
	for _, f := range files {
		switch {
		case strings.HasSuffix(f.Path, ".map"):
			bd.smap = f.Contents
		case strings.HasSuffix(f.Path, ".mjs"):
			bd.code = f.Contents
		}
	}
}

var (
	// An import() in esbuild's printed code (ownImports): the name when
	// it is a string literal.
	dynamicImport = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[^\w$.])import\((?:"((?:[^"\\\n]|\\.)*)"|\s*[^"'\s])`)
	})
	// esbuild's require shim called with a value, or used as a value
	// (require.resolve, require.cache…).
	nonLiteralRequire = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b__require(?:\(\s*[^"'\s]|\.)`) })
)

// bundleStore is the directory of bundles of one Node host program.
type bundleStore struct {
	dir     string // <cache>/bundles
	progDir string // the host program's directory (virtual modules)
}

func (rt *Runtime) bundles(progDir string) bundleStore {
	return bundleStore{dir: filepath.Join(rt.cacheDir(), "bundles"), progDir: progDir}
}

func (s bundleStore) version() string {
	return graphVersion() + ";" + bundlerVersion + ";" + filepath.Base(s.progDir)
}

func (s bundleStore) path(key string) string { return filepath.Join(s.dir, key+".mjs") }

// build bundles entry, writes the bundle and its map, and returns the
// graph the build read with the bundle's record (Why set when it cannot
// be bundled).
func (s bundleStore) build(entry string, provided func(string) bool) (Graph, *lookups, *bundleRef) {
	bd := &bundling{provided: provided, virtualDir: s.progDir, outfile: filepath.Join(s.dir, "bundle.mjs")}
	g, rec := readGraph(entry, provided, bd)
	ref := &bundleRef{Hooks: bd.hooks}
	switch {
	case g.Problem != "":
		ref.Why = g.Problem
	case len(g.Missing) > 0:
		m := g.Missing[0]
		ref.Why = fmt.Sprintf("%s imports %q, which resolves to nothing", m.Importer, m.Name)
	case len(bd.why) > 0:
		ref.Why = strings.Join(bd.why, "; ")
	case len(bd.code) == 0:
		ref.Why = "esbuild wrote no bundle"
	case nonLiteralRequire().Match(bd.code):
		ref.Why = "it calls require() with a value that is not a string, or uses require.resolve (resolved from the bundle's place, it could name another file)"
	case len(bd.code)+len(bd.smap) > maxBundleBytes:
		ref.Why = fmt.Sprintf("the bundle would take %d MiB", (len(bd.code)+len(bd.smap))>>20)
	}
	if ref.Why != "" {
		return g, rec, ref
	}
	digest, err := graphDigest(g)
	if err != nil {
		ref.Why = "cannot read its files: " + err.Error()
		return g, rec, ref
	}
	sum := sha256.Sum256([]byte(s.version() + "\x00" + entry + "\x00" + digest))
	ref.Key = hex.EncodeToString(sum[:16])
	code := append(append([]byte{}, bd.code...), "\n//# sourceMappingURL="+ref.Key+".mjs.map\n"...)
	ref.Sum, ref.MapSum = digestOf(code), digestOf(bd.smap)
	opts := fsutil.Options{Perm: 0o600, DirPerm: 0o700}
	if err := fsutil.WriteBytes(s.path(ref.Key)+".map", bd.smap, opts); err != nil {
		ref.Why = "cannot write the bundle: " + err.Error()
		return g, rec, ref
	}
	if err := fsutil.WriteBytes(s.path(ref.Key), code, opts); err != nil {
		ref.Why = "cannot write the bundle: " + err.Error()
		return g, rec, ref
	}
	pruneOldest(s.dir, ".mjs", ".map", maxBundles, maxBundleTotal)
	return g, rec, ref
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// intact reports whether the bundle files of ref are there with the
// content recorded (a bundle that is not is rebuilt).
func (s bundleStore) intact(ref *bundleRef) bool {
	if ref == nil {
		return false
	}
	if ref.Why != "" {
		return true
	}
	for _, f := range []struct{ path, sum string }{{s.path(ref.Key), ref.Sum}, {s.path(ref.Key) + ".map", ref.MapSum}} {
		b, err := fsutil.ReadRegular(f.path, maxBundleBytes)
		if err != nil || digestOf(b) != f.sum {
			return false
		}
	}
	now := time.Now()
	_ = os.Chtimes(s.path(ref.Key), now, now) // recently used: kept by prune
	return true
}

// bundleResult is what rt.bundle found for an entry.
type bundleResult struct {
	Path  string // the bundle file; "" when not bundled
	Hooks bool
	Why   string // why not bundled
	Hit   bool   // from the cache
}

// bundleObserver, when set (tests), sees each bundle lookup's outcome.
var bundleObserver func(entry string, r bundleResult)

// bundle returns the bundle of entry: from the cache when nothing it was
// built from changed and its files are intact, else built (and cached).
func (rt *Runtime) bundle(progDir, entry string) bundleResult {
	s := rt.bundles(progDir)
	g, ref, hit := cachedBuild(graphCache{dir: filepath.Join(s.dir, "graphs"), version: s.version(),
		build: s.build, valid: func(e *graphEntry) bool { return s.intact(e.Bundle) }}, entry, Provides)
	var r bundleResult
	switch {
	case ref == nil && g.Problem != "":
		r.Why = g.Problem
	case ref == nil:
		r.Why = "no bundle"
	case ref.Why != "":
		r.Why = ref.Why
	default:
		r.Path, r.Hooks = s.path(ref.Key), ref.Hooks
	}
	r.Hit = hit
	if bundleObserver != nil {
		bundleObserver(entry, r)
	}
	log := rt.logger()
	switch {
	case r.Path == "":
		log.Info("Node extension not bundled: loading it file by file", "extension", entry, "reason", clip(r.Why, 600))
	case hit:
		log.Debug("Node extension bundle from the cache", "extension", entry, "bundle", r.Path)
	default:
		log.Debug("Node extension bundled", "extension", entry, "bundle", r.Path)
	}
	return r
}
