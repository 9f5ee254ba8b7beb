package jsext

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// transformVersion changes whenever the transform options change, so that
// cached output made with other options is not reused.
const transformVersion = "jsext-4;esbuild-0.28.2"

// Transformer turns a script file (TypeScript or modern JavaScript with
// ES modules) into CommonJS that goja runs, with an inline source map so
// that error positions point at the original lines. Output is cached by
// content hash in Dir; a second start reads the cache instead of
// transforming again.
type Transformer struct {
	// Dir is the cache directory; "" disables the disk cache.
	Dir string

	mu  sync.Mutex
	mem map[string]string // hash → code (this process)
}

// DefaultCacheDir is where transformed scripts are cached:
// $ATOMIC_JSEXT_CACHE, else <user cache dir>/atomic/jsext. The value
// "off" disables the cache.
func DefaultCacheDir() string {
	if d := os.Getenv("ATOMIC_JSEXT_CACHE"); d != "" {
		if d == "off" {
			return ""
		}
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "atomic", "jsext")
}

// TransformError is a file the transformer rejected (syntax or
// TypeScript errors), with the position of the first error.
type TransformError struct {
	File         string
	Line, Column int
	Text         string
	More         int
}

func (e *TransformError) Error() string {
	s := fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Text)
	if e.More > 0 {
		s += fmt.Sprintf(" (and %d more errors)", e.More)
	}
	return s
}

// loaderFor picks the esbuild loader from the file name.
func loaderFor(path string) api.Loader {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".cts":
		return api.LoaderTS
	case ".tsx":
		return api.LoaderTSX
	case ".jsx":
		return api.LoaderJSX
	case ".json":
		return api.LoaderJSON
	}
	return api.LoaderJS
}

// Transform returns the CommonJS code for the file's source, from the
// cache when possible. cached reports a cache hit.
func (t *Transformer) Transform(path string, src []byte) (code string, cached bool, err error) {
	sum := sha256.New()
	fmt.Fprintf(sum, "%s\x00%s\x00", transformVersion, path)
	sum.Write(src)
	key := hex.EncodeToString(sum.Sum(nil))[:40]

	t.mu.Lock()
	if c, ok := t.mem[key]; ok {
		t.mu.Unlock()
		return c, true, nil
	}
	t.mu.Unlock()

	file := ""
	if t.Dir != "" {
		file = filepath.Join(t.Dir, key+".js")
		if b, err := fsutil.ReadRegular(file, maxCachedTransform); err == nil {
			t.remember(key, string(b))
			return string(b), true, nil
		}
	}
	if !utf8.Valid(src) {
		// Scripts are UTF-8; esbuild's source map writer does not finish
		// on invalid bytes (found by FuzzLoadScript), so replace them as a
		// UTF-8 reader would.
		src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	}
	res := cjsTransform(string(src), loaderFor(path), path)
	if len(res.Errors) > 0 && strings.Contains(res.Errors[0].Text, "Top-level await") {
		if tla, ok := topLevelAwait(string(src), path); ok {
			res = tla
		}
	}
	if len(res.Errors) > 0 {
		m := res.Errors[0]
		e := &TransformError{File: path, Text: m.Text, More: len(res.Errors) - 1}
		if m.Location != nil {
			e.Line, e.Column = m.Location.Line, m.Location.Column+1
		}
		return "", false, e
	}
	code = wrapModule(string(res.Code))
	t.remember(key, code)
	if file != "" {
		// A failed write only costs a transform next time.
		_ = fsutil.WriteBytes(file, []byte(code), fsutil.Options{Perm: 0o600, DirPerm: 0o700})
	}
	return code, false, nil
}

// cjsTransform is the transform of one file to CommonJS.
func cjsTransform(src string, loader api.Loader, path string) api.TransformResult {
	return api.Transform(src, api.TransformOptions{
		Loader:     loader,
		Format:     api.FormatCommonJS,
		Platform:   api.PlatformNode,
		Target:     api.ESNext,
		Sourcemap:  api.SourceMapInline,
		Sourcefile: path,
		// goja has everything else natively; async generators and
		// for-await are lowered to generators.
		// Dynamic import() becomes a promise of the require (goja has no
		// ES modules).
		Supported: map[string]bool{"async-generator": false, "for-await": false, "dynamic-import": false},
		Define:    importMetaDefines,
		LogLevel:  api.LogLevelSilent,
	})
}

