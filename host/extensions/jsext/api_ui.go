package jsext

import (
	"context"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/hooks"
)

// uiAPI is ctx.ui's way to the client (js/ui.js makes the methods).
// Dialogs pause the deadline of the call they are made for.
type uiAPI struct {
	s *Script
	r *goja.Runtime
}

func (a uiAPI) exports() map[string]any {
	return map[string]any{"ui": a.dialog, "uiNotify": a.notify}
}

// dialog asks the client (select, confirm, input, editor) until the token
// is cancelled; the promise settles with the answer as JSON.
func (a uiAPI) dialog(id goja.Value, token int64, method, paramsJSON string) goja.Value {
	s := a.s
	c := s.callOf(id)
	params := mustJSON[map[string]any](a.r, "ui."+method, paramsJSON)
	ctx, done := s.tokenContext(c.ctx, token)
	return s.async(a.r, func() (any, error) {
		defer done()
		resume := hooks.PauseDeadline(c.ctx)
		defer resume()
		ans, err := c.host.UI(ctx, method, params)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"cancelled": ans.Cancelled}
		if ans.HasValue {
			out["value"] = ans.Value
		}
		if method == "confirm" {
			out["confirmed"] = ans.Confirmed
		}
		return out, nil
	}, jsonResult)
}

// notify sends a notification (notify, setStatus, setWidget …) and
// returns.
func (a uiAPI) notify(id goja.Value, method, paramsJSON string) {
	c := a.s.callOf(id)
	params := mustJSON[map[string]any](a.r, "ui."+method, paramsJSON)
	if _, err := c.host.UI(context.WithoutCancel(c.ctx), method, params); err != nil {
		panic(jsErrorValue(a.r, "ui."+method+": "+err.Error()))
	}
}
