package nodecompat

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/buffer"
)

// fsOp is one file operation: prepare reads the JavaScript arguments (on
// the loop), the returned work runs the operation (on the loop for the
// Sync form, on another goroutine for the promise form) and conv turns its
// result into a JavaScript value (on the loop).
type fsOp func(r *goja.Runtime, h Host, call goja.FunctionCall) (work func() (any, error), conv func(r *goja.Runtime, v any) goja.Value, syscallName, path string)

func pathArg(r *goja.Runtime, h Host, call goja.FunctionCall, i int) string {
	v := call.Argument(i)
	if goja.IsUndefined(v) || goja.IsNull(v) {
		panic(r.NewTypeError(fmt.Sprintf("The path argument must be a string (got %s)", v)))
	}
	p := v.String()
	if o, ok := v.(*goja.Object); ok {
		// URL objects (file:) and Buffers
		if href := o.Get("pathname"); href != nil && !goja.IsUndefined(href) {
			p = href.String()
			if dec, err := url.PathUnescape(p); err == nil {
				p = dec // a file: URL's path is percent-encoded
			}
		}
	}
	if p != "" && !filepath.IsAbs(p) {
		// As Node: against process.cwd(), when that is not this
		// process's (else the path stays as given, for the messages).
		if cwd, own := Cwd(r), ownCwd(); cwd != own {
			p = filepath.Join(cwd, p)
		}
	}
	if err := h.CheckPath(p); err != nil {
		panic(RefusedPath(r, err, p))
	}
	return p
}

func ownCwd() string {
	d, _ := os.Getwd()
	return d
}

// RefusedPath is the exception for a path the host's path rule refuses
// (EACCES, like a permission error).
func RefusedPath(r *goja.Runtime, err error, p string) *goja.Object {
	e, _ := r.New(r.Get("Error"), r.ToValue(fmt.Sprintf("EACCES: %v, '%s'", err, p)))
	_ = e.Set("code", "EACCES")
	_ = e.Set("path", p)
	return e
}

// optString reads an option given as a string or as {key: string}.
func optString(v goja.Value, key string) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	if o, ok := v.(*goja.Object); ok {
		if x := o.Get(key); x != nil && !goja.IsUndefined(x) && !goja.IsNull(x) {
			return x.String()
		}
		return ""
	}
	if key == "encoding" {
		return v.String()
	}
	return ""
}

func optBool(v goja.Value, key string) bool {
	if o, ok := v.(*goja.Object); ok {
		if x := o.Get(key); x != nil {
			return x.ToBoolean()
		}
	}
	return false
}

func dataArg(r *goja.Runtime, call goja.FunctionCall, i int) []byte {
	v := call.Argument(i)
	if s, ok := v.Export().(string); ok {
		return []byte(s)
	}
	enc := goja.Undefined()
	if e := optString(call.Argument(i+1), "encoding"); e != "" {
		enc = r.ToValue(e)
	}
	return buffer.DecodeBytes(r, v, enc)
}

func undefinedConv(*goja.Runtime, any) goja.Value { return goja.Undefined() }

func bytesConv(enc string) func(r *goja.Runtime, v any) goja.Value {
	return func(r *goja.Runtime, v any) goja.Value {
		b := v.([]byte)
		if enc == "" || enc == "buffer" {
			return buffer.WrapBytes(r, b)
		}
		return buffer.EncodeBytes(r, b, r.ToValue(enc))
	}
}

func statConv(r *goja.Runtime, v any) goja.Value {
	st := v.(fs.FileInfo)
	o := r.NewObject()
	ms := func(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }
	mtime := ms(st.ModTime())
	_ = o.Set("size", st.Size())
	_ = o.Set("mode", uint32(st.Mode().Perm())|modeType(st.Mode()))
	for _, k := range []string{"mtimeMs", "atimeMs", "ctimeMs", "birthtimeMs"} {
		_ = o.Set(k, mtime)
	}
	date, _ := r.New(r.Get("Date"), r.ToValue(mtime))
	for _, k := range []string{"mtime", "atime", "ctime", "birthtime"} {
		_ = o.Set(k, date)
	}
	isDir, isLink := st.IsDir(), st.Mode()&fs.ModeSymlink != 0
	_ = o.Set("isFile", func() bool { return st.Mode().IsRegular() })
	_ = o.Set("isDirectory", func() bool { return isDir })
	_ = o.Set("isSymbolicLink", func() bool { return isLink })
	_ = o.Set("isFIFO", func() bool { return st.Mode()&fs.ModeNamedPipe != 0 })
	_ = o.Set("isSocket", func() bool { return st.Mode()&fs.ModeSocket != 0 })
	_ = o.Set("isBlockDevice", func() bool { return false })
	_ = o.Set("isCharacterDevice", func() bool { return st.Mode()&fs.ModeCharDevice != 0 })
	return o
}

