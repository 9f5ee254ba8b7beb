package nodeext

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/atomic-go/atomic/host/extensions/jsext"
	"github.com/atomic-go/atomic/internal/fsutil"
)

// Import is one module an extension's files import without a file behind
// it in the extension (a Node built-in, a virtual module) or that cannot
// be found.
type Import struct {
	Name     string // as written
	Kind     string // esbuild's kind: import-statement, require-call, dynamic-import…
	Importer string // the file that imports it
}

// Graph is what esbuild's import graph says about an extension: the files
// it loads, the modules it imports from outside, and the features that
// decide the runtime.
type Graph struct {
	Entry string
	// Files are every file reached from the entry (absolute paths).
	Files []string
	// External are the built-in and virtual modules imported.
	External []Import
	// Missing are imports that resolve to nothing.
	Missing []Import
	// Dynamic are the import() expressions (relative or not).
	Dynamic []Import
	// Resolved maps importer → specifier → file for the relative imports
	// Node's own resolution would not find (extensionless paths, .js
	// names of TypeScript files, directories), and for every import of a
	// package.json "imports" name ("#src/x": the same, after the mapping).
	Resolved map[string]map[string]string
	// ESM are the .js files with ESM syntax.
	ESM []string
	// Problem is set when esbuild could not read the graph at all (a
	// syntax error, say); the lists above are then empty.
	Problem string
}

// resolving marks esbuild resolutions made by the plugin itself.
type resolving struct{}

var scriptLoaders = map[string]api.Loader{
	".node": api.LoaderFile, ".wasm": api.LoaderFile, ".png": api.LoaderFile, ".jpg": api.LoaderFile,
	".css": api.LoaderEmpty, ".html": api.LoaderText, ".md": api.LoaderText, ".txt": api.LoaderText,
	".sh": api.LoaderText, ".svg": api.LoaderText, ".yaml": api.LoaderText, ".yml": api.LoaderText,
}

// Analyze reads the import graph of the extension starting at entry with
// esbuild (bundling without writing): provided says which bare module
// names are provided without files (they are not followed).
//
// Analyze reads every file again; Runtime.analyze keeps the result in a
// cache (graphcache.go).
func Analyze(entry string, provided func(string) bool) Graph {
	g, _ := analyze(entry, provided)
	return g
}

// analyze is Analyze, also returning what esbuild was asked to resolve
// (which the graph cache turns into the paths the result depends on).
func analyze(entry string, provided func(string) bool) (Graph, *lookups) {
	return readGraph(entry, provided, nil)
}

