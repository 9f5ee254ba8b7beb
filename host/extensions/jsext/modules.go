package jsext

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/require"

	"github.com/atomic-go/atomic/host/extensions/jsext/nodecompat"
)

//go:embed js/*.js
var jsFiles embed.FS

// builtinSources are the modules written in JavaScript, by file.
var (
	programsOnce sync.Once
	sources      map[string]string // file name -> the source to compile
	programsErr  error

	programsMu sync.Mutex
	programs   = map[string]*goja.Program{}
)

// internalPrefix names the built-in sources in stacks (and hides them
// from error positions).
const internalPrefix = "atomic:"

func isInternalSource(name string) bool { return strings.HasPrefix(name, internalPrefix) }

// program returns a compiled built-in source. A program is compiled when
// first asked for (a runtime compiles only what its scripts use: the
// library stand-ins are large) and shared by every script's runtime.
func program(file string) (*goja.Program, error) {
	programsOnce.Do(func() {
		sources = map[string]string{}
		for _, fsys := range []fs.FS{jsFiles, nodecompat.Sources()} {
			entries, err := fs.ReadDir(fsys, "js")
			if err != nil {
				programsErr = err
				return
			}
			for _, e := range entries {
				if _, dup := sources[e.Name()]; dup {
					programsErr = fmt.Errorf("built-in %s: written twice (jsext and nodecompat)", e.Name())
					return
				}
				src, err := fs.ReadFile(fsys, "js/"+e.Name())
				if err != nil {
					programsErr = err
					return
				}
				code := string(src)
				if e.Name() != "prelude.js" && e.Name() != "globals.js" {
					code = "(function (module, exports, require) {" + code + "\n})"
				}
				sources[e.Name()] = code
			}
		}
	})
	if programsErr != nil {
		return nil, programsErr
	}
	programsMu.Lock()
	defer programsMu.Unlock()
	if p, ok := programs[file]; ok {
		return p, nil
	}
	code, ok := sources[file]
	if !ok {
		return nil, fmt.Errorf("no built-in source %s", file)
	}
	p, err := goja.Compile(internalPrefix+file, code, true)
	if err != nil {
		return nil, fmt.Errorf("built-in %s: %w", file, err)
	}
	programs[file] = p
	return p, nil
}

// jsModules maps the module names scripts import to the built-in sources
// that implement them: the pi packages and TypeBox (js/), and the Node
// modules written in JavaScript (nodecompat.JSModules).
var jsModules = func() map[string]string {
	m := maps.Clone(piModules)
	for name, file := range nodecompat.JSModules() {
		m[name] = file
	}
	return m
}()

// piModules are the pi packages' stand-ins. The reference product's
// package names and the Atomic names of the same packages are all
// accepted, and the names the reference's newest releases publish them
// under (@earendil-works/…).
var piModules = map[string]string{
	"@sinclair/typebox":             "typebox.js",
	"typebox":                       "typebox.js",
	"@mariozechner/pi-ai":           "piai.js",
	"@bastani/pi-ai":                "piai.js",
	"@mariozechner/pi-coding-agent": "agent.js",
	"@bastani/atomic":               "agent.js",
	"@bastani/pi-coding-agent":      "agent.js",
	"@mariozechner/pi-agent-core":   "agentcore.js",
	"@bastani/pi-agent-core":        "agentcore.js",
	"@mariozechner/pi-tui":          "tui.js",
	"@bastani/pi-tui":               "tui.js",
	// pi's packages after the rename (pi 1.x).
	"@earendil-works/pi-coding-agent": "agent.js",
	"@earendil-works/pi-ai":           "piai.js",
	"@earendil-works/pi-ai/compat":    "piai.js",
	"@mariozechner/pi-ai/compat":      "piai.js",
	"@earendil-works/pi-tui":          "tui.js",
	"@earendil-works/pi-agent-core":   "agentcore.js",
	// The stand-ins' own parts (not pi's names).
	"atomic:agentlib":     "agentlib.js",
	"atomic:yaml":         "yaml.js",
	"atomic:agentutil":    "agentutil.js",
	"atomic:jsdiff":       "jsdiff.js",
	"atomic:agentsession": "agentsession.js",
}

