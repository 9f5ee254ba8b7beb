package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/atomic-go/atomic/host/llm"
)

// pi's built-in tool factories (createReadTool(cwd), createBashTool(cwd,
// {spawnHook}), …) give an extension tool objects that run the agent's own
// built-in tools. Every extension runtime offers them through the two
// functions below (the goja runtime natively, the Node runtime over the
// plugin protocol's HostService.RunBuiltinTool), so that a wrapped tool
// behaves exactly as the built-in does, whichever runtime runs it.

var (
	factoryOnce sync.Once
	factoryReg  *Registry
)

func factoryRegistry() *Registry {
	factoryOnce.Do(func() { factoryReg = NewRegistryWithBuiltins(nil) })
	return factoryReg
}

// FactoryInfo is what a factory's tool object shows of a built-in tool.
type FactoryInfo struct {
	Description      string          `json:"description"`
	Parameters       json.RawMessage `json:"parameters"`
	PromptSnippet    string          `json:"promptSnippet,omitempty"`
	PromptGuidelines []string        `json:"promptGuidelines,omitempty"`
}

// BuiltinFactoryInfo describes the built-in tool name (false for a name
// that is not one).
func BuiltinFactoryInfo(name string) (FactoryInfo, bool) {
	t, ok := factoryRegistry().Get(name)
	if !ok {
		return FactoryInfo{}, false
	}
	info := FactoryInfo{Description: t.Description(), Parameters: t.Parameters()}
	if p, ok := t.(Prompted); ok {
		info.PromptSnippet = p.PromptSnippet()
		info.PromptGuidelines = p.PromptGuidelines()
	}
	return info, true
}

// RunBuiltin runs the built-in tool name for a factory's tool object:
// the arguments are validated against its schema, relative paths resolve
// against cwd, env holds extra KEY=VALUE pairs for the processes it starts
// and onUpdate (nil for none) receives its partial results. It runs until
// ctx is cancelled.
func RunBuiltin(ctx context.Context, name string, args map[string]any, cwd string, env []string, onUpdate func(llm.ToolResult)) (llm.ToolResult, error) {
	reg := factoryRegistry()
	t, ok := reg.Get(name)
	if !ok {
		return llm.ToolResult{}, fmt.Errorf("%q is not a built-in tool", name)
	}
	if args == nil {
		args = map[string]any{}
	}
	args, err := reg.Validate(t, args, "")
	if err != nil {
		return llm.ToolResult{}, err
	}
	return t.Execute(ctx, Call{Args: args, Cwd: cwd, Env: env, OnUpdate: onUpdate})
}

// BuiltinFactoryInfos describes every built-in tool by name.
func BuiltinFactoryInfos() map[string]FactoryInfo {
	out := map[string]FactoryInfo{}
	for _, t := range factoryRegistry().All() {
		out[t.Name()], _ = BuiltinFactoryInfo(t.Name())
	}
	return out
}
