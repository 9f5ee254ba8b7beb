package nodeext

import (
	"strings"
	"sync"
)

// nodeBuiltins are Node's built-in modules (require("module").builtinModules
// of Node 20, without the internal ones), importable with or without "node:";
// the set is built on first use.
var nodeBuiltins = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, name := range strings.Fields(`assert assert/strict async_hooks buffer child_process cluster console constants
		crypto dgram diagnostics_channel dns dns/promises domain events fs fs/promises http http2 https inspector
		inspector/promises module net os path path/posix path/win32 perf_hooks process punycode querystring readline
		readline/promises repl stream stream/consumers stream/promises stream/web string_decoder sys timers
		timers/promises tls trace_events tty url util util/types v8 vm wasi worker_threads zlib`) {
		m[name] = true
	}
	return m
})

// isBuiltin reports whether name is a Node built-in module ("node:test"
// and the other prefix-only ones included).
func isBuiltin(name string) bool {
	if bare, ok := strings.CutPrefix(name, "node:"); ok {
		_ = bare
		return true
	}
	return nodeBuiltins()[name]
}