// strictModules are the packages whose missing exports are an error
// naming the export (instead of a silent undefined).
var strictModules = map[string]bool{
	"typebox.js": true, "piai.js": true, "agent.js": true, "agentcore.js": true, "tui.js": true,
	"agentlib.js": true, "yaml.js": true, "agentutil.js": true, "jsdiff.js": true, "agentsession.js": true,
}

// jsLoader runs a built-in source as a module.
func jsLoader(name, file string) require.ModuleLoader {
	return func(r *goja.Runtime, module *goja.Object) {
		p, err := program(file)
		if err != nil {
			panic(r.NewGoError(err))
		}
		fnv, err := r.RunProgram(p)
		if err != nil {
			panic(err)
		}
		fn, _ := goja.AssertFunction(fnv)
		if _, err := fn(goja.Undefined(), module, module.Get("exports"), r.Get("require")); err != nil {
			panic(err)
		}
		if strictModules[file] {
			strict, _ := goja.AssertFunction(r.Get("__atomicStrictExports"))
			v, err := strict(goja.Undefined(), r.ToValue(name), module.Get("exports"))
			if err != nil {
				panic(err)
			}
			module.Set("exports", v)
		}
	}
}

// scriptExtensions are tried, in order, for an import without one.
var scriptExtensions = []string{".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx", ".json"}

