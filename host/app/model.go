package app

import (
	"fmt"
	"strings"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/faux"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// Sources of a model change (model_changed.source).
const (
	ModelSourceSet   = "set"
	ModelSourceCycle = "cycle"
)

// AvailableModels returns the models that can be used now (implemented API
// and credentials present), re-reading models.json when it changed.
//
// The offline faux models are listed only when nothing else is available,
// or (the one in use) when a faux model is the active model: model
// pickers and cycle_model then never land on them by surprise. Selecting
// one explicitly (--provider faux, set_model) still works.
func (rt *Runtime) AvailableModels() []llm.Model {
	rt.reloadModels(false)
	return listableModels(rt.catalog.Available(), rt.currentModel())
}

// listableModels applies AvailableModels' rule for the faux models.
func listableModels(avail []llm.Model, cur *llm.Model) []llm.Model {
	var real, fauxActive []llm.Model
	for _, m := range avail {
		switch {
		case m.Provider != faux.ProviderID:
			real = append(real, m)
		case cur != nil && cur.Provider == m.Provider && cur.ID == m.ID:
			fauxActive = append(fauxActive, m)
		}
	}
	if len(real) == 0 {
		return avail
	}
	return append(real, fauxActive...)
}

// ScopedModels returns the available models of the cycling scope: the
// --models patterns, else the settings' enabledModels, resolved as pi 1.6
// resolves them (llm.ResolveScope: ids, fragments, globs, ":level"), in
// pattern order; nil when no pattern is set or none matches.
func (rt *Runtime) ScopedModels() []ScopedModel {
	scoped, _ := rt.scope()
	return scoped
}

// scope resolves the scope patterns and says what did not resolve.
func (rt *Runtime) scope() ([]ScopedModel, []string) {
	patterns := rt.opts.Models
	if patterns == nil {
		patterns = rt.settings.EnabledModels
	}
	if len(patterns) == 0 {
		return nil, nil
	}
	rt.reloadModels(false)
	// A scope may name the faux models.
	scoped, warnings := llm.ResolveScope(patterns, rt.catalog.Available())
	if len(scoped) == 0 {
		scoped = nil
	}
	return scoped, warnings
}

// ScopedModel is a model of the cycling scope with its optional level.
type ScopedModel = llm.ScopedModel

// SetModel switches to an available model. With persist it also becomes
// the default in settings.json (with the effective thinking level).
func (rt *Runtime) SetModel(provider, id string, persist bool) (llm.Model, error) {
	rt.reloadModels(false)
	m, ok := rt.catalog.Find(provider, id)
	if !ok {
		return llm.Model{}, fmt.Errorf("Model not found: %s/%s", provider, id)
	}
	if _, err := rt.catalog.ProviderFor(m); err != nil {
		return llm.Model{}, err
	}
	if !rt.catalog.Usable(m.Provider) {
		return llm.Model{}, fmt.Errorf("No API key for %s/%s", provider, id)
	}
	rt.applyModel(m, "", ModelSourceSet)
	if persist {
		if err := rt.persistModel(m); err != nil {
			return m, err
		}
	}
	return m, nil
}

// CycleResult is the cycle_model answer.
type CycleResult = rpcwire.CycleModelResult

// CycleModel moves to the next (or, with direction "backward", previous)
// model of the scope (enabledModels) or of the available models. It
// returns nil when there are fewer than two to cycle through.
func (rt *Runtime) CycleModel(direction string, persist bool) (*CycleResult, error) {
	if direction != "" && direction != "forward" && direction != "backward" {
		return nil, fmt.Errorf("invalid direction %q: use \"forward\" or \"backward\"", direction)
	}
	scoped := rt.ScopedModels()
	isScoped := scoped != nil
	if !isScoped {
		for _, m := range rt.AvailableModels() {
			scoped = append(scoped, ScopedModel{Model: m})
		}
	}
	if len(scoped) < 2 {
		return nil, nil
	}
	cur := rt.currentModel()
	idx := -1
	for i, s := range scoped {
		if cur != nil && s.Model.Provider == cur.Provider && s.Model.ID == cur.ID {
			idx = i
			break
		}
	}
	step := 1
	if direction == "backward" {
		step = len(scoped) - 1
	}
	next := scoped[0]
	if idx >= 0 {
		next = scoped[(idx+step)%len(scoped)]
	} else if direction == "backward" {
		next = scoped[len(scoped)-1]
	}
	level := rt.applyModel(next.Model, next.ThinkingLevel, ModelSourceCycle)
	if persist {
		if err := rt.persistModel(next.Model); err != nil {
			return nil, err
		}
	}
	return &CycleResult{Model: WireModel(next.Model), ThinkingLevel: level, IsScoped: isScoped}, nil
}

// applyModel makes m the session's model and re-clamps the thinking level
// (to want when given, else to the level the user asked for). It records
// the change in the session and emits model_changed and
// thinking_level_changed, each only when the value really changed. It
// returns the effective thinking level.
func (rt *Runtime) applyModel(m llm.Model, want, source string) string {
	rt.mu.Lock()
	prev := rt.model
	if want != "" {
		rt.prov.wantThinking = want
	}
	level := llm.ClampThinkingLevel(&m, rt.wantedThinkingLocked())
	modelChanged := prev == nil || prev.Provider != m.Provider || prev.ID != m.ID
	levelChanged := level != rt.thinking
	mc := m
	rt.model = &mc
	rt.thinking = level
	sess := rt.sess
	rt.mu.Unlock()
	if modelChanged {
		rt.appendEntry(sess, session.Entry{Type: session.TypeModelChange, Provider: m.Provider, ModelID: m.ID})
		ev := events.ModelChanged{Model: m, Source: source}
		if prev != nil {
			p := *prev
			ev.PreviousModel = &p
		}
		rt.Emit(ev)
	}
	if levelChanged {
		rt.appendEntry(sess, session.Entry{Type: session.TypeThinkingLevelChange, ThinkingLevel: level})
		rt.Emit(events.ThinkingLevelChanged{Level: level})
	}
	return level
}

func (rt *Runtime) wantedThinkingLocked() string {
	if rt.prov.wantThinking != "" {
		return rt.prov.wantThinking
	}
	return rt.thinking
}

func (rt *Runtime) persistModel(m llm.Model) error {
	rt.mu.Lock()
	level := rt.thinking
	rt.settings.DefaultProvider, rt.settings.DefaultModel = m.Provider, m.ID
	rt.mu.Unlock()
	return rt.updateSettings(func(s map[string]any) {
		s["defaultProvider"] = m.Provider
		s["defaultModel"] = m.ID
		s["defaultThinkingLevel"] = level
	})
}

func (rt *Runtime) updateSettings(fn func(map[string]any)) error {
	if err := config.Update(rt.paths.GlobalSettingsFile(), fn); err != nil {
		return fmt.Errorf("cannot save settings: %w", err)
	}
	return nil
}

// ThinkingAck is the set_thinking_level answer.
type ThinkingAck = rpcwire.ThinkingLevelResult

// SetThinkingLevel sets the thinking level, clamped to what the model
// supports; with persist it becomes defaultThinkingLevel in settings.
func (rt *Runtime) SetThinkingLevel(level string, persist bool) (ThinkingAck, error) {
	if !llm.IsThinkingLevel(level) {
		return ThinkingAck{}, fmt.Errorf("Invalid thinking level %q: use one of %s", level, strings.Join(llm.AllThinkingLevels, ", "))
	}
	rt.mu.Lock()
	rt.prov.wantThinking = level
	eff := llm.ClampThinkingLevel(rt.model, level)
	ack := ThinkingAck{Level: eff}
	if rt.model != nil {
		ack.Provider, ack.ModelID = rt.model.Provider, rt.model.ID
	}
	rt.mu.Unlock()
	rt.setEffectiveThinking(eff)
	if persist {
		rt.mu.Lock()
		rt.settings.DefaultThinkingLevel = eff
		rt.mu.Unlock()
		if err := rt.updateSettings(func(s map[string]any) { s["defaultThinkingLevel"] = eff }); err != nil {
			return ack, err
		}
	}
	return ack, nil
}

// setEffectiveThinking records a new effective level; the event and the
// session entry only when it changed.
func (rt *Runtime) setEffectiveThinking(level string) {
	rt.mu.Lock()
	changed := rt.thinking != level
	rt.thinking = level
	sess := rt.sess
	rt.mu.Unlock()
	if changed {
		rt.appendEntry(sess, session.Entry{Type: session.TypeThinkingLevelChange, ThinkingLevel: level})
		rt.Emit(events.ThinkingLevelChanged{Level: level})
	}
}

// CycleThinkingLevel moves to the next level the model supports. It
// returns false when the model does not reason.
func (rt *Runtime) CycleThinkingLevel() (string, bool) {
	rt.mu.Lock()
	if rt.model == nil || !rt.model.Reasoning {
		rt.mu.Unlock()
		return "", false
	}
	levels := llm.ThinkingLevelsFor(rt.model)
	next := levels[0]
	for i, l := range levels {
		if l == rt.thinking {
			next = levels[(i+1)%len(levels)]
			break
		}
	}
	rt.prov.wantThinking = next
	rt.mu.Unlock()
	rt.setEffectiveThinking(next)
	return next, true
}

// AvailableThinkingLevels lists the current model's levels in cycle order.
func (rt *Runtime) AvailableThinkingLevels() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return llm.ThinkingLevelsFor(rt.model)
}

// LogoutResult is the logout_provider answer.
type LogoutResult = rpcwire.LogoutResult

// LogoutProvider removes the provider's key from auth.json and reports
// what authentication remains (environment variables and models.json are
// reported, not changed) and the refreshed catalog.
func (rt *Runtime) LogoutProvider(provider string) (LogoutResult, error) {
	if _, err := rt.prov.auth.Logout(provider); err != nil {
		return LogoutResult{}, err
	}
	return LogoutResult{Provider: provider, AuthStatus: rt.prov.auth.Status(provider), Models: WireModels(rt.AvailableModels()), ScopedModels: WireScoped(rt.ScopedModels())}, nil
}

// SaveSetting writes one setting (a dotted key, e.g. "compaction.enabled")
// into the user's settings file, keeping everything else in it: the
// terminal UI's /settings saves what it changes, as pi's does. The
// running session is changed by that setting's own setter, not by this.
func (rt *Runtime) SaveSetting(key string, value any) error {
	if key == "" || strings.HasPrefix(key, ".") || strings.HasSuffix(key, ".") || strings.Contains(key, "..") {
		return fmt.Errorf("bad setting key %q", key)
	}
	return rt.updateSettings(func(s map[string]any) { config.SetPath(s, key, value) })
}
