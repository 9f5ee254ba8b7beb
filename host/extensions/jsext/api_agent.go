package jsext

import (
	"context"
	"fmt"
	"time"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/llm"
)

// agentAPI is the agent a call acts on: its tools and commands, its model
// and thinking level, whether it is idle, its context usage, abort and
// shutdown.
type agentAPI struct {
	s *Script
	r *goja.Runtime
}

func (a agentAPI) exports() map[string]any {
	return map[string]any{
		"activeTools":        a.activeTools,
		"allTools":           a.allTools,
		"setActiveTools":     a.setActiveTools,
		"commands":           a.commands,
		"model":              a.model,
		"thinkingLevel":      a.thinkingLevel,
		"setModel":           a.setModel,
		"setThinkingLevel":   a.setThinkingLevel,
		"isIdle":             a.isIdle,
		"hasPendingMessages": a.hasPendingMessages,
		"systemPrompt":       a.systemPrompt,
		"waitForIdle":        a.waitForIdle,
		"contextUsage":       a.contextUsage,
		"abort":              a.abort,
		"shutdown":           a.shutdown,
	}
}

// activeTools lists the names of the active tools (JSON).
func (a agentAPI) activeTools(id goja.Value) string {
	c := a.s.callOf(id)
	active, _ := c.host.Tools(context.WithoutCancel(c.ctx))
	if active == nil {
		active = []string{}
	}
	return jsString(active)
}

// allTools describes every tool (JSON).
func (a agentAPI) allTools(id goja.Value) string {
	c := a.s.callOf(id)
	_, all := c.host.Tools(context.WithoutCancel(c.ctx))
	if all == nil {
		all = []extensions.ToolInfo{}
	}
	return jsString(all)
}

func (a agentAPI) setActiveTools(id goja.Value, namesJSON string) {
	c := a.s.callOf(id)
	c.host.SetActiveTools(context.WithoutCancel(c.ctx), mustJSON[[]string](a.r, "setActiveTools", namesJSON))
}

// commands lists the agent's commands (JSON, [] for none).
func (a agentAPI) commands(id goja.Value) string {
	c := a.s.callOf(id)
	raw := c.host.Commands(context.WithoutCancel(c.ctx))
	if len(raw) == 0 || string(raw) == "null" {
		return "[]"
	}
	return string(raw)
}

// model is the current model (JSON, null for none).
func (a agentAPI) model(id goja.Value) string {
	c := a.s.callOf(id)
	m, _ := c.host.Model(context.WithoutCancel(c.ctx))
	return jsString(m)
}

func (a agentAPI) thinkingLevel(id goja.Value) string {
	c := a.s.callOf(id)
	_, level := c.host.Model(context.WithoutCancel(c.ctx))
	return level
}

func (a agentAPI) setModel(id goja.Value, provider, modelID string) goja.Value {
	c := a.s.callOf(id)
	return a.s.async(a.r, func() (any, error) {
		return c.host.SetModel(context.WithoutCancel(c.ctx), provider, modelID)
	}, plainResult)
}

func (a agentAPI) setThinkingLevel(id goja.Value, level string) string {
	if !llm.IsThinkingLevel(level) {
		panic(a.r.NewTypeError(fmt.Sprintf("setThinkingLevel: unknown level %q", level)))
	}
	c := a.s.callOf(id)
	return c.host.SetThinkingLevel(context.WithoutCancel(c.ctx), level)
}

func (a agentAPI) state(id goja.Value) extensions.HostState {
	c := a.s.callOf(id)
	return c.host.State(context.WithoutCancel(c.ctx))
}

func (a agentAPI) isIdle(id goja.Value) bool             { return a.state(id).IsIdle }
func (a agentAPI) hasPendingMessages(id goja.Value) bool { return a.state(id).HasPendingMessages }
func (a agentAPI) systemPrompt(id goja.Value) string     { return a.state(id).SystemPrompt }

// waitForIdle settles once the agent is idle (or the call ends).
func (a agentAPI) waitForIdle(id goja.Value) goja.Value {
	c := a.s.callOf(id)
	return a.s.async(a.r, func() (any, error) {
		for {
			if c.host.State(c.ctx).IsIdle {
				return nil, nil
			}
			select {
			case <-c.ctx.Done():
				return nil, c.ctx.Err()
			case <-time.After(25 * time.Millisecond):
			}
		}
	}, plainResult)
}

// contextUsage is ctx.getContextUsage() (JSON, "" for none).
func (a agentAPI) contextUsage(id goja.Value) string {
	c := a.s.callOf(id)
	return string(c.host.ContextUsage(context.WithoutCancel(c.ctx)))
}

func (a agentAPI) abort(id goja.Value) {
	c := a.s.callOf(id)
	// Abort waits for the run to stop, which may be waiting for this
	// very script: never block the loop on it.
	go c.host.Abort(context.Background())
}

func (a agentAPI) shutdown(id goja.Value) {
	c := a.s.callOf(id)
	if sr, ok := c.host.(extensions.ShutdownRequester); ok {
		go sr.RequestShutdown()
		return
	}
	a.s.log.Warn("ctx.shutdown() is not available here; ignored")
}
