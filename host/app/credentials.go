package app

import (
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/auth"
	"github.com/atomic-go/atomic/host/llm/faux"
)

// Credentials is the providers' side of the agent outside a session, for
// `atomic auth`: the models and the credential resolver as a session
// loads them (the built-in models with models.json over them; extensions'
// providers are not loaded, as pi's auth commands do not load them).
type Credentials struct {
	Resolver *auth.Resolver
	Models   []llm.Model
}

// authFile is where stored credentials live; modelsFile the user's
// providers and models.
func authFile(agentDir string) string   { return filepath.Join(agentDir, "auth.json") }
func modelsFile(agentDir string) string { return filepath.Join(agentDir, "models.json") }

// LoadCredentials reads the agent directory's models.json and auth.json.
// models.json problems are logged, as at a session's start.
func LoadCredentials(agentDir string, log *slog.Logger) *Credentials {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := auth.NewResolver(authFile(agentDir), log)
	models := applyModelsFile(modelsFile(agentDir),
		append(llm.BuiltinModels(), faux.Models()...), map[string]llm.ProviderSettings{}, r, log, nil)
	return &Credentials{Resolver: r, Models: models}
}

// Providers lists the providers of the models, in catalogue order, the
// offline one left out.
func (c *Credentials) Providers() []string {
	var out []string
	for _, m := range c.Models {
		if m.Provider != faux.ProviderID && !slices.Contains(out, m.Provider) {
			out = append(out, m.Provider)
		}
	}
	return out
}
