package jsext

import (
	"encoding/json"
	"fmt"

	"github.com/dop251/goja"
)

// How values cross between the natives and JavaScript: errors, promises
// settled from other goroutines, and JSON in both directions.

// jsErrorValue is a plain JavaScript Error with the message.
func jsErrorValue(r *goja.Runtime, msg string) goja.Value {
	e, err := r.New(r.Get("Error"), r.ToValue(msg))
	if err != nil {
		return r.ToValue(msg)
	}
	return e
}

// async runs work on its own goroutine and settles the returned promise
// on the loop with conv's result (ok) or rejection (fail).
func (s *Script) async(r *goja.Runtime, work func() (any, error), conv func(r *goja.Runtime, v any, err error) (ok, fail goja.Value)) goja.Value {
	p, resolve, reject := r.NewPromise()
	go func() {
		v, err := work()
		s.vm.run(func(r *goja.Runtime) {
			okv, failv := conv(r, v, err)
			if failv != nil {
				_ = reject(failv)
			} else {
				_ = resolve(okv)
			}
		})
	}()
	return r.ToValue(p)
}

// jsonResult settles with a JSON string or rejects with the error.
func jsonResult(r *goja.Runtime, v any, err error) (goja.Value, goja.Value) {
	if err != nil {
		return nil, jsErrorValue(r, err.Error())
	}
	switch x := v.(type) {
	case nil:
		return goja.Undefined(), nil
	case string:
		return r.ToValue(x), nil
	case json.RawMessage:
		if len(x) == 0 {
			return r.ToValue(""), nil
		}
		return r.ToValue(string(x)), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, jsErrorValue(r, err.Error())
	}
	return r.ToValue(string(b)), nil
}

// mustJSON decodes an argument the prelude sent as JSON ("" for none),
// throwing a TypeError naming what for a bad one.
func mustJSON[T any](r *goja.Runtime, what, s string) T {
	var v T
	if s == "" {
		return v
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(r.NewTypeError(fmt.Sprintf("%s: %v", what, err)))
	}
	return v
}

func jsString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
