package jsext

import (
	"encoding/json"
	"fmt"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
)

// registryAPI is what a script registers: handlers, commands, tools,
// flags and MCP servers (the prelude keeps the JavaScript functions; the
// Script keeps what the host asks for).
type registryAPI struct {
	s *Script
	r *goja.Runtime
}

func (a registryAPI) exports() map[string]any {
	return map[string]any{
		"subscribe":         a.subscribe,
		"registerCommand":   a.registerCommand,
		"registerMcpServer": a.registerMcpServer,
		"registerTool":      a.registerTool,
		"registerFlag":      a.registerFlag,
		"flagValue":         a.flagValue,
	}
}

type toolSpecJSON struct {
	Name             string          `json:"name"`
	Label            string          `json:"label"`
	Description      string          `json:"description"`
	Parameters       json.RawMessage `json:"parameters"`
	PromptSnippet    string          `json:"promptSnippet"`
	PromptGuidelines []string        `json:"promptGuidelines"`
}

func (a registryAPI) subscribe(event string) {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handlerCounts == nil {
		s.handlerCounts = map[string]int{}
	}
	s.handlerCounts[event]++
	for _, e := range s.events {
		if e == event {
			return
		}
	}
	s.events = append(s.events, event)
	if s.loaded {
		s.log.Warn("pi.on() after loading: the handler is only called for events the extension already handled at load time", "event", event)
	}
	if _, ok := hooks.Kinds[event]; !ok {
		s.log.Warn("pi.on(): atomic never sends this event", "event", event)
	}
}

func (a registryAPI) registerCommand(name, description string, completions bool) {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	spec := extensions.CommandSpec{Name: name, Description: description, HasCompletions: completions}
	for i, c := range s.commands {
		if c.Name == name {
			s.commands[i] = spec
			return
		}
	}
	s.commands = append(s.commands, spec)
}

func (a registryAPI) registerMcpServer(name, configJSON string) {
	reg, ok := a.s.defaultHost().(extensions.MCPServerRegistrar)
	if !ok {
		panic(a.r.NewTypeError("registerMcpServer is not available in an isolated script"))
	} else if err := reg.RegisterMCPServer(a.s.spec.Path, name, json.RawMessage(configJSON)); err != nil {
		panic(jsErrorValue(a.r, "registerMcpServer: "+err.Error()))
	}
}

func (a registryAPI) registerTool(specJSON string) {
	s := a.s
	t := mustJSON[toolSpecJSON](a.r, "registerTool", specJSON)
	var schema map[string]any
	if err := json.Unmarshal(t.Parameters, &schema); err != nil || schema == nil {
		panic(a.r.NewTypeError(fmt.Sprintf("registerTool(%q): parameters must be a JSON Schema object (for example Type.Object({...}))", t.Name)))
	}
	spec := extensions.ToolSpec{Name: t.Name, Label: t.Label, Description: t.Description, Parameters: t.Parameters,
		PromptSnippet: t.PromptSnippet, PromptGuidelines: t.PromptGuidelines}
	s.mu.Lock()
	replaced := false
	for i, x := range s.tools {
		if x.Name == t.Name {
			s.tools[i], replaced = spec, true
			break
		}
	}
	if !replaced {
		s.tools = append(s.tools, spec)
	}
	loaded := s.loaded
	s.mu.Unlock()
	if loaded {
		// Registered from a handler or a command: offer it now.
		if tr, ok := s.defaultHost().(extensions.ToolRefresher); ok {
			tr.RefreshExtensionTools()
		} else {
			s.log.Warn("registerTool() after loading: this agent offers the tool only after a reload", "tool", t.Name)
		}
	}
}

func (a registryAPI) registerFlag(name, description, typ, def string) {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	spec := extensions.FlagSpec{Name: name, Description: description, Type: typ, Default: def}
	for i, f := range s.flags {
		if f.Name == name {
			s.flags[i] = spec
			return
		}
	}
	s.flags = append(s.flags, spec)
}

// flagValue is the flag's value on the command line (undefined when it
// was not given).
func (a registryAPI) flagValue(name string) goja.Value {
	if v, ok := a.s.rt.flagValue(name); ok {
		return a.r.ToValue(v)
	}
	return goja.Undefined()
}