func modeType(m fs.FileMode) uint32 {
	switch {
	case m.IsDir():
		return 0o040000
	case m&fs.ModeSymlink != 0:
		return 0o120000
	case m.IsRegular():
		return 0o100000
	}
	return 0
}

type dirent struct {
	name, dir string
	typ       fs.FileMode
}

var fsOps = map[string]fsOp{
	"readFile": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p := pathArg(r, h, c, 0)
		return func() (any, error) { return os.ReadFile(p) }, bytesConv(optString(c.Argument(1), "encoding")), "open", p
	},
	"writeFile": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p, data := pathArg(r, h, c, 0), dataArg(r, c, 1)
		flag := optString(c.Argument(2), "flag")
		return func() (any, error) {
			if flag == "a" || flag == "a+" {
				return nil, appendFile(p, data)
			}
			return nil, os.WriteFile(p, data, 0o666)
		}, undefinedConv, "open", p
	},
	"appendFile": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p, data := pathArg(r, h, c, 0), dataArg(r, c, 1)
		return func() (any, error) { return nil, appendFile(p, data) }, undefinedConv, "open", p
	},
	"mkdir": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p, recursive := pathArg(r, h, c, 0), optBool(c.Argument(1), "recursive")
		return func() (any, error) {
				if !recursive {
					return nil, os.Mkdir(p, 0o777)
				}
				first := firstMissing(p)
				if err := os.MkdirAll(p, 0o777); err != nil {
					return nil, err
				}
				return first, nil
			}, func(r *goja.Runtime, v any) goja.Value {
				if s, ok := v.(string); ok && s != "" {
					return r.ToValue(s)
				}
				return goja.Undefined()
			}, "mkdir", p
	},
	"readdir": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p, typed := pathArg(r, h, c, 0), optBool(c.Argument(1), "withFileTypes")
		return func() (any, error) {
				es, err := os.ReadDir(p)
				if err != nil {
					return nil, err
				}
				out := make([]dirent, len(es))
				for i, e := range es {
					out[i] = dirent{name: e.Name(), dir: p, typ: e.Type()}
				}
				return out, nil
			}, func(r *goja.Runtime, v any) goja.Value {
				es := v.([]dirent)
				out := make([]any, len(es))
				for i, e := range es {
					if !typed {
						out[i] = e.name
						continue
					}
					o := r.NewObject()
					typ := e.typ
					_ = o.Set("name", e.name)
					_ = o.Set("parentPath", e.dir)
					_ = o.Set("path", e.dir)
					_ = o.Set("isFile", func() bool { return typ.IsRegular() })
					_ = o.Set("isDirectory", func() bool { return typ.IsDir() })
					_ = o.Set("isSymbolicLink", func() bool { return typ&fs.ModeSymlink != 0 })
					out[i] = o
				}
				return r.NewArray(out...)
			}, "scandir", p
	},
	"stat": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p := pathArg(r, h, c, 0)
		return func() (any, error) { return os.Stat(p) }, statConv, "stat", p
	},
	"lstat": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p := pathArg(r, h, c, 0)
		return func() (any, error) { return os.Lstat(p) }, statConv, "lstat", p
	},
	"unlink": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p := pathArg(r, h, c, 0)
		return func() (any, error) {
			if st, err := os.Lstat(p); err == nil && st.IsDir() {
				return nil, &fs.PathError{Op: "unlink", Path: p, Err: syscall.EISDIR}
			}
			return nil, os.Remove(p)
		}, undefinedConv, "unlink", p
	},
	"rmdir": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p, recursive := pathArg(r, h, c, 0), optBool(c.Argument(1), "recursive")
		return func() (any, error) {
			if recursive {
				return nil, os.RemoveAll(p)
			}
			return nil, syscall.Rmdir(p)
		}, undefinedConv, "rmdir", p
	},
	"rm": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p := pathArg(r, h, c, 0)
		recursive, force := optBool(c.Argument(1), "recursive"), optBool(c.Argument(1), "force")
		return func() (any, error) {
			st, err := os.Lstat(p)
			if err != nil {
				if force && errors.Is(err, fs.ErrNotExist) {
					return nil, nil
				}
				return nil, err
			}
			if st.IsDir() {
				if !recursive {
					return nil, &fs.PathError{Op: "rm", Path: p, Err: syscall.EISDIR}
				}
				return nil, os.RemoveAll(p)
			}
			return nil, os.Remove(p)
		}, undefinedConv, "rm", p
	},
	"rename": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		from, to := pathArg(r, h, c, 0), pathArg(r, h, c, 1)
		return func() (any, error) { return nil, os.Rename(from, to) }, undefinedConv, "rename", from
	},
	"copyFile": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		from, to := pathArg(r, h, c, 0), pathArg(r, h, c, 1)
		return func() (any, error) {
			b, err := os.ReadFile(from)
			if err != nil {
				return nil, err
			}
			mode := fs.FileMode(0o666)
			if st, err := os.Stat(from); err == nil {
				mode = st.Mode().Perm()
			}
			return nil, os.WriteFile(to, b, mode)
		}, undefinedConv, "copyfile", from
	},
	"realpath": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p := pathArg(r, h, c, 0)
		return func() (any, error) {
			abs, err := filepath.Abs(p)
			if err != nil {
				return nil, err
			}
			return filepath.EvalSymlinks(abs)
		}, func(r *goja.Runtime, v any) goja.Value { return r.ToValue(v) }, "realpath", p
	},
	"readlink": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p := pathArg(r, h, c, 0)
		return func() (any, error) { return os.Readlink(p) }, func(r *goja.Runtime, v any) goja.Value { return r.ToValue(v) }, "readlink", p
	},
	"symlink": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		target, p := pathArg(r, h, c, 0), pathArg(r, h, c, 1)
		return func() (any, error) { return nil, os.Symlink(target, p) }, undefinedConv, "symlink", p
	},
	"chmod": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p, mode := pathArg(r, h, c, 0), c.Argument(1).ToInteger()
		return func() (any, error) { return nil, os.Chmod(p, fs.FileMode(mode)&fs.ModePerm) }, undefinedConv, "chmod", p
	},
	"access": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		p, mode := pathArg(r, h, c, 0), uint32(c.Argument(1).ToInteger())
		return func() (any, error) {
			if mode == 0 {
				_, err := os.Stat(p)
				return nil, err
			}
			return nil, syscall.Access(p, mode)
		}, undefinedConv, "access", p
	},
	"mkdtemp": func(r *goja.Runtime, h Host, c goja.FunctionCall) (func() (any, error), func(*goja.Runtime, any) goja.Value, string, string) {
		prefix := pathArg(r, h, c, 0)
		return func() (any, error) {
			return os.MkdirTemp(filepath.Dir(prefix), filepath.Base(prefix)+"*")
		}, func(r *goja.Runtime, v any) goja.Value { return r.ToValue(v) }, "mkdtemp", prefix
	},
}

