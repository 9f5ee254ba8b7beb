package app

import (
	"encoding/json"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// WireModel is a model as the protocol's answers describe it (get_state,
// set_model, cycle_model, get_available_models, logout_provider). The
// request headers stay behind: they may name secrets.
func WireModel(m llm.Model) rpcwire.Model {
	w := rpcwire.Model{
		ID: m.ID, Name: m.Name, API: m.API, Provider: m.Provider, BaseURL: m.BaseURL,
		Reasoning: m.Reasoning, Input: m.Input, ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens,
		Cost:           rpcwire.ModelCost{Input: m.Cost.Input, Output: m.Cost.Output, CacheRead: m.Cost.CacheRead, CacheWrite: m.Cost.CacheWrite},
		ThinkingLevels: m.ThinkingLevels,
	}
	if len(m.Compat) > 0 {
		// A map of JSON values from models.json always encodes.
		w.Compat, _ = json.Marshal(m.Compat)
	}
	return w
}

// WireModels converts a list of models (never nil: an empty list is []).
func WireModels(ms []llm.Model) []rpcwire.Model {
	out := make([]rpcwire.Model, len(ms))
	for i, m := range ms {
		out[i] = WireModel(m)
	}
	return out
}

// WireScoped converts the models of the cycling scope (nil stays nil).
func WireScoped(ms []ScopedModel) []rpcwire.ScopedModel {
	if ms == nil {
		return nil
	}
	out := make([]rpcwire.ScopedModel, len(ms))
	for i, m := range ms {
		out[i] = rpcwire.ScopedModel{Model: WireModel(m.Model), ThinkingLevel: m.ThinkingLevel}
	}
	return out
}
