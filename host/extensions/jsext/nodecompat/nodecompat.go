// Package nodecompat is the goja script runtime's imitation of Node's
// built-in modules: node:path, node:os and node:crypto written in Go
// (modules.go), node:fs (js/fs.js over the Go operations of fs.go) and
// child_process (js/child_process.js; its streaming spawn in spawn.go),
// and events, util, url, module, readline and fs/promises in JavaScript
// (js/). Real Node runs scripts in host/extensions/nodeext instead.
//
// The package knows nothing of extensions: the script runtime that loads
// the modules (host/extensions/jsext) gives them a Host (its event loop
// and its path rule), registers Modules and Internals in each script's
// require registry, and runs the JavaScript sources (Sources, JSModules)
// as CommonJS modules. js/child_process.js runs programs through that
// runtime's natives ("atomic:internal": newToken, cancel, exec, execSync
// and spawn, which calls Spawn).
package nodecompat

import (
	"embed"
	"io/fs"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/require"
	"github.com/dop251/goja_nodejs/util"
)

// Host is what the modules need from the script runtime that runs them.
type Host interface {
	// Run runs fn on the script's loop; false when the loop has ended.
	Run(fn func(*goja.Runtime)) bool
	// Done is closed when the loop ends (spawned programs are killed).
	Done() <-chan struct{}
	// Async runs work on its own goroutine and settles the returned
	// promise on the loop with conv's result (ok) or rejection (fail).
	Async(r *goja.Runtime, work func() (any, error), conv func(r *goja.Runtime, v any, err error) (ok, fail goja.Value)) goja.Value
	// CheckPath refuses a path scripts may not use (fs operations).
	CheckPath(p string) error
	// Warn logs a failure of script code the modules called (a listener).
	Warn(msg string, err error)
}

//go:embed js/*.js
var sources embed.FS

// Sources are the JavaScript modules (js/<file>), CommonJS sources run
// with (module, exports, require).
func Sources() fs.FS { return sources }

// JSModules maps the module names scripts import to the JavaScript
// sources that implement them (without the "node:" prefix, which the
// runtime adds).
func JSModules() map[string]string {
	return map[string]string{
		"events":        "events.js",
		"util":          "util.js",
		"child_process": "child_process.js",
		"fs":            "fs.js",
		"fs/promises":   "fs_promises.js",
		"url":           "url.js",
		"module":        "module.js",
		"readline":      "readline.js",
	}
}

// Internals are the native modules the JavaScript sources require (not
// importable under a Node name): "atomic:fs" (fs.go), "atomic:url"
// (whatwgurl.go), and goja_nodejs's util that js/util.js extends.
func Internals(h Host) map[string]require.ModuleLoader {
	return map[string]require.ModuleLoader{
		"atomic:nodeutil": util.Require,
		"atomic:url":      func(r *goja.Runtime, module *goja.Object) { _ = module.Set("exports", URLNatives(r)) },
		"atomic:fs":       func(r *goja.Runtime, module *goja.Object) { _ = module.Set("exports", FS(r, h)) },
	}
}
