package llm

import (
	"fmt"
	"sync"
)

// Catalog holds the known models, the Provider implementation of each API,
// and how to find credentials for a provider.
type Catalog struct {
	mu     sync.RWMutex
	models []Model
	apis   map[string]Provider
	// Credential returns the API key for a provider and whether the provider
	// is usable (a provider that needs no key reports "", true).
	Credential func(provider string) (string, bool)
	// Usable, when set, answers whether a provider can be called without
	// resolving its key (which may run a command); Available uses it.
	Usable func(provider string) bool
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{apis: map[string]Provider{}}
}

// RegisterAPI sets the implementation of an API name.
func (c *Catalog) RegisterAPI(api string, p Provider) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.apis[api] = p
}

// SetModels replaces the model list.
func (c *Catalog) SetModels(models []Model) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.models = append([]Model(nil), models...)
}

// AddModels upserts models by provider and id.
func (c *Catalog) AddModels(models ...Model) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range models {
		replaced := false
		for i := range c.models {
			if c.models[i].Provider == m.Provider && c.models[i].ID == m.ID {
				c.models[i] = m
				replaced = true
			}
		}
		if !replaced {
			c.models = append(c.models, m)
		}
	}
}

// Models returns every known model.
func (c *Catalog) Models() []Model {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return append([]Model(nil), c.models...)
}

// Available returns the models whose provider is usable and whose API is
// implemented.
func (c *Catalog) Available() []Model {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []Model
	for _, m := range c.models {
		if _, ok := c.apis[m.API]; !ok {
			continue
		}
		switch {
		case c.Usable != nil:
			if !c.Usable(m.Provider) {
				continue
			}
		case c.Credential != nil:
			if _, ok := c.Credential(m.Provider); !ok {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// Find returns the model with this provider and id.
func (c *Catalog) Find(provider, id string) (Model, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, m := range c.models {
		if m.Provider == provider && m.ID == id {
			return m, true
		}
	}
	return Model{}, false
}

// ProviderFor returns the implementation of the model's API.
func (c *Catalog) ProviderFor(m Model) (Provider, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, ok := c.apis[m.API]
	if !ok {
		return nil, fmt.Errorf("no provider implements API %q (model %s/%s)", m.API, m.Provider, m.ID)
	}
	return p, nil
}
