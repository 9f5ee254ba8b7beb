package jsext

import (
	"fmt"

	"github.com/dop251/goja"
)

// The natives of goja's engine (the prelude's `native`), one Go
// type per area of the API, each listing its members in exports():
//
//	portAPI      (port.go)          the host port of js/api.js: every HostService method, the call's handler context
//	execAPI      (api_exec.go)      cancellation tokens, child_process, the built-in tools
//	callAPI      (api_calls.go)     calls in flight (tool updates, abort signals), flags and the shared event bus
//	envAPI       (api_env.go)       logging, encodings, process facts for globals.js
//
// Simple results are plain values (booleans, strings, numbers); objects
// and lists cross as JSON strings. Members that take a call id act for
// that handler call (its context, its host, its deadline), 0 meaning "no
// call" (see Script.callOf).

// nativeArea is one area of the native API: its members by name (Go
// functions or plain values, turned into JavaScript values on first use).
type nativeArea interface {
	exports() map[string]any
}

// natives returns the script's native object (one per runtime; loop
// only).
func (s *Script) natives(r *goja.Runtime) *goja.Object {
	if s.nativeObj != nil {
		return s.nativeObj
	}
	lazy := &lazyObject{r: r, defs: map[string]any{}, vals: map[string]goja.Value{}}
	for _, area := range []nativeArea{
		portAPI{s, r}, execAPI{s, r}, callAPI{s, r}, envAPI{s, r},
	} {
		for name, v := range area.exports() {
			if _, dup := lazy.defs[name]; dup {
				panic(fmt.Sprintf("jsext: native %q is exported by two areas", name))
			}
			lazy.defs[name] = v
		}
	}
	s.nativeObj = r.NewDynamicObject(lazy)
	return s.nativeObj
}

// lazyObject is an object whose members are turned into JavaScript values
// on first use (a script uses a few of the native functions; making all of
// them up front is a measurable part of its start-up). Read-only.
type lazyObject struct {
	r    *goja.Runtime
	defs map[string]any
	vals map[string]goja.Value
}

func (l *lazyObject) Get(key string) goja.Value {
	if v, ok := l.vals[key]; ok {
		return v
	}
	d, ok := l.defs[key]
	if !ok {
		return nil
	}
	v := l.r.ToValue(d)
	l.vals[key] = v
	return v
}

func (l *lazyObject) Set(string, goja.Value) bool { return false }
func (l *lazyObject) Has(key string) bool         { _, ok := l.defs[key]; return ok }
func (l *lazyObject) Delete(string) bool          { return false }
func (l *lazyObject) Keys() []string {
	keys := make([]string, 0, len(l.defs))
	for k := range l.defs {
		keys = append(keys, k)
	}
	return keys
}