// topLevelAwait transforms a module with top-level await, which CommonJS
// cannot express: esbuild first writes the file as one ES module with
// every import at the top and every export in one clause at the end (a
// bundle of this file alone, all imports external); the body then runs in
// an async function, the exports become bindings assigned from it, and
// that is transformed to CommonJS as usual. The module registers its
// completion (__atomic_tla), and the extension's factory runs only when
// every such module has finished (see Script.start).
func topLevelAwait(src, path string) (api.TransformResult, bool) {
	b := api.Build(api.BuildOptions{
		Stdin:  &api.StdinOptions{Contents: src, Sourcefile: path, Loader: loaderFor(path), ResolveDir: filepath.Dir(path)},
		Bundle: true, Format: api.FormatESModule, Platform: api.PlatformNode, Target: api.ESNext,
		External: []string{"*"}, Write: false, LogLevel: api.LogLevelSilent, Sourcemap: api.SourceMapInline,
		Supported: map[string]bool{"async-generator": false, "for-await": false},
	})
	if len(b.Errors) > 0 || len(b.OutputFiles) != 1 {
		return api.TransformResult{}, false
	}
	text := string(b.OutputFiles[0].Contents)
	sm := ""
	if k := strings.LastIndex(text, "//# sourceMappingURL="); k >= 0 {
		text, sm = text[:k], text[k:]
	}
	lines := strings.Split(text, "\n")
	var head, body []string
	i := 0
	for ; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "export * ") || strings.HasPrefix(l, "// ") || l == "" {
			head = append(head, l)
			continue
		}
		break
	}
	// The export clause: "export {" … "};" at the end.
	end := len(lines)
	for end > i && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	var names [][2]string // local, exported
	if end > i && lines[end-1] == "};" {
		j := end - 1
		for j > i && lines[j] != "export {" {
			j--
		}
		if lines[j] != "export {" {
			return api.TransformResult{}, false
		}
		for _, l := range lines[j+1 : end-1] {
			l = strings.TrimSuffix(strings.TrimSpace(l), ",")
			local, exported, found := strings.Cut(l, " as ")
			if !found {
				exported = local
			}
			names = append(names, [2]string{local, exported})
		}
		end = j
	}
	body = lines[i:end]
	// Every line of the body keeps its number, so that the first pass's
	// source map (which esbuild chains) still maps it: what is added goes
	// on the body's first line and after its last.
	var out strings.Builder
	for _, l := range head {
		out.WriteString(l + "\n")
	}
	var sync strings.Builder
	for n, p := range names {
		fmt.Fprintf(&out, "var __atomic_e%d; ", n)
		fmt.Fprintf(&sync, "try { __atomic_e%d = %s; } catch (e) {} ", n, p[0])
	}
	if len(names) > 0 {
		out.WriteString("export { ")
		for n, p := range names {
			fmt.Fprintf(&out, "__atomic_e%d as %s, ", n, p[1])
		}
		out.WriteString("}; ")
	}
	out.WriteString("__atomic_tla((async () => { const __atomic_sync = () => { " + sync.String() + "}; __atomic_sync(); ")
	out.WriteString(strings.Join(body, "\n"))
	out.WriteString("\n__atomic_sync();\n})());\n" + sm)
	res := cjsTransform(out.String(), api.LoaderJS, path)
	return res, len(res.Errors) == 0
}

func (t *Transformer) remember(key, code string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.mem == nil {
		t.mem = map[string]string{}
	}
	t.mem[key] = code
}

// importMetaDefines make import.meta (an ES module's own URL) a value the
// module wrapper provides.
var importMetaDefines = map[string]string{
	"import.meta":          "__atomic_import_meta",
	"import.meta.url":      "__atomic_import_meta.url",
	"import.meta.filename": "__atomic_import_meta.filename",
	"import.meta.dirname":  "__atomic_import_meta.dirname",
}

// moduleHead and moduleTail wrap a transformed module (on its first line,
// so positions keep their lines): import.meta is computed from the
// CommonJS wrapper's __filename, and the code runs in a function of its
// own, so that an ES module declaring its own __filename or __dirname
// (`const __filename = fileURLToPath(import.meta.url)`) does not collide
// with the CommonJS wrapper's parameters.
const (
	moduleHead = `var __atomic_require = require; var __atomic_tla = (p) => { globalThis.__atomicPending.push(p); }; var __atomic_import_meta = { url: "file://" + encodeURI(__filename).replace(/[?#]/g, encodeURIComponent), filename: __filename, dirname: __dirname, resolve: (s) => require.resolve ? require.resolve(s) : s }; (function () {`
	moduleTail = "\n}).call(this);\n"
)

// wrapModule wraps transformed code in moduleHead/moduleTail, keeping the
// inline source map comment last (goja reads it only there). A dynamic
// import() that esbuild lowered to require() calls the module's require
// (__atomic_require): esbuild keeps a `var require` the module declares
// itself in the function around the import (emscripten's modules do:
// `const { createRequire } = await import("module"); var require =
// createRequire(…)`), which would shadow the module's.
func wrapModule(code string) string {
	sm := ""
	if i := strings.LastIndex(code, "//# sourceMappingURL="); i >= 0 {
		code, sm = code[:i], code[i:]
	}
	code = lowImport.Replace(code)
	return moduleHead + code + moduleTail + sm
}

// lowImport rewrites esbuild's lowered import() (see wrapModule).
var lowImport = strings.NewReplacer(
	"Promise.resolve().then(() => __toESM(require(", "Promise.resolve().then(() => __toESM(__atomic_require(",
	"Promise.resolve().then(() => require(", "Promise.resolve().then(() => __atomic_require(",
)
