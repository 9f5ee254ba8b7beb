package jsext

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/require"
	_ "github.com/dop251/goja_nodejs/url" // registers node:url
)

//go:embed js/*.js
var jsFiles embed.FS

// builtinSources are the modules written in JavaScript, by file.
var (
	programsOnce sync.Once
	programs     map[string]*goja.Program
	programsErr  error
)

// internalPrefix names the built-in sources in stacks (and hides them
// from error positions).
const internalPrefix = "atomic:"

func isInternalSource(name string) bool { return strings.HasPrefix(name, internalPrefix) }

// program returns a compiled built-in source. Programs are compiled once
// per process and shared by every script's runtime.
func program(file string) (*goja.Program, error) {
	programsOnce.Do(func() {
		programs = map[string]*goja.Program{}
		entries, err := jsFiles.ReadDir("js")
		if err != nil {
			programsErr = err
			return
		}
		for _, e := range entries {
			src, err := jsFiles.ReadFile("js/" + e.Name())
			if err != nil {
				programsErr = err
				return
			}
			code := string(src)
			if e.Name() != "prelude.js" && e.Name() != "globals.js" {
				code = "(function (module, exports, require) {" + code + "\n})"
			}
			p, err := goja.Compile(internalPrefix+e.Name(), code, true)
			if err != nil {
				programsErr = fmt.Errorf("built-in %s: %w", e.Name(), err)
				return
			}
			programs[e.Name()] = p
		}
	})
	if programsErr != nil {
		return nil, programsErr
	}
	p, ok := programs[file]
	if !ok {
		return nil, fmt.Errorf("no built-in source %s", file)
	}
	return p, nil
}

// jsModules maps the module names scripts import to the built-in sources
// that implement them. The reference product's package names and the
// Atomic names of the same packages are all accepted.
var jsModules = map[string]string{
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
	"events":                        "events.js",
	"util":                          "util.js",
	"child_process":                 "child_process.js",
	"fs":                            "fs.js",
	"fs/promises":                   "fs_promises.js",
}

// strictModules are the packages whose missing exports are an error
// naming the export (instead of a silent undefined).
var strictModules = map[string]bool{
	"typebox.js": true, "piai.js": true, "agent.js": true, "agentcore.js": true, "tui.js": true,
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
	if r, err := filepath.EvalSymlinks(found); err == nil {
		return r
	}
	return found
}

// sourceLoader reads a module file and transforms it to CommonJS (JSON
// files are left to the require module).
func sourceLoader(t *Transformer) require.SourceLoader {
	return func(path string) ([]byte, error) {
		src, err := require.DefaultSourceLoader(path)
		if err != nil {
			return nil, err
		}
		if strings.EqualFold(filepath.Ext(path), ".json") {
			return src, nil
		}
		code, _, err := t.Transform(path, src)
		if err != nil {
			return nil, err
		}
		return []byte(code), nil
	}
}

// newRegistry builds a script's module registry: built-in modules first,
// then files (transformed) and node_modules.
func newRegistry(t *Transformer, natives map[string]require.ModuleLoader) *require.Registry {
	reg := require.NewRegistry(require.WithLoader(sourceLoader(t)), require.WithPathResolver(resolvePath))
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
	return reg
}

// installRequire replaces the global require with one whose failures
// name the module.
func installRequire(r *goja.Runtime, reg *require.Registry) *require.RequireModule {
	rm := reg.Enable(r)
	r.Set("require", func(call goja.FunctionCall) goja.Value {
		name := call.Argument(0).String()
		v, err := rm.Require(name)
		if err == nil {
			return v
		}
		var ex *goja.Exception
		if errors.As(err, &ex) {
			panic(ex)
		}
		if errors.Is(err, require.InvalidModuleError) || errors.Is(err, require.NoSuchBuiltInModuleError) || errors.Is(err, fs.ErrNotExist) {
			panic(r.NewGoError(fmt.Errorf("Cannot find module %q: it is neither a file next to the script, a package in node_modules, nor a module atomic provides", name)))
		}
		panic(r.NewGoError(err))
	})
	return rm
}
