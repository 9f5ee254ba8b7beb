package jsext

import (
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/eventloop"
)

// Timers as Node has them: setTimeout and setInterval return a Timeout
// object (ref, unref, hasRef, refresh, close, and its id as its primitive
// value), setImmediate an Immediate (ref, unref, hasRef); clearTimeout and
// clearInterval take either the object or the id, and each clears both
// kinds. A script's loop lives as long as the script, so ref and unref
// only change what hasRef says. Callbacks run as guarded jobs and their
// exceptions are logged instead of silently dropped.

// timer is one setTimeout, setInterval or setImmediate.
type timer struct {
	id       int64
	kind     string // "Timeout" or "Immediate"
	repeat   bool
	delay    time.Duration
	run      func() // the callback, as a guarded job
	ref      bool
	active   bool
	timeout  *eventloop.Timer
	interval *eventloop.Interval
	// cancelled: an Immediate that must not run.
	cancelled bool
}

// timerTable is a runtime's timers. Loop only.
type timerTable struct {
	next    int64
	pending map[int64]*timer
	proto   *goja.Object // Timeout.prototype and Immediate.prototype, made on first use
	improto *goja.Object
	key     *goja.Symbol // where an object keeps its *timer
}

func (v *vm) arm(t *timer) {
	t.active = true
	v.timers.pending[t.id] = t
	switch {
	case t.kind == "Immediate":
		v.loop.RunOnLoop(func(*goja.Runtime) {
			if t.cancelled {
				return
			}
			t.active = false
			delete(v.timers.pending, t.id)
			v.guard(t.run)
		})
	case t.repeat:
		t.interval = v.loop.SetInterval(func(*goja.Runtime) { v.guard(t.run) }, t.delay)
	default:
		t.timeout = v.loop.SetTimeout(func(*goja.Runtime) {
			t.active = false
			delete(v.timers.pending, t.id)
			v.guard(t.run)
		}, t.delay)
	}
}

func (v *vm) disarm(t *timer) {
	if !t.active {
		return
	}
	t.active = false
	delete(v.timers.pending, t.id)
	switch {
	case t.kind == "Immediate":
		t.cancelled = true
	case t.interval != nil:
		v.loop.ClearInterval(t.interval)
	case t.timeout != nil:
		v.loop.ClearTimeout(t.timeout)
	}
}

// timerOf is the timer a handle (the object, or its id) names.
func (v *vm) timerOf(r *goja.Runtime, h goja.Value) *timer {
	if h == nil || goja.IsUndefined(h) || goja.IsNull(h) {
		return nil
	}
	if o, ok := h.(*goja.Object); ok && v.timers.key != nil {
		if t, ok := exportOf[*timer](o.GetSymbol(v.timers.key)); ok {
			return t
		}
		return nil
	}
	return v.timers.pending[h.ToInteger()]
}

func (v *vm) timerObject(r *goja.Runtime, t *timer) goja.Value {
	tt := &v.timers
	if tt.proto == nil {
		tt.key = goja.NewSymbol("timer")
		self := func(call goja.FunctionCall) *timer {
			if o, ok := call.This.(*goja.Object); ok {
				if t, ok := exportOf[*timer](o.GetSymbol(tt.key)); ok {
					return t
				}
			}
			panic(r.NewTypeError("not a Timeout or Immediate"))
		}
		method := func(p *goja.Object, name string, fn func(call goja.FunctionCall, t *timer) goja.Value) {
			_ = p.Set(name, func(call goja.FunctionCall) goja.Value { return fn(call, self(call)) })
		}
		common := func(p *goja.Object) {
			method(p, "ref", func(call goja.FunctionCall, t *timer) goja.Value { t.ref = true; return call.This })
			method(p, "unref", func(call goja.FunctionCall, t *timer) goja.Value { t.ref = false; return call.This })
			method(p, "hasRef", func(_ goja.FunctionCall, t *timer) goja.Value { return r.ToValue(t.ref) })
		}
		tt.proto = r.NewObject()
		common(tt.proto)
		method(tt.proto, "refresh", func(call goja.FunctionCall, t *timer) goja.Value {
			v.disarm(t)
			v.arm(t)
			return call.This
		})
		method(tt.proto, "close", func(call goja.FunctionCall, t *timer) goja.Value { v.disarm(t); return call.This })
		_ = tt.proto.DefineDataPropertySymbol(goja.SymToPrimitive, r.ToValue(func(call goja.FunctionCall) goja.Value {
			return r.ToValue(self(call).id)
		}), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		tt.improto = r.NewObject()
		common(tt.improto)
	}
	o := r.NewObject()
	if t.kind == "Immediate" {
		o.SetPrototype(tt.improto)
	} else {
		o.SetPrototype(tt.proto)
	}
	_ = o.DefineDataPropertySymbol(tt.key, r.ToValue(t), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	return o
}

// installTimers replaces the loop's timer functions.
func (v *vm) installTimers(r *goja.Runtime) {
	v.timers.pending = map[int64]*timer{}
	callback := func(call goja.FunctionCall, what string, first int) func() {
		fn, ok := goja.AssertFunction(call.Argument(0))
		if !ok {
			panic(r.NewTypeError(what + ": the callback must be a function"))
		}
		var args []goja.Value
		if len(call.Arguments) > first {
			args = append(args, call.Arguments[first:]...)
		}
		return func() {
			if _, err := fn(goja.Undefined(), args...); err != nil {
				v.log.Warn("uncaught exception in a "+what+" callback", "error", errorText(err, v.base))
			}
		}
	}
	schedule := func(call goja.FunctionCall, what, kind string, repeat bool) goja.Value {
		t := &timer{kind: kind, repeat: repeat, ref: true}
		if kind == "Immediate" {
			t.run = callback(call, what, 1)
		} else {
			t.run = callback(call, what, 2)
			d := call.Argument(1).ToInteger()
			switch {
			case d > 1<<31-1: // Node: too long a delay is 1 ms
				d = 1
			case d < 1 && repeat:
				d = 1
			case d < 0:
				d = 0
			}
			t.delay = time.Duration(d) * time.Millisecond
		}
		v.timers.next++
		t.id = v.timers.next
		v.arm(t)
		return v.timerObject(r, t)
	}
	clear := func(h goja.Value) {
		if t := v.timerOf(r, h); t != nil {
			v.disarm(t)
		}
	}
	r.Set("setTimeout", func(call goja.FunctionCall) goja.Value { return schedule(call, "setTimeout", "Timeout", false) })
	r.Set("setInterval", func(call goja.FunctionCall) goja.Value { return schedule(call, "setInterval", "Timeout", true) })
	r.Set("setImmediate", func(call goja.FunctionCall) goja.Value {
		return schedule(call, "setImmediate", "Immediate", false)
	})
	r.Set("clearTimeout", clear)
	r.Set("clearInterval", clear)
	r.Set("clearImmediate", clear)
}
