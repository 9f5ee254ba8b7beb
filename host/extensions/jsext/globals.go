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
		// lazyGlobals defines globals made on first use: the first read of
		// any of names calls make, which returns them all by name.
		"lazyGlobals": func(names []string, make goja.Callable) { lazyGlobals(r, names, make) },
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

func lazyGlobals(r *goja.Runtime, names []string, make goja.Callable) {
	g := r.GlobalObject()
	var made *goja.Object
	for _, name := range names {
		settle := func(v goja.Value) {
			_ = g.DefineDataProperty(name, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
		get := r.ToValue(func(goja.FunctionCall) goja.Value {
			if made == nil {
				v, err := make(goja.Undefined())
				if err != nil {
					panic(err)
				}
				made = v.ToObject(r)
			}
			v := made.Get(name)
			settle(v)
			return v
		})
		set := r.ToValue(func(call goja.FunctionCall) goja.Value {
			settle(call.Argument(0))
			return goja.Undefined()
		})
		_ = g.DefineAccessorProperty(name, get, set, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
}
