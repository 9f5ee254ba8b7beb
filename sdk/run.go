package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
)

// Description is what the extension registers, as the agent sees it.
type Description struct {
	Name, Version string
	Events        []string
	Commands      []CommandInfo
	Tools         []ToolInfo
	Flags         []Flag
}

// Describe returns what the extension registers.
func (e *Extension) Describe() Description {
	d := Description{Name: e.Name, Version: e.Version, Events: e.Events()}
	for _, c := range e.commands {
		d.Commands = append(d.Commands, CommandInfo{Name: c.Name, Description: c.Description, Source: "extension"})
	}
	for _, t := range e.tools {
		d.Tools = append(d.Tools, ToolInfo{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	for _, f := range e.flags {
		d.Flags = append(d.Flags, *f)
	}
	return d
}

// HandleEvent runs the handlers of one event (JSON with "type"): with one
// handler it returns its result (nil for none). Results of several
// handlers are composed by the agent, which calls HandleEventAt for each;
// HandleEvent runs several handlers only for notifications.
func (e *Extension) HandleEvent(ctx *Context, event string, payload json.RawMessage) (json.RawMessage, error) {
	return e.dispatch(ctx, event, payload)
}

// RunCommand runs a registered command.
func (e *Extension) RunCommand(ctx *Context, name, args string) (err error) {
	c := e.command(name)
	if c == nil || c.Run == nil {
		return fmt.Errorf("unknown command %q", name)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("command %s panicked: %v\n%s", name, r, debug.Stack())
		}
	}()
	return c.Run(ctx, args)
}

// RunShortcut runs the handler of the shortcut registered as key.
func (e *Extension) RunShortcut(ctx *Context, key string) (err error) {
	var k *Shortcut
	for _, s := range e.keys {
		if s.Key == key {
			k = s
		}
	}
	if k == nil || k.Run == nil {
		return fmt.Errorf("unknown shortcut %q", key)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("shortcut %s panicked: %v\n%s", key, r, debug.Stack())
		}
	}()
	return k.Run(ctx)
}

// Complete returns a command's argument completions; none is true when the
// command offers no completions.
func (e *Extension) Complete(ctx *Context, name, prefix string) (items []Completion, none bool, err error) {
	c := e.command(name)
	if c == nil || c.Complete == nil {
		return nil, true, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("completions of %s panicked: %v", name, r)
		}
	}()
	items, err = c.Complete(ctx, prefix)
	return items, items == nil && err == nil, err
}

// ErrUnknownTool is returned by ExecuteTool for a name the extension did
// not register.
var ErrUnknownTool = errors.New("unknown tool")

// StreamProvider answers one model request of a provider registered
// with a Stream.
func (e *Extension) StreamProvider(ctx *Context, provider string, request map[string]any, update func(ToolOutput)) (out ToolOutput, err error) {
	var stream func(*Context, map[string]any, func(ToolOutput)) (ToolOutput, error)
	for _, p := range e.provs {
		if p.Name == provider && p.Stream != nil {
			stream = p.Stream
		}
	}
	if stream == nil {
		return ToolOutput{}, fmt.Errorf("provider %q does not stream in this extension", provider)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("provider %s panicked: %v", provider, r)
		}
	}()
	return stream(ctx, request, update)
}

// ExecuteTool runs a registered tool.
func (e *Extension) ExecuteTool(ctx *Context, name string, call ToolInvocation, update func(ToolOutput)) (out ToolOutput, err error) {
	t := e.tool(name)
	if t == nil || t.Execute == nil {
		return ToolOutput{}, fmt.Errorf("%w %q", ErrUnknownTool, name)
	}
	if update == nil {
		update = func(ToolOutput) {}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool %s panicked: %v", name, r)
		}
	}()
	return t.Execute(ctx, call, update)
}
