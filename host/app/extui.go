package app

import (
	"context"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
)

// The extensions' UI: dialogs and notifications go to the front end's UI,
// and extensions are told when the agent waits on the user.

// SetUI connects the extension UI: the client's in RPC and ACP modes; in
// print and json modes the one that shows notifications (dialogs are
// cancelled there, as ctx.hasUI is false).
func (rt *Runtime) SetUI(ui UI) {
	rt.ext.setUI(ui)
}

func (rt *Runtime) uiRequest(ctx context.Context, method string, params map[string]any) (extensions.UIAnswer, error) {
	if extensions.IsTerminalUI(method) && rt.opts.Mode != ModeTUI {
		// As pi's RPC mode: the working message, header and footer are
		// the terminal's own; no client is sent them.
		return extensions.UIAnswer{}, nil
	}
	ui := rt.ext.currentUI()
	if ui == nil || (!rt.servesClient() && method != "notify") {
		// Without a client (print and json modes) dialogs are cancelled;
		// notifications still reach the UI set for those modes.
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	if extensions.IsUIDialog(method) {
		rt.uiPromptSpan(method, params, true)
		defer rt.uiPromptSpan(method, params, false)
	}
	return ui.Request(ctx, method, params)
}

// uiPromptSpan tells extensions when the agent starts and stops waiting
// for the user in a dialog (ui_prompt_start, ui_prompt_end), nested and
// overlapping dialogs coalesced into the outer span.
func (rt *Runtime) uiPromptSpan(method string, params map[string]any, start bool) {
	x := &rt.ext
	x.promptMu.Lock()
	var ev hooks.UIPromptEvent
	name := ""
	if start {
		x.prompts++
		if x.prompts == 1 {
			title, _ := params["title"].(string)
			x.promptSpan = hooks.UIPromptEvent{Reason: "ui_prompt", Kind: method, Title: title}
			ev, name = x.promptSpan, hooks.UIPromptStart
		}
	} else {
		x.prompts--
		if x.prompts == 0 {
			ev, name = x.promptSpan, hooks.UIPromptEnd
		}
	}
	x.promptMu.Unlock()
	if name != "" && x.bus.Has(name) {
		x.bus.Notify(name, ev)
	}
}
