package app

import (
	"context"
	"encoding/json"
	"time"

	"github.com/atomic-go/atomic/host/hooks"
)

// ExtensionShortcut is a key an extension binds (pi.registerShortcut):
// Key as the extension wrote it, Path the extension's file.
type ExtensionShortcut struct {
	Key, Description, Path string
}

// Shortcuts lists the extensions' keyboard shortcuts in load order (the
// interactive terminal binds them; a later one of the same key wins
// there, as in pi).
func (rt *Runtime) Shortcuts() []ExtensionShortcut {
	if rt.ext.mgr == nil {
		return nil
	}
	rt.extReady()
	var out []ExtensionShortcut
	for _, r := range rt.ext.mgr.Shortcuts() {
		out = append(out, ExtensionShortcut{Key: r.Spec.Key, Description: r.Spec.Description, Path: r.Path})
	}
	return out
}

// RunShortcut runs the handler of the shortcut that the extension at path
// registered as key, to completion, with a command's context; a failure
// is an extension_error. It reports whether there was such a shortcut.
func (rt *Runtime) RunShortcut(path, key string) bool {
	if rt.ext.mgr == nil {
		return false
	}
	rt.extReady()
	for _, r := range rt.ext.mgr.Shortcuts() {
		if r.Path != path || r.Spec.Key != key {
			continue
		}
		rt.extStarted()
		gen := rt.ext.reloads.Load()
		err := r.Ext.RunShortcut(rt.baseCtx, key)
		if err != nil && rt.ext.reloads.Load() == gen && rt.baseCtx.Err() == nil {
			rt.reportExtensionError(hooks.ExtensionError{ExtensionPath: path, Event: "shortcut", Error: err.Error()})
		}
		return true
	}
	return false
}

// renderTimeout bounds one message_render (the terminal draws the
// message its own way when it passes).
const renderTimeout = 2 * time.Second

// RenderMessage asks the extensions for a custom message's lines at width
// (pi.registerMessageRenderer, through the event message_render): the
// first extension that renders it wins. ok is false when none did (no
// renderer for the type, one that threw or returned nothing).
func (rt *Runtime) RenderMessage(ctx context.Context, customType string, message map[string]any, expanded bool, width int) (lines []string, ok bool) {
	bus := rt.ext.bus
	if bus == nil || customType == "" {
		return nil, false
	}
	rt.extReady()
	if !bus.Has(hooks.MessageRender) {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(ctx, renderTimeout)
	defer cancel()
	raws := bus.Call(ctx, hooks.MessageRender, hooks.MessageRenderEvent{CustomType: customType, Message: message, Expanded: expanded, Width: width})
	for _, raw := range raws {
		var r hooks.MessageRenderResult
		if json.Unmarshal(raw, &r) == nil && len(r.Lines) > 0 {
			return r.Lines, true
		}
	}
	return nil, false
}

// ToolRender is what an extension's renderCall and renderResult drew for
// one tool call (a nil slot: drawn as usual).
type ToolRender struct {
	Call, Result []string
}

// ToolRenderInput is a tool call for RenderTool: Result is the tool's
// result ({content, details}) once it finished, else nil.
type ToolRenderInput struct {
	ToolName, ToolCallID string
	Args                 map[string]any
	Result               map[string]any
	IsError, Expanded    bool
	Width                int
}

// RenderTool asks the extension of a tool with renderCall or renderResult
// for its lines (the event tool_render); ok is false when none drew.
func (rt *Runtime) RenderTool(ctx context.Context, in ToolRenderInput) (r ToolRender, ok bool) {
	bus := rt.ext.bus
	if bus == nil {
		return r, false
	}
	rt.extReady()
	if !bus.Has(hooks.ToolRender) {
		return r, false
	}
	ctx, cancel := context.WithTimeout(ctx, renderTimeout)
	defer cancel()
	ev := hooks.ToolRenderEvent{ToolName: in.ToolName, ToolCallID: in.ToolCallID, Args: in.Args, IsError: in.IsError, Expanded: in.Expanded, Width: in.Width}
	if in.Args == nil {
		ev.Args = map[string]any{}
	}
	if in.Result != nil { // a nil map in the interface would be sent as "result": null
		ev.Result = in.Result
	}
	for _, raw := range bus.Call(ctx, hooks.ToolRender, ev) {
		var res hooks.ToolRenderResult
		if json.Unmarshal(raw, &res) == nil && (len(res.Call) > 0 || len(res.Result) > 0) {
			return ToolRender{Call: res.Call, Result: res.Result}, true
		}
	}
	return r, false
}
