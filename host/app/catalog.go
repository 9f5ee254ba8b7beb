package app

import (
	"os"
	"sync"
	"time"

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
	modelsPath string
	modelsMod  time.Time
	modelsSize int64
	modelsSeen bool

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
	models := llm.BuiltinModels()
	settings := map[string]llm.ProviderSettings{}
	cfg, err := llm.LoadModelsConfig(p.modelsPath)
	if err != nil {
		rt.log.Warn("models.json is invalid; using the built-in models only", "err", err)
	} else {
		var problems []string
		models, settings, problems = cfg.Apply(models)
		for _, pr := range problems {
			rt.log.Warn("models.json entry skipped", "path", p.modelsPath, "problem", pr)
		}
	}
	for name, s := range settings {
		// A server configured without a key (a local Ollama or
		// llama.cpp, say) needs none.
		p.auth.SetKeyless(name, s.Custom && s.APIKey == "")
	}
	p.auth.SetProviders(settings)
	models = append(models, faux.Models()...)
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

// requestHeaders resolves the configured headers of a model.
func (rt *Runtime) requestHeaders(m llm.Model, key string) map[string]string {
	if rt.prov == nil {
		return m.Headers
	}
	return rt.prov.auth.Headers(m, key)
}
