package app

import (
	"cmp"
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/auth"
	"github.com/atomic-go/atomic/host/llm/faux"
)

// provState is the runtime's provider-side state: credentials, the
// models.json the catalog was built from, the thinking level the user asked
// for (the effective one is clamped per model), and the retry in progress.
type provState struct {
	auth *auth.Resolver

	loadMu     sync.Mutex
	extProvs   []extensions.ProviderRef // registered by extensions, in load order
	modelsPath string
	modelsMod  time.Time
	modelsSize int64
	modelsSeen bool
	// Until the extensions have loaded once, a models.json provider that
	// names no models and no provider the agent has yet may be one an
	// extension registers: its warning waits (held) for the catalogue
	// with the extensions' providers.
	extLoaded bool
	held      []string

	// guarded by rt.mu
	wantThinking string
	retry        *retryWait
}

// reloadModels rebuilds the model list when models.json changed (or
// always, when force is set).
func (rt *Runtime) reloadModels(force bool) {
	p := rt.prov
	p.loadMu.Lock()
	defer p.loadMu.Unlock()
	fi, err := os.Stat(p.modelsPath)
	exists := err == nil
	if !force && exists == p.modelsSeen && (!exists || (fi.ModTime().Equal(p.modelsMod) && fi.Size() == p.modelsSize)) {
		return
	}
	p.modelsSeen = exists
	if exists {
		p.modelsMod, p.modelsSize = fi.ModTime(), fi.Size()
	}
	// The built-in models, then the extensions' providers, then
	// models.json over both (the user's file has the last word).
	models, settings := rt.withExtensionProviders(append(llm.BuiltinModels(), faux.Models()...), p.extProvs)
	var held *[]string
	if !p.extLoaded {
		p.held = nil
		held = &p.held
	}
	models = applyModelsFile(p.modelsPath, models, settings, p.auth, rt.log, held)
	rt.catalog.SetModels(models)

	// Keep the active model's description current.
	rt.mu.Lock()
	if rt.model != nil {
		if m, ok := rt.catalog.Find(rt.model.Provider, rt.model.ID); ok {
			rt.model = &m
		}
	}
	rt.mu.Unlock()
}

// applyModelsFile puts models.json over models and the provider settings
// (the user's file has the last word), gives the resolver the settings and
// which providers need no key, and sorts the offline models last. Sessions
// and `atomic auth` load the models through it.
func applyModelsFile(path string, models []llm.Model, settings map[string]llm.ProviderSettings, a *auth.Resolver, log *slog.Logger, held *[]string) []llm.Model {
	cfg, err := llm.LoadModelsConfig(path)
	if err != nil {
		log.Warn("models.json is invalid; using the built-in and the extensions' models only", "err", err)
	} else {
		var problems []string
		var fromFile map[string]llm.ProviderSettings
		models, fromFile, problems = cfg.Apply(models)
		for name, f := range fromFile {
			// Over an extension's provider, what the file leaves out
			// (its key, headers) stays the registration's.
			if prev, ok := settings[name]; ok {
				f.Custom = prev.Custom
				if f.APIKey == "" {
					f.APIKey = prev.APIKey
				}
				f.Headers = mergeHeaders(prev.Headers, f.Headers)
				f.AuthHeader = f.AuthHeader || prev.AuthHeader
			}
			settings[name] = f
		}
		for _, pr := range problems {
			if held != nil && strings.HasSuffix(pr, "has no models") {
				*held = append(*held, pr)
				continue
			}
			log.Warn("models.json entry skipped", "path", path, "problem", pr)
		}
	}
	for name, s := range settings {
		// A server configured without a key (a local Ollama or
		// llama.cpp, say) needs none.
		a.SetKeyless(name, s.Custom && s.APIKey == "")
	}
	// The offline provider needs no key, whatever changed its settings.
	a.SetKeyless(faux.ProviderID, true)
	a.SetProviders(settings)
	// The offline models come last, as the catalogue has always listed
	// them (the default model is the first usable one).
	slices.SortStableFunc(models, func(a, b llm.Model) int {
		return cmp.Compare(boolInt(a.Provider == faux.ProviderID), boolInt(b.Provider == faux.ProviderID))
	})
	return models
}

// withExtensionProviders layers the providers extensions registered over
// models, in load order, each as a provider of models.json: a provider the
// agent has keeps its models unless the registration lists models, which
// then replace them (as pi's registerProvider).
func (rt *Runtime) withExtensionProviders(models []llm.Model, refs []extensions.ProviderRef) ([]llm.Model, map[string]llm.ProviderSettings) {
	settings := map[string]llm.ProviderSettings{}
	// A provider the agent knows stays one that needs a key, even when a
	// registration replaces all its models (Apply would see it as new).
	builtin := map[string]bool{}
	for _, m := range models {
		builtin[m.Provider] = true
	}
	for _, ref := range refs {
		if ref.Spec.Config != nil { // nil: the provider only lists virtual models
			models = rt.withProviderConfig(models, settings, builtin, ref)
		}
		models = rt.withVirtualModels(models, settings, builtin, ref)
	}
	return models, settings
}

