package jsext

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/hooks"
)

// callAPI serves the calls in flight (a tool's partial results, the
// abort signal of a call), the flags' values and the event bus the
// scripts of this process share (pi.events).
type callAPI struct {
	s *Script
	r *goja.Runtime
}

func (a callAPI) exports() map[string]any {
	rt := a.s.rt
	return map[string]any{
		"toolUpdate": a.toolUpdate,
		"bindSignal": a.bindSignal,
		"flagValue":  a.flagValue,
		"listen":     func(channel string, on bool) { rt.bus().listen(a.s, channel, on) },
		"emit":       func(channel, payload string) { rt.bus().emit(a.s, channel, payload) },
	}
}

// toolUpdate passes a tool's partial result (onUpdate) to the host.
func (a callAPI) toolUpdate(id goja.Value, partialJSON string) {
	c := a.s.callOf(id)
	if c.update == nil {
		return
	}
	res, err := toolResultFrom(json.RawMessage(partialJSON))
	if err != nil {
		a.s.log.Warn("onUpdate: " + err.Error())
		return
	}
	c.update(res)
}

// bindSignal calls fn(reason) on the loop when the call's context ends
// (ctx.signal); nothing for code running outside a call.
func (a callAPI) bindSignal(id goja.Value, fnv goja.Value) {
	s := a.s
	c := s.calls[id.ToInteger()]
	fn, ok := goja.AssertFunction(fnv)
	if c == nil || !ok {
		return
	}
	ctx := c.ctx
	stop := context.AfterFunc(ctx, func() {
		reason := "aborted"
		if errors.Is(context.Cause(ctx), hooks.ErrTimeout) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reason = "deadline exceeded"
		}
		s.vm.run(func(r *goja.Runtime) {
			if _, err := fn(goja.Undefined(), r.ToValue(reason)); err != nil {
				s.log.Warn("abort listener failed", "error", s.errText(err))
			}
		})
	})
	c.stops = append(c.stops, stop)
}

// flagValue is the flag's value on the command line (undefined when it
// was not given).
func (a callAPI) flagValue(name string) goja.Value {
	if v, ok := a.s.rt.flagValue(name); ok {
		return a.r.ToValue(v)
	}
	return goja.Undefined()
}
