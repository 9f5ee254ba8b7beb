package nodecompat

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/buffer"
	"github.com/dop251/goja_nodejs/require"
	"github.com/google/uuid"
)

// pathModule is node:path (POSIX).
func pathModule(r *goja.Runtime, module *goja.Object) {
	o := module.Get("exports").(*goja.Object)
	strs := func(call goja.FunctionCall) []string {
		out := make([]string, 0, len(call.Arguments))
		for _, a := range call.Arguments {
			out = append(out, a.String())
		}
		return out
	}
	join := func(call goja.FunctionCall) goja.Value {
		var parts []string
		for _, p := range strs(call) {
			if p != "" {
				parts = append(parts, p)
			}
		}
		if len(parts) == 0 {
			return r.ToValue(".")
		}
		j := filepath.Join(parts...)
		if strings.HasSuffix(parts[len(parts)-1], "/") && j != "/" {
			j += "/"
		}
		return r.ToValue(j)
	}
	resolve := func(call goja.FunctionCall) goja.Value {
		out := ""
		ps := strs(call)
		for i := len(ps) - 1; i >= 0 && !filepath.IsAbs(out); i-- {
			if ps[i] == "" {
				continue
			}
			if out == "" {
				out = ps[i]
			} else {
				out = ps[i] + "/" + out
			}
		}
		if !filepath.IsAbs(out) {
			out = Cwd(r) + "/" + out
		}
		return r.ToValue(filepath.Clean(out))
	}
	extname := func(p string) string {
		base := filepath.Base(p)
		if strings.HasPrefix(base, ".") && strings.Count(base, ".") == 1 {
			return ""
		}
		if base == ".." {
			return ""
		}
		return filepath.Ext(base)
	}
	basename := func(p string, ext goja.Value) string {
		if p == "" {
			return ""
		}
		b := filepath.Base(p)
		if b == "/" {
			return ""
		}
		if ext != nil && !goja.IsUndefined(ext) {
			if e := ext.String(); e != "" && e != b && strings.HasSuffix(b, e) {
				b = strings.TrimSuffix(b, e)
			}
		}
		return b
	}
	normalize := func(p string) string {
		if p == "" {
			return "."
		}
		c := filepath.Clean(p)
		if strings.HasSuffix(p, "/") && c != "/" {
			c += "/"
		}
		return c
	}
	_ = o.Set("sep", "/")
	_ = o.Set("delimiter", ":")
	_ = o.Set("join", join)
	_ = o.Set("resolve", resolve)
	_ = o.Set("normalize", normalize)
	_ = o.Set("isAbsolute", func(p string) bool { return strings.HasPrefix(p, "/") })
	_ = o.Set("dirname", func(p string) string {
		if p == "" {
			return "."
		}
		return filepath.Dir(strings.TrimSuffix(p, "/"))
	})
	_ = o.Set("basename", basename)
	_ = o.Set("extname", extname)
	_ = o.Set("relative", func(from, to string) string {
		abs := func(p string) string {
			if !filepath.IsAbs(p) {
				p = filepath.Join(Cwd(r), p)
			}
			return filepath.Clean(p)
		}
		rel, err := filepath.Rel(abs(from), abs(to))
		if err != nil || rel == "." {
			return ""
		}
		return rel
	})
	_ = o.Set("parse", func(p string) map[string]any {
		root := ""
		if strings.HasPrefix(p, "/") {
			root = "/"
		}
		base := basename(p, nil)
		ext := extname(base)
		dir := ""
		if i := strings.LastIndex(strings.TrimSuffix(p, "/"), "/"); i >= 0 {
			dir = p[:i]
			if dir == "" {
				dir = root
			}
		}
		return map[string]any{"root": root, "dir": dir, "base": base, "ext": ext, "name": strings.TrimSuffix(base, ext)}
	})
	_ = o.Set("format", func(obj map[string]any) string {
		str := func(k string) string { s, _ := obj[k].(string); return s }
		base := str("base")
		if base == "" {
			base = str("name") + str("ext")
		}
		dir := str("dir")
		if dir == "" {
			dir = str("root")
			return dir + base
		}
		if strings.HasSuffix(dir, "/") {
			return dir + base
		}
		return dir + "/" + base
	})
	_ = o.Set("toNamespacedPath", func(p string) string { return p })
	_ = o.Set("posix", o)
	_ = o.Set("default", o)
}