// withProviderConfig applies one registration's configuration.
func (rt *Runtime) withProviderConfig(models []llm.Model, settings map[string]llm.ProviderSettings, builtin map[string]bool, ref extensions.ProviderRef) []llm.Model {
	var pc llm.ProviderConfig
	if err := json.Unmarshal(ref.Spec.Config, &pc); err != nil {
		rt.log.Warn("registerProvider: the provider's configuration is invalid; ignored", "extension", ref.Path, "provider", ref.Spec.Name, "err", err)
		return models
	}
	pc.Name = ref.Spec.Name
	if len(pc.Models) > 0 {
		models = slices.DeleteFunc(models, func(m llm.Model) bool { return m.Provider == pc.Name })
	}
	var s map[string]llm.ProviderSettings
	var problems []string
	if ref.Spec.Streams {
		// The extension answers (its streamSimple): whatever API the
		// models name, the agent sends their requests to it.
		pc.API = llm.APIExtension
		if pc.BaseURL == "" {
			pc.BaseURL = "extension:" + pc.Name // (no endpoint: the extension has its own)
		}
		for i := range pc.Models {
			pc.Models[i].API = ""
		}
	}
	models, s, problems = (&llm.ModelsConfig{Providers: []llm.ProviderConfig{pc}}).Apply(models)
	for _, pr := range problems {
		rt.log.Warn("registerProvider: part of the provider is skipped", "extension", ref.Path, "problem", pr)
	}
	for name, ps := range s {
		if builtin[name] {
			ps.Custom = false
			s[name] = ps
		}
	}
	maps.Copy(settings, s)
	return models
}

// withVirtualModels adds the virtual models a registration lists (pi's
// registerVirtualModel): one of the same provider and id as another
// model hides it; under a provider nobody else has they need no key.
func (rt *Runtime) withVirtualModels(models []llm.Model, settings map[string]llm.ProviderSettings, builtin map[string]bool, ref extensions.ProviderRef) []llm.Model {
	if len(ref.Spec.VirtualModels) == 0 {
		return models
	}
	var vms []struct {
		ID             string   `json:"id"`
		Name           string   `json:"name"`
		ThinkingLevels []string `json:"thinkingLevels"`
		ContextWindow  int      `json:"contextWindow"`
		MaxTokens      int      `json:"maxTokens"`
		Input          []string `json:"input"`
	}
	if err := json.Unmarshal(ref.Spec.VirtualModels, &vms); err != nil {
		rt.log.Warn("registerVirtualModel: the definitions are invalid; ignored", "extension", ref.Path, "provider", ref.Spec.Name, "err", err)
		return models
	}
	name := ref.Spec.Name
	known := builtin[name] || slices.ContainsFunc(models, func(m llm.Model) bool { return m.Provider == name && m.API != llm.APIVirtual })
	for _, v := range vms {
		models = slices.DeleteFunc(models, func(m llm.Model) bool { return m.Provider == name && m.ID == v.ID })
		input := v.Input
		if len(input) == 0 {
			input = []string{"text", "image"}
		}
		reasoning := len(v.ThinkingLevels) > 1 || (len(v.ThinkingLevels) == 1 && v.ThinkingLevels[0] != llm.ThinkingOff)
		models = append(models, llm.Model{Provider: name, ID: v.ID, Name: v.Name, API: llm.APIVirtual,
			Reasoning: reasoning, Input: input, ContextWindow: v.ContextWindow, MaxTokens: v.MaxTokens})
	}
	if !known {
		// Always available: the models it routes to need the keys.
		settings[name] = llm.ProviderSettings{Name: name, Custom: true}
	}
	return models
}

// applyExtensionProviders rebuilds the catalogue when the providers the
// extensions register have changed (after loading, a reload, or a
// registration from a handler).
func (rt *Runtime) applyExtensionProviders() {
	p := rt.prov
	if p == nil || rt.ext.mgr == nil {
		return
	}
	refs := rt.ext.mgr.Providers()
	p.loadMu.Lock()
	same := reflect.DeepEqual(refs, p.extProvs) || (len(refs) == 0 && len(p.extProvs) == 0)
	p.extProvs = refs
	first := !p.extLoaded
	p.extLoaded = true
	held := p.held
	p.held = nil
	p.loadMu.Unlock()
	if !same {
		rt.reloadModels(true)
	} else if first {
		for _, pr := range held {
			rt.log.Warn("models.json entry skipped", "path", p.modelsPath, "problem", pr)
		}
	}
}

// requestHeaders resolves the configured headers of a model.
func (rt *Runtime) requestHeaders(m llm.Model, key string) map[string]string {
	if rt.prov == nil {
		return m.Headers
	}
	return rt.prov.auth.Headers(m, key)
}

// mergeHeaders is a copy of base with over's headers over it.
func mergeHeaders(base, over map[string]string) map[string]string {
	if len(base) == 0 {
		return over
	}
	out := maps.Clone(base)
	maps.Copy(out, over)
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
