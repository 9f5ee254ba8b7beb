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
const transformVersion = "jsext-1;esbuild-0.28.2"

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
		if b, err := os.ReadFile(file); err == nil {
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
	res := api.Transform(string(src), api.TransformOptions{
		Loader:     loaderFor(path),
		Format:     api.FormatCommonJS,
		Platform:   api.PlatformNode,
		Target:     api.ESNext,
		Sourcemap:  api.SourceMapInline,
		Sourcefile: path,
		// goja has everything else natively; async generators and
		// for-await are lowered to generators.
		Supported: map[string]bool{"async-generator": false, "for-await": false},
		LogLevel:  api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		m := res.Errors[0]
		e := &TransformError{File: path, Text: m.Text, More: len(res.Errors) - 1}
		if m.Location != nil {
			e.Line, e.Column = m.Location.Line, m.Location.Column+1
		}
		return "", false, e
	}
	code = string(res.Code)
	t.remember(key, code)
	if file != "" {
		// A failed write only costs a transform next time.
		_ = fsutil.WriteBytes(file, res.Code, fsutil.Options{Perm: 0o600, DirPerm: 0o700})
	}
	return code, false, nil
}

func (t *Transformer) remember(key, code string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.mem == nil {
		t.mem = map[string]string{}
	}
	t.mem[key] = code
}
