package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/atomic-go/atomic/host/agent"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/llm"
)

// The agent's models for extensions (extensions.ModelHost, behind
// ctx.modelRegistry): the same catalogue, credentials and providers as the
// agent's own requests. A key goes only to the extension that asked; it is
// never logged or written to the session.

// Models returns every known model and the usable ones, as
// get_available_models lists them.
func (h *extHost) Models(context.Context) (all, available []llm.Model) {
	available = h.rt.AvailableModels() // re-reads models.json when it changed
	return h.rt.catalog.Models(), available
}

// ScopedModels implements extensions.ScopedModelHost.
func (h *extHost) ScopedModels() []llm.ScopedModel { return h.rt.ScopedModels() }

var _ extensions.ScopedModelHost = (*extHost)(nil)

// ModelAuth resolves a provider's credentials as pi's
// getApiKeyAndHeaders: a provider without a key is OK with its headers
// only.
func (h *extHost) ModelAuth(_ context.Context, provider, id string) extensions.ModelAuth {
	rt := h.rt
	m, ok := rt.catalog.Find(provider, id)
	if !ok {
		return extensions.ModelAuth{Error: fmt.Sprintf("Model %s/%s not found", provider, id)}
	}
	key, _ := rt.catalog.Credential(provider)
	return extensions.ModelAuth{OK: true, APIKey: key, Headers: rt.requestHeaders(m, key), BaseURL: m.BaseURL}
}

// CompleteModel sends one request through the model's provider with the
// agent's credentials; it ends with ctx. Failures are the message's error.
func (h *extHost) CompleteModel(ctx context.Context, provider, id string, call extensions.ModelCall) llm.Message {
	rt := h.rt
	m, ok := rt.catalog.Find(provider, id)
	if !ok {
		m = llm.Model{Provider: provider, ID: id}
		return llm.NewBuilder(m, nil).Finish(ctx, fmt.Errorf("Model %s/%s not found", provider, id))
	}
	b := llm.NewBuilder(m, nil)
	p, err := rt.catalog.ProviderFor(m)
	if err != nil {
		return b.Finish(ctx, err)
	}
	key, ok := rt.catalog.Credential(provider)
	if !ok {
		return b.Finish(ctx, errors.New("No API key found for \""+provider+"\""))
	}
	if call.MaxTokens > 0 && (m.MaxTokens == 0 || call.MaxTokens < m.MaxTokens) {
		m.MaxTokens = call.MaxTokens
	}
	level := call.Reasoning
	if level == "" || !m.Reasoning {
		level = "off"
	}
	req := &llm.Request{
		Model: m, SystemPrompt: call.SystemPrompt, Messages: call.Messages, Tools: call.Tools,
		ThinkingLevel: level, APIKey: key, Headers: rt.requestHeaders(m, key),
	}
	return b.Finish(ctx, p.Stream(ctx, req, b))
}

// SystemPromptOptions implements extensions.SystemPromptHost.
func (h *extHost) SystemPromptOptions() json.RawMessage { return h.rt.promptOptions() }

var _ extensions.SystemPromptHost = (*extHost)(nil)

// Settings implements extensions.SettingsHost: the settings files merged
// with the command line's overrides, as pi's getSettings() (an empty
// object when none were read).
func (h *extHost) Settings() json.RawMessage {
	merged := map[string]any{}
	if l := h.rt.opts.Settings; l != nil && l.Merged != nil {
		merged = l.Merged
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

// CallTool implements extensions.ToolCaller: a tool's call of another
// tool, through the agent's pipeline and hooks (agent.CallTool).
func (h *extHost) CallTool(ctx context.Context, name string, args map[string]any) extensions.ToolCallOutcome {
	o := agent.CallTool(ctx, h.rt.agentConfig(), name, args)
	return extensions.ToolCallOutcome{ID: o.ID, Result: o.Result, IsError: o.IsError, DurationMs: o.DurationMs}
}