// osModule is node:os.
func osModule(r *goja.Runtime, module *goja.Object) {
	o := module.Get("exports").(*goja.Object)
	home, _ := os.UserHomeDir()
	_ = o.Set("EOL", "\n")
	_ = o.Set("homedir", func() string { return home })
	_ = o.Set("tmpdir", func() string { return os.TempDir() })
	_ = o.Set("platform", func() string { return Platform() })
	_ = o.Set("type", func() string {
		switch runtime.GOOS {
		case "darwin":
			return "Darwin"
		case "windows":
			return "Windows_NT"
		}
		return "Linux"
	})
	_ = o.Set("arch", func() string { return Arch() })
	_ = o.Set("hostname", func() string { h, _ := os.Hostname(); return h })
	_ = o.Set("release", func() string { return "" })
	_ = o.Set("endianness", func() string { return "LE" })
	_ = o.Set("uptime", func() int { return 0 })
	_ = o.Set("loadavg", func() []float64 { return []float64{0, 0, 0} })
	_ = o.Set("totalmem", func() int64 { return 0 })
	_ = o.Set("freemem", func() int64 { return 0 })
	_ = o.Set("networkInterfaces", func() map[string]any { return map[string]any{} })
	_ = o.Set("availableParallelism", func() int { return runtime.NumCPU() })
	_ = o.Set("cpus", func() []map[string]any {
		out := make([]map[string]any, runtime.NumCPU())
		for i := range out {
			out[i] = map[string]any{"model": "cpu", "speed": 0}
		}
		return out
	})
	_ = o.Set("userInfo", func() map[string]any {
		info := map[string]any{"username": os.Getenv("USER"), "homedir": home, "shell": os.Getenv("SHELL"), "uid": os.Getuid(), "gid": os.Getgid()}
		if u, err := user.Current(); err == nil {
			info["username"] = u.Username
		}
		return info
	})
	_ = o.Set("constants", map[string]any{"signals": map[string]any{}})
	_ = o.Set("default", o)
}

// Cwd is the script's working directory: its process.cwd() (the
// session's directory when it was loaded, as Node's process has it),
// against which relative paths resolve; the agent's own without one.
func Cwd(r *goja.Runtime) string {
	if p, ok := r.Get("process").(*goja.Object); ok {
		if fn, ok := goja.AssertFunction(p.Get("cwd")); ok {
			if v, err := fn(p); err == nil {
				if d := v.String(); filepath.IsAbs(d) {
					return d
				}
			}
		}
	}
	d, _ := os.Getwd()
	return d
}

// Platform is process.platform and os.platform(): Node's name of the OS.
func Platform() string {
	if runtime.GOOS == "windows" {
		return "win32"
	}
	return runtime.GOOS
}

// Arch is process.arch and os.arch(): Node's name of the architecture.
func Arch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x64"
	case "386":
		return "ia32"
	}
	return runtime.GOARCH
}

// cryptoModule is the part of node:crypto scripts commonly use: random
// UUIDs and bytes, and hashes.
func cryptoModule(r *goja.Runtime, module *goja.Object) {
	o := module.Get("exports").(*goja.Object)
	_ = o.Set("randomUUID", func() string { return uuid.NewString() })
	_ = o.Set("randomBytes", func(n int) goja.Value {
		if n < 0 || n > 1<<20 {
			panic(r.NewTypeError("randomBytes: size out of range"))
		}
		b := make([]byte, n)
		_, _ = rand.Read(b)
		return buffer.WrapBytes(r, b)
	})
	_ = o.Set("createHash", func(alg string) *goja.Object {
		var h hash.Hash
		switch strings.ToLower(alg) {
		case "sha256":
			h = sha256.New()
		case "sha1":
			h = sha1.New()
		case "md5":
			h = md5.New()
		case "sha512":
			h = sha512.New()
		default:
			panic(r.NewTypeError("createHash: unsupported algorithm " + alg + " (sha256, sha1, sha512, md5)"))
		}
		obj := r.NewObject()
		_ = obj.Set("update", func(call goja.FunctionCall) goja.Value {
			v := call.Argument(0)
			if s, ok := v.Export().(string); ok {
				h.Write([]byte(s))
			} else {
				h.Write(buffer.DecodeBytes(r, v, goja.Undefined()))
			}
			return obj
		})
		_ = obj.Set("digest", func(enc goja.Value) goja.Value {
			sum := h.Sum(nil)
			switch {
			case goja.IsUndefined(enc):
				return buffer.WrapBytes(r, sum)
			case enc.String() == "hex":
				return r.ToValue(hex.EncodeToString(sum))
			case enc.String() == "base64":
				return r.ToValue(base64.StdEncoding.EncodeToString(sum))
			case enc.String() == "base64url":
				return r.ToValue(base64.RawURLEncoding.EncodeToString(sum))
			}
			return buffer.EncodeBytes(r, sum, enc)
		})
		return obj
	})
	_ = o.Set("default", o)
}

// Modules are the Go-implemented Node modules, by every name they are
// imported as.
func Modules() map[string]require.ModuleLoader {
	out := map[string]require.ModuleLoader{}
	for name, l := range map[string]require.ModuleLoader{"path": pathModule, "os": osModule, "crypto": cryptoModule} {
		out[name] = l
		out["node:"+name] = l
	}
	out["path/posix"] = pathModule
	out["node:path/posix"] = pathModule
	// node:process is the process global, as in Node.
	process := func(r *goja.Runtime, module *goja.Object) { _ = module.Set("exports", r.Get("process")) }
	out["process"], out["node:process"] = process, process
	return out
}