func isPathLike(name string) bool {
	return name == "." || name == ".." || strings.HasPrefix(name, "/") || strings.HasPrefix(name, "./") || strings.HasPrefix(name, "../")
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// resolvePath finds the file an import names: the exact path, the path
// with one of the script extensions, a TypeScript file imported by its
// .js name, or a directory's index file. Symlinks are resolved.
func resolvePath(base, name string) string {
	p := filepath.Join(base, filepath.FromSlash(name))
	if !isPathLike(name) {
		// A package name (built-in or in node_modules), or a file a
		// package names (its main, its index): the require module probes
		// those itself.
		return p
	}
	found := ""
	switch {
	case isFile(p):
		found = p
	default:
		for _, ext := range scriptExtensions {
			if isFile(p + ext) {
				found = p + ext
				break
			}
		}
		if found == "" {
			if ext := filepath.Ext(p); ext == ".js" || ext == ".mjs" || ext == ".cjs" {
				stem := strings.TrimSuffix(p, ext)
				for _, ts := range []string{".ts", ".tsx", ".mts", ".cts"} {
					if isFile(stem + ts) {
						found = stem + ts
						break
					}
				}
			}
		}
		if found == "" {
			for _, idx := range []string{"index.ts", "index.tsx", "index.js"} {
				if isFile(filepath.Join(p, idx)) && !isFile(filepath.Join(p, "package.json")) {
					found = filepath.Join(p, idx)
					break
				}
			}
		}
	}
	if found == "" {
		found = p
	}
	if checkScriptPath(found) != nil {
		return found // refused by the loader, under the name it was given
	}
	if r, err := filepath.EvalSymlinks(found); err == nil {
		return r
	}
	return found
}

// sourceLoader reads a module file and transforms it to CommonJS (JSON
// files are left to the require module).
func sourceLoader(t *Transformer, entry string, m *scriptModules) require.SourceLoader {
	_, entryRoot := standInPackage(entry)
	return func(path string) ([]byte, error) {
		if name, root := standInPackage(path); name != "" && root != entryRoot {
			// npm installed the real package (a peer dependency): use
			// the stand-in, whatever file of the package was named.
			return []byte("module.exports = require(" + strconv.Quote(name) + ");"), nil
		}
		if err := checkScriptPath(path); err != nil {
			return nil, err
		}
		src, err := loadSource(path)
		if err != nil {
			return nil, err
		}
		if strings.EqualFold(filepath.Ext(path), ".json") {
			return src, nil
		}
		m.noteFormat(path, src)
		code, _, err := t.Transform(path, src)
		if err != nil {
			return nil, err
		}
		return []byte(code), nil
	}
}

// standInPackage returns the name and directory of the built-in package
// whose installed copy contains path (node_modules/@earendil-works/pi-tui/
// dist/index.js: "@earendil-works/pi-tui"), or "". Only the pi packages
// count: their real code needs the product it belongs to. (The script's
// own files are never replaced, even when they ship inside such a
// package, as pi's examples do.)
func standInPackage(path string) (name, root string) {
	p := filepath.ToSlash(path)
	i := strings.LastIndex(p, "/node_modules/")
	if i < 0 {
		return "", ""
	}
	parts := strings.SplitN(p[i+len("/node_modules/"):], "/", 3)
	if len(parts) < 2 || !strings.HasPrefix(parts[0], "@") {
		return "", ""
	}
	name = parts[0] + "/" + parts[1]
	if _, ok := jsModules[name]; ok && strings.HasPrefix(parts[1], "pi-") || name == "@bastani/atomic" {
		return name, p[:i] + "/node_modules/" + name
	}
	return "", ""
}

// scriptModules is one script's module registry and what resolution
// keeps beside it: the package.json files read, and which of the files
// loaded are ES modules (their imports resolve with the "import"
// condition, a CommonJS file's requires with "require").
type scriptModules struct {
	reg     *require.Registry
	natives map[string]require.ModuleLoader
	pkgs    *packageResolver
	esm     sync.Map // path → bool
}

// newRegistry builds a script's module registry: built-in modules first,
// then files (transformed) and node_modules.
func newRegistry(t *Transformer, entry string, natives map[string]require.ModuleLoader) *scriptModules {
	m := &scriptModules{natives: natives, pkgs: newPackageResolver()}
	reg := require.NewRegistry(require.WithLoader(sourceLoader(t, entry, m)), require.WithPathResolver(resolvePath))
	for name, file := range jsModules {
		loader := jsLoader(name, file)
		reg.RegisterNativeModule(name, loader)
		if !strings.HasPrefix(name, "@") && name != "typebox" {
			reg.RegisterNativeModule("node:"+name, loader)
		}
	}
	for name, loader := range natives {
		reg.RegisterNativeModule(name, loader)
	}
	m.reg = reg
	return m
}

// esmSyntax finds an import or export statement at a line's start.
var esmSyntax = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*(import[ \t]*[\w*{"'$]|export[ \t]*[\w*{])`)
})

// noteFormat records whether a file being loaded is an ES module: .mjs
// and .mts are, .cjs and .cts are not, others are when they have ES
// module syntax.
func (m *scriptModules) noteFormat(path string, src []byte) {
	esm := false
	switch strings.ToLower(filepath.Ext(path)) {
	case ".mjs", ".mts":
		esm = true
	case ".cjs", ".cts":
	default:
		esm = esmSyntax().Match(src)
	}
	m.esm.Store(path, esm)
}

// conditions are the export conditions of the imports of a file.
func (m *scriptModules) conditions(file string) []string {
	if v, ok := m.esm.Load(file); ok && !v.(bool) {
		return requireConditions
	}
	return importConditions
}

// provided reports a name the registry answers itself (a built-in or
// virtual module, a node: name, a file of a pi package, which its
// stand-in replaces): package resolution does not apply to it.
func (m *scriptModules) provided(name string) bool {
	if strings.HasPrefix(name, "node:") || ProvidesModule(name) {
		return true
	}
	if _, ok := m.natives[name]; ok {
		return true
	}
	if pkg, _, err := splitPackage(name, ""); err == nil {
		if _, ok := jsModules[pkg]; ok {
			return true
		}
	}
	return false
}

// installRequire replaces the global require with one that resolves
// package.json "exports" and "imports" as Node does (resolve.go) and
// whose failures name the module. require.__atomicFrom(file, name) is
// createRequire's: a require from that file, with the "require"
// condition.
func installRequire(r *goja.Runtime, m *scriptModules) *require.RequireModule {
	rm := m.reg.Enable(r)
	req := func(name, dir, importer string, conds []string, from bool) goja.Value {
		target := name
		if strings.HasPrefix(name, "#") || !isPathLike(name) && !m.provided(name) {
			p, handled, err := m.pkgs.resolve(name, dir, importer, conds)
			if err != nil {
				e := r.NewGoError(err)
				var re *ResolveError
				if errors.As(err, &re) {
					_ = e.Set("message", re.Message)
					_ = e.Set("code", re.Code)
				}
				panic(e)
			}
			if handled || from && p != "" {
				// (createRequire's legacy package too: the require
				// module would look from the caller, module.js.)
				target = p
			}
		} else if from && isPathLike(name) && !filepath.IsAbs(name) {
			target = filepath.Join(dir, filepath.FromSlash(name))
		}
		v, err := rm.Require(target)
		if err == nil {
			return v
		}
		var ex *goja.Exception
		if errors.As(err, &ex) {
			panic(ex)
		}
		if errors.Is(err, require.InvalidModuleError) || errors.Is(err, require.NoSuchBuiltInModuleError) || errors.Is(err, fs.ErrNotExist) {
			if target != name {
				panic(r.NewGoError(fmt.Errorf("Cannot find module %q (%s, from %q)", target, name, importer)))
			}
			panic(r.NewGoError(fmt.Errorf("Cannot find module %q: it is neither a file next to the script, a package in node_modules, nor a module atomic provides", name)))
		}
		panic(r.NewGoError(err))
	}
	r.Set("require", func(call goja.FunctionCall) goja.Value {
		var frames [2]goja.StackFrame
		importer := ""
		if st := r.CaptureCallStack(2, frames[:0]); len(st) == 2 {
			importer = st[1].SrcName()
		}
		return req(call.Argument(0).String(), filepath.Dir(importer), importer, m.conditions(importer), false)
	})
	_ = r.Get("require").ToObject(r).Set("__atomicFrom", func(file, name string) goja.Value {
		return req(name, filepath.Dir(file), file, requireConditions, true)
	})
	_ = r.Get("require").ToObject(r).Set("__atomicResolveFrom", func(file, name string) string {
		if strings.HasPrefix(name, "#") || !isPathLike(name) && !m.provided(name) {
			p, handled, err := m.pkgs.resolve(name, filepath.Dir(file), file, requireConditions)
			if err != nil {
				panic(r.NewGoError(err))
			}
			if handled {
				return resolvePath("", p)
			}
		}
		return name
	})
	return rm
}

// coreModules are the goja_nodejs modules scripts may import by name.
var coreModules = []string{"buffer", "console"}

// ProvidesModule reports whether the goja runtime provides the module a
// script imports by this bare name ("node:path", "@mariozechner/pi-tui",
// "typebox"…), so that a script importing only such names (and files) can
// run in goja. Relative and absolute paths are not module names: false.
func ProvidesModule(name string) bool {
	if _, ok := jsModules[name]; ok {
		return true
	}
	if _, ok := nodecompat.Modules()[name]; ok {
		return true
	}
	bare := strings.TrimPrefix(name, "node:")
	if bare != name && !strings.HasPrefix(bare, "@") {
		if _, ok := jsModules[bare]; ok {
			return true
		}
	}
	for _, c := range coreModules {
		if bare == c {
			return true
		}
	}
	return false
}

// ProvidesModule is also what the Node runtime (host/extensions/nodeext)
// asks to choose a runtime from an extension's import graph.

// providedModules lists every name ProvidesModule accepts (tests).
func providedModules() []string {
	var out []string
	for name := range jsModules {
		out = append(out, name)
		if !strings.HasPrefix(name, "@") && name != "typebox" {
			out = append(out, "node:"+name)
		}
	}
	for name := range nodecompat.Modules() {
		out = append(out, name)
	}
	for _, c := range coreModules {
		out = append(out, c, "node:"+c)
	}
	return out
}

func (s *Script) runBuiltin(r *goja.Runtime, file string, args ...goja.Value) (goja.Value, error) {
	fn, err := builtinFunction(r, file)
	if err != nil {
		return nil, err
	}
	return fn(goja.Undefined(), args...)
}

// builtinFunction evaluates a built-in source (a function expression, or
// a CommonJS module wrapped in one).
func builtinFunction(r *goja.Runtime, file string) (goja.Callable, error) {
	p, err := program(file)
	if err != nil {
		return nil, err
	}
	fv, err := r.RunProgram(p)
	if err != nil {
		return nil, err
	}
	fn, _ := goja.AssertFunction(fv)
	return fn, nil
}

// builtinModule runs one of the built-in CommonJS sources (one that needs
// no require) and returns its exports.
func builtinModule(r *goja.Runtime, file string) (goja.Value, error) {
	fn, err := builtinFunction(r, file)
	if err != nil {
		return nil, err
	}
	module := r.NewObject()
	_ = module.Set("exports", r.NewObject())
	if _, err := fn(goja.Undefined(), module, module.Get("exports"), goja.Undefined()); err != nil {
		return nil, err
	}
	return module.Get("exports"), nil
}

// displayPath shows a path relative to the script's directory when it is