// readGraph is analyze, and with bundle also the extension as one file
// (bundle.go): one esbuild build gives both.
func readGraph(entry string, provided func(string) bool, bundle *bundling) (Graph, *lookups) {
	g := Graph{Entry: entry, Resolved: map[string]map[string]string{}}
	rec := &lookups{provided: map[string]bool{}}
	pkgs := jsext.NewPackageResolver()
	plugin := api.Plugin{Name: "atomic-graph", Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
			if _, ok := a.PluginData.(resolving); ok || a.Kind == api.ResolveEntryPoint {
				return api.OnResolveResult{}, nil
			}
			if isBuiltin(a.Path) {
				if bundle != nil {
					return bundle.builtin(a)
				}
				return api.OnResolveResult{Path: a.Path, External: true}, nil
			}
			if rec.provides(a.Path, provided) {
				if bundle != nil {
					return bundle.virtual(a)
				}
				return api.OnResolveResult{Path: a.Path, External: true}, nil
			}
			// import() of a package is not followed: goja cannot load it
			// anyway (it is listed in Dynamic, which decides for Node), and
			// such a package is often one too big to read at every start
			// (mermaid: thousands of files), loaded on first use.
			if a.Kind == api.ResolveJSDynamicImport && !isRelative(a.Path) && (bundle == nil || !strings.HasPrefix(a.Path, "#")) {
				if bundle != nil {
					return bundle.lazyPackage(b, a, rec)
				}
				return api.OnResolveResult{Path: a.Path, External: true}, nil
			}
			if strings.HasPrefix(a.Path, "#") && a.Importer != "" {
				// package.json "imports": jsext's rule (the goja
				// runtime's), which also finds an extensionless target.
				p, err := pkgs.ResolveImport(a.Path, a.Importer, a.Kind == api.ResolveJSRequireCall || a.Kind == api.ResolveJSRequireResolve)
				if err == nil && isRegular(p) {
					rec.add(lookup{spec: a.Path, dir: a.ResolveDir})
					return api.OnResolveResult{Path: p}, nil
				}
				// Not a file (a package's directory, say): esbuild's own.
			}
			r := b.Resolve(a.Path, api.ResolveOptions{ResolveDir: a.ResolveDir, Kind: a.Kind, Importer: a.Importer, PluginData: resolving{}})
			rec.add(lookup{spec: a.Path, dir: a.ResolveDir, failed: len(r.Errors) > 0})
			if len(r.Errors) > 0 && bundle != nil && a.Kind == api.ResolveJSRequireCall && !isRelative(a.Path) {
				// An optional dependency, say (require in a try): the
				// bundle requires it from the file, as Node would.
				return bundle.requireLater(a)
			}
			if len(r.Errors) > 0 {
				rec.mu.Lock()
				g.Missing = append(g.Missing, Import{Name: a.Path, Kind: kindName(a.Kind), Importer: a.Importer})
				rec.mu.Unlock()
				return api.OnResolveResult{Path: a.Path, External: true}, nil
			}
			return api.OnResolveResult{Path: r.Path, External: r.External, Namespace: r.Namespace}, nil
		})
		if bundle != nil {
			bundle.setup(b)
			return
		}
		b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "file"}, loadSource)
	}}
	opts := api.BuildOptions{
		EntryPoints:   []string{entry},
		AbsWorkingDir: "/",
		Outdir:        filepath.Join(os.TempDir(), "atomic-nodeext-graph"),
		Bundle:        true,
		Write:         false,
		Metafile:      true,
		Platform:      api.PlatformNode,
		Format:        api.FormatESModule,
		LogLevel:      api.LogLevelSilent,
		Loader:        scriptLoaders,
		// esbuild adds "import" or "require" by the kind of each import
		// (naming one here would apply it to both); set, this list also
		// keeps out the "module" condition Node does not know.
		Conditions: []string{"node"},
		Plugins:    []api.Plugin{plugin},
	}
	if bundle != nil {
		bundle.options(&opts)
	}
	res := api.Build(opts)
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		where := ""
		if e.Location != nil {
			where = fmt.Sprintf("%s:%d:%d: ", e.Location.File, e.Location.Line, e.Location.Column)
		}
		g.Problem = where + e.Text
		return g, nil
	}
	var meta struct {
		Inputs map[string]struct {
			Imports []struct {
				Path     string `json:"path"`
				Kind     string `json:"kind"`
				External bool   `json:"external"`
				Original string `json:"original"`
			} `json:"imports"`
			Format string `json:"format"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err != nil {
		g.Problem = "esbuild metafile: " + err.Error()
		return g, nil
	}
	if bundle != nil {
		bundle.output(res.OutputFiles)
	}
	missing := map[string]bool{}
	for _, m := range g.Missing {
		missing[m.Name] = true
	}
	for in, info := range meta.Inputs {
		if strings.HasPrefix(in, virtualNamespace+":") || strings.HasPrefix(in, requireNamespace+":") || strings.HasPrefix(in, builtinNamespace+":") {
			continue
		}
		file := abs(in)
		g.Files = append(g.Files, file)
		if info.Format == "esm" && (strings.HasSuffix(file, ".js") || strings.HasSuffix(file, ".jsx")) {
			g.ESM = append(g.ESM, file)
		}
		for _, imp := range info.Imports {
			spec := imp.Original
			if spec == "" {
				spec = imp.Path
			}
			if imp.Kind == "dynamic-import" {
				g.Dynamic = append(g.Dynamic, Import{Name: spec, Kind: imp.Kind, Importer: file})
			}
			if strings.HasPrefix(imp.Path, requireNamespace+":") {
				continue
			}
			if imp.External || strings.HasPrefix(imp.Path, virtualNamespace+":") || strings.HasPrefix(imp.Path, builtinNamespace+":") {
				if !missing[imp.Path] {
					name := imp.Path
					if bundle != nil {
						name = bundle.nameOf(imp.Path, imp.Original)
					}
					g.External = append(g.External, Import{Name: name, Kind: imp.Kind, Importer: file})
				}
				continue
			}
			target := abs(imp.Path)
			if strings.HasPrefix(spec, "#") && (imp.Kind == "import-statement" || imp.Kind == "dynamic-import") {
				// A package.json "imports" name: Node maps it as esbuild
				// does, but wants the exact file where esbuild (and pi's
				// loader) also find an extensionless path or a .ts file
				// by its .js name. (A require is Node's own: its
				// condition is "require", esbuild's answer is import's.)
				if g.Resolved[file] == nil {
					g.Resolved[file] = map[string]string{}
				}
				g.Resolved[file][spec] = target
				continue
			}
			if !isRelative(spec) {
				continue
			}
			if filepath.Join(filepath.Dir(file), filepath.FromSlash(spec)) != target {
				if g.Resolved[file] == nil {
					g.Resolved[file] = map[string]string{}
				}
				g.Resolved[file][spec] = target
			}
		}
	}
	sort.Strings(g.Files)
	sort.Strings(g.ESM)
	for _, l := range [][]Import{g.External, g.Missing, g.Dynamic} {
		sort.Slice(l, func(i, j int) bool {
			a, b := l[i], l[j]
			if a.Importer != b.Importer {
				return a.Importer < b.Importer
			}
			if a.Name != b.Name {
				return a.Name < b.Name
			}
			return a.Kind < b.Kind
		})
	}
	return g, rec
}

// sourceLoaders are the loaders of the files loadSource reads itself.
var sourceLoaders = map[string]api.Loader{
	".js": api.LoaderJS, ".mjs": api.LoaderJS, ".cjs": api.LoaderJS, ".jsx": api.LoaderJSX,
	".ts": api.LoaderTS, ".mts": api.LoaderTS, ".cts": api.LoaderTS, ".tsx": api.LoaderTSX,
	".json": api.LoaderJSON,
}

// loadSource reads a file of the import graph for esbuild under the
// regular-file rule (jsext.ReadSource: a FIFO, a device, a socket or a
// file over jsext.MaxSourceFile is refused, naming the file, instead of
// blocking or filling memory). The other kinds of file (assets, native
// addons) are checked to be regular files and left to esbuild.
func loadSource(a api.OnLoadArgs) (api.OnLoadResult, error) {
	loader, ok := sourceLoaders[strings.ToLower(filepath.Ext(a.Path))]
	if !ok {
		_, err := fsutil.StatRegular(a.Path)
		return api.OnLoadResult{}, err
	}
	src, err := jsext.ReadSource(a.Path)
	if err != nil {
		return api.OnLoadResult{}, err
	}
	code := string(src)
	return api.OnLoadResult{Contents: &code, Loader: loader}, nil
}

func abs(metaPath string) string {
	if filepath.IsAbs(metaPath) {
		return metaPath
	}
	return "/" + metaPath
}

func isRelative(s string) bool {
	return s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "/")
}

func kindName(k api.ResolveKind) string {
	switch k {
	case api.ResolveJSImportStatement:
		return "import-statement"
	case api.ResolveJSRequireCall:
		return "require-call"
	case api.ResolveJSDynamicImport:
		return "dynamic-import"
	case api.ResolveJSRequireResolve:
		return "require-resolve"
	}
	return "import"
}

func isTypeScript(f string) bool {
	switch filepath.Ext(f) {
	case ".ts", ".mts", ".cts", ".tsx":
		return true
	}
	return false
}

func loaderFor(f string) api.Loader {
	switch filepath.Ext(f) {
	case ".ts", ".mts", ".cts":
		return api.LoaderTS
	case ".tsx":
		return api.LoaderTSX
	case ".jsx":
		return api.LoaderJSX
	}
	return api.LoaderJS
}

var (
	usesRequire = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\brequire\s*[(.]`) })
	declaresReq = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(const|let|var|function|import)\s+require\b|\brequire\s*=`)
	})
	usesDirname    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b__dirname\b`) })
	declaresDir    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(const|let|var)\s+__dirname\b`) })
	usesFilename   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b__filename\b`) })
	declaresFilena = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(const|let|var)\s+__filename\b`) })
)

// transformTS turns a TypeScript file into an ES module (esbuild, inline
// source map) in dir, named by the hash of its path and content (so
// unchanged files are transformed once). CommonJS helpers pi's loader
// offers TypeScript files (require, __dirname, __filename) are defined
// when the file uses them without declaring them.
func transformTS(dir, file string) (string, error) {
	src, err := jsext.ReadSource(file)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(file+"\x00"+Version+"\x00"), src...))
	out := filepath.Join(dir, hex.EncodeToString(sum[:12])+".mjs")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	r := api.Transform(string(src), api.TransformOptions{
		Loader: loaderFor(file), Format: api.FormatESModule, Sourcefile: file, Sourcemap: api.SourceMapInline,
		Engines: []api.Engine{{Name: api.EngineNode, Version: "20"}}, LogLevel: api.LogLevelSilent,
	})
	if len(r.Errors) > 0 {
		return "", transformError(file, r.Errors[0])
	}
	code := string(r.Code)
	var pre []string
	if usesRequire().MatchString(code) && !declaresReq().MatchString(code) {
		pre = append(pre, `import { createRequire as __atomicCreateRequire } from "node:module"; const require = __atomicCreateRequire(import.meta.url);`)
	}
	needFile := usesFilename().MatchString(code) && !declaresFilena().MatchString(code)
	needDir := usesDirname().MatchString(code) && !declaresDir().MatchString(code)
	if needFile || needDir {
		pre = append(pre, `import { fileURLToPath as __atomicFileURLToPath } from "node:url"; import { dirname as __atomicDirname } from "node:path";`)
		if needFile {
			pre = append(pre, `const __filename = __atomicFileURLToPath(import.meta.url);`)
		}
		if needDir {
			pre = append(pre, `const __dirname = __atomicDirname(__atomicFileURLToPath(import.meta.url));`)
		}
	}
	if len(pre) > 0 {
		// One line, so the source map's line numbers stay right.
		code = strings.Join(pre, " ") + " " + code
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := fsutil.WriteBytes(out, []byte(code), fsutil.Options{Perm: 0o600}); err != nil {
		return "", err
	}
	return out, nil
}

// transformError names the file and position of an esbuild transform error.
func transformError(file string, e api.Message) error {
	if e.Location != nil {
		return fmt.Errorf("%s:%d:%d: %s", file, e.Location.Line, e.Location.Column+1, e.Text)
	}
	return fmt.Errorf("%s: %s", file, e.Text)
}

// manifest is what the Node host reads to load one extension.
type manifest struct {
	Entry   string                       `json:"entry"`
	Name    string                       `json:"name"`
	Files   map[string]string            `json:"files"`
	Resolve map[string]map[string]string `json:"resolve"`
	ESM     []string                     `json:"esm"`
	// Bundle is the extension as one file (bundle.go); Entry, Name and
	// Hooks are then all the host needs.
	Bundle string `json:"bundle,omitempty"`
	// Hooks: the host's module hooks must be in place before the bundle
	// is imported (it import()s a package by name).
	Hooks bool `json:"hooks,omitempty"`
}

// writeManifest transforms the graph's TypeScript files and writes the
// manifest the Node host loads the extension from.
func writeManifest(cache string, g Graph, name string) (string, error) {
	m := manifest{Entry: g.Entry, Name: name, Files: map[string]string{}, Resolve: g.Resolved, ESM: g.ESM}
	files := g.Files
	if len(files) == 0 {
		files = []string{g.Entry}
	}
	for _, f := range files {
		if !isTypeScript(f) {
			continue
		}
		out, err := transformTS(filepath.Join(cache, "ts"), f)
		if err != nil {
			return "", err
		}
		m.Files[f] = out
	}
	return storeManifest(cache, m)
}

// storeManifest writes a manifest under its digest.
func storeManifest(cache string, m manifest) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	path := filepath.Join(cache, "manifests", hex.EncodeToString(sum[:12])+".json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	if err := fsutil.WriteBytes(path, b, fsutil.Options{Perm: 0o600}); err != nil {
		return "", err
	}
	return path, nil
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
