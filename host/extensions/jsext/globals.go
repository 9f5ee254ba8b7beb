package jsext

import (
	"github.com/dop251/goja"
)

// webNatives is the Go half of the web globals in js/globals.js that goja
// lacks (fetch, Intl): the second argument of globals.js. Its members are
// made on first use, and the JavaScript built on them (js/fetch.js,
// js/intl.js) runs when a script first touches the global, so a script
// that uses none of them pays nothing at start-up.
func (s *Script) webNatives(r *goja.Runtime) *goja.Object {
	lazy := &lazyObject{r: r, vals: map[string]goja.Value{}, defs: map[string]any{
		"fetch": func(method, url string, headers []string, body goja.Value, redirect string, token int64) goja.Value {
			return s.webFetch(r, method, url, headers, body, redirect, token)
		},
		// module runs a built-in CommonJS source (js/<file>) and returns
		// its exports.
		"module": func(file string) goja.Value {
			v, err := builtinModule(r, file)
			if err != nil {
				panic(r.NewGoError(err))
			}
			return v
		},
	}}
	for k, v := range intlNatives(r) {
		lazy.defs[k] = v
	}
	return r.NewDynamicObject(lazy)
}

// offline reports whether the agent runs offline: scripts make no network
// requests then.
func (rt *Runtime) offline() bool { return rt.Offline }