func appendFile(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// firstMissing is the first directory mkdir -p creates ("" when none).
func firstMissing(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	first := ""
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		first = d
		if filepath.Dir(d) == d {
			break
		}
	}
	return first
}

// nodeErrorCodes maps errors to Node's error codes.
func nodeErrorCode(err error) (code, text string) {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "ENOENT", "no such file or directory"
	case errors.Is(err, fs.ErrExist):
		return "EEXIST", "file already exists"
	case errors.Is(err, fs.ErrPermission):
		return "EACCES", "permission denied"
	case errors.As(err, &errno):
		switch errno {
		case syscall.EISDIR:
			return "EISDIR", "illegal operation on a directory"
		case syscall.ENOTDIR:
			return "ENOTDIR", "not a directory"
		case syscall.ENOTEMPTY:
			return "ENOTEMPTY", "directory not empty"
		}
		return "E" + fmt.Sprint(int(errno)), errno.Error()
	}
	return "EIO", err.Error()
}

// nodeError is a JavaScript Error shaped like Node's file errors.
func nodeError(r *goja.Runtime, err error, syscallName, path string) *goja.Object {
	code, text := nodeErrorCode(err)
	e, _ := r.New(r.Get("Error"), r.ToValue(fmt.Sprintf("%s: %s, %s '%s'", code, text, syscallName, path)))
	_ = e.Set("code", code)
	_ = e.Set("syscall", syscallName)
	_ = e.Set("path", path)
	return e
}

// FS builds the native half of node:fs (js/fs.js requires it as
// "atomic:fs"): every operation as name (synchronous, throws) and
// nameAsync (a promise settled on the loop).
func FS(r *goja.Runtime, h Host) *goja.Object {
	o := r.NewObject()
	for name, op := range fsOps {
		_ = o.Set(name, func(call goja.FunctionCall) goja.Value {
			work, conv, sc, p := op(r, h, call)
			v, err := work()
			if err != nil {
				panic(nodeError(r, err, sc, p))
			}
			return conv(r, v)
		})
		_ = o.Set(name+"Async", func(call goja.FunctionCall) goja.Value {
			work, conv, sc, p := op(r, h, call)
			return h.Async(r, work, func(r *goja.Runtime, v any, err error) (goja.Value, goja.Value) {
				if err != nil {
					return nil, nodeError(r, err, sc, p)
				}
				return conv(r, v), nil
			})
		})
	}
	_ = o.Set("exists", func(p string) bool {
		if h.CheckPath(p) != nil {
			return false
		}
		_, err := os.Stat(p)
		return err == nil
	})
	return o
}
