package llm

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"github.com/atomic-go/atomic/internal/fsutil"
	"os"
	"sort"
)

// Model defaults for models.json entries that leave a field out.
const (
	DefaultContextWindow = 128000
	DefaultMaxTokens     = 16384
)

// Known API names.
const (
	APIAnthropicMessages  = "anthropic-messages"
	APIOpenAICompletions  = "openai-completions"
	APIOpenAIResponses    = "openai-responses"
	APIGoogleGenerativeAI = "google-generative-ai"
	// APIVirtual is the API of the virtual models extensions register:
	// each request is routed to a physical model.
	APIVirtual = "atomic-virtual"
	// APIExtension is the API of the models of a provider whose answers
	// an extension streams itself (pi's streamSimple).
	APIExtension = "atomic-extension"
)

//go:embed catalogdata/models.json
var builtinModelsJSON []byte

// CostPatch is a partial price (models.json overrides may set only some).
type CostPatch struct {
	Input      *float64 `json:"input"`
	Output     *float64 `json:"output"`
	CacheRead  *float64 `json:"cacheRead"`
	CacheWrite *float64 `json:"cacheWrite"`
}

func (p *CostPatch) apply(c *ModelCost) {
	if p == nil {
		return
	}
	if p.Input != nil {
		c.Input = *p.Input
	}
	if p.Output != nil {
		c.Output = *p.Output
	}
	if p.CacheRead != nil {
		c.CacheRead = *p.CacheRead
	}
	if p.CacheWrite != nil {
		c.CacheWrite = *p.CacheWrite
	}
}

// ModelConfig is one model entry of models.json. Absent fields take the
// defaults (name = id, no reasoning, text input, 128000/16384 tokens, free).
type ModelConfig struct {
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	API            string            `json:"api"`
	BaseURL        string            `json:"baseUrl"`
	Reasoning      *bool             `json:"reasoning"`
	Input          []string          `json:"input"`
	ContextWindow  *int              `json:"contextWindow"`
	MaxTokens      *int              `json:"maxTokens"`
	Cost           *CostPatch        `json:"cost"`
	Headers        map[string]string `json:"headers"`
	Compat         map[string]any    `json:"compat"`
	ThinkingLevels []string          `json:"thinkingLevels"`
}

// ModelOverride patches a built-in model.
type ModelOverride struct {
	Name           *string           `json:"name"`
	Reasoning      *bool             `json:"reasoning"`
	Input          []string          `json:"input"`
	ContextWindow  *int              `json:"contextWindow"`
	MaxTokens      *int              `json:"maxTokens"`
	Cost           *CostPatch        `json:"cost"`
	Headers        map[string]string `json:"headers"`
	Compat         map[string]any    `json:"compat"`
	ThinkingLevels []string          `json:"thinkingLevels"`
}

// ProviderConfig is one provider of models.json.
type ProviderConfig struct {
	Name           string                   `json:"-"`
	BaseURL        string                   `json:"baseUrl"`
	API            string                   `json:"api"`
	APIKey         string                   `json:"apiKey"`
	Headers        map[string]string        `json:"headers"`
	AuthHeader     bool                     `json:"authHeader"`
	Compat         map[string]any           `json:"compat"`
	Models         []ModelConfig            `json:"models"`
	ModelOverrides map[string]ModelOverride `json:"modelOverrides"`
}

// ModelsConfig is a parsed models.json, providers in file order.
type ModelsConfig struct {
	Providers []ProviderConfig
}

// ParseModelsConfig reads the models.json format.
func ParseModelsConfig(data []byte) (*ModelsConfig, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return &ModelsConfig{}, nil
	}
	var top struct {
		Providers json.RawMessage `json:"providers"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	out := &ModelsConfig{}
	if len(top.Providers) == 0 || string(top.Providers) == "null" {
		return out, nil
	}
	names, err := objectKeys(top.Providers)
	if err != nil {
		return nil, fmt.Errorf("\"providers\" must be an object: %w", err)
	}
	var byName map[string]ProviderConfig
	if err := json.Unmarshal(top.Providers, &byName); err != nil {
		return nil, fmt.Errorf("invalid provider entry: %w", err)
	}
	for _, n := range names {
		p := byName[n]
		p.Name = n
		out.Providers = append(out.Providers, p)
	}
	return out, nil
}

// objectKeys returns the keys of a JSON object in document order.
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not an object")
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// LoadModelsConfig reads a models.json file. A missing file is an empty
// configuration.
func LoadModelsConfig(path string) (*ModelsConfig, error) {
	data, err := fsutil.ReadRegular(path, fsutil.MaxSettingsFile)
	if err != nil {
		if os.IsNotExist(err) {
			return &ModelsConfig{}, nil
		}
		return nil, err
	}
	cfg, err := ParseModelsConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// BuiltinModels returns the models the program knows without any
// configuration, default model of each provider first.
func BuiltinModels() []Model {
	cfg, err := ParseModelsConfig(builtinModelsJSON)
	if err != nil {
		panic("built-in model catalog is invalid: " + err.Error())
	}
	models, _, problems := cfg.Apply(nil)
	if len(problems) > 0 {
		panic(fmt.Sprintf("built-in model catalog is invalid: %v", problems))
	}
	return models
}

// ProviderSettings is what a request to a configured provider needs beyond
// the model: the raw (unresolved) API key and headers of models.json.
type ProviderSettings struct {
	Name       string
	APIKey     string            // literal, $VAR, ${VAR} or !command; "" when none
	Headers    map[string]string // raw values, resolved per request
	AuthHeader bool              // send "Authorization: Bearer <key>"
	Custom     bool              // not a provider of base
}

// Apply layers the configuration over base models: a provider already in
// base keeps its models unless the configuration lists models (upserted by
// id); baseUrl, headers and compat given at provider level apply to all its
// models; modelOverrides patch existing models. A new provider needs an api
// and a baseUrl (at provider or model level) and at least one model. The
// returned problems describe entries that were skipped.
func (c *ModelsConfig) Apply(base []Model) ([]Model, map[string]ProviderSettings, []string) {
	models := append([]Model(nil), base...)
	settings := map[string]ProviderSettings{}
	var problems []string
	known := map[string]bool{}
	for _, m := range base {
		known[m.Provider] = true
	}
	for _, p := range c.Providers {
		if p.Name == "" {
			problems = append(problems, "a provider has an empty name")
			continue
		}
		existing := known[p.Name]
		if !existing && len(p.Models) == 0 {
			problems = append(problems, fmt.Sprintf("provider %q has no models", p.Name))
			continue
		}
		settings[p.Name] = ProviderSettings{
			Name: p.Name, APIKey: p.APIKey, Headers: p.Headers, AuthHeader: p.AuthHeader, Custom: !existing,
		}
		// Provider-level changes to existing models.
		for i := range models {
			m := &models[i]
			if m.Provider != p.Name {
				continue
			}
			if p.BaseURL != "" {
				m.BaseURL = p.BaseURL
			}
			if p.API != "" {
				m.API = p.API
			}
			m.Headers = mergeStrings(m.Headers, p.Headers)
			m.Compat = mergeAny(m.Compat, p.Compat)
			if ov, ok := p.ModelOverrides[m.ID]; ok {
				ov.apply(m)
			}
		}
		for _, mc := range p.Models {
			m, err := p.buildModel(mc)
			if err != nil {
				problems = append(problems, fmt.Sprintf("provider %q: %v", p.Name, err))
				continue
			}
			replaced := false
			for i := range models {
				if models[i].Provider == m.Provider && models[i].ID == m.ID {
					models[i] = m
					replaced = true
					break
				}
			}
			if !replaced {
				models = append(models, m)
			}
		}
		for id := range p.ModelOverrides {
			found := false
			for _, m := range models {
				if m.Provider == p.Name && m.ID == id {
					found = true
					break
				}
			}
			if !found {
				problems = append(problems, fmt.Sprintf("provider %q: modelOverrides names unknown model %q (ignored)", p.Name, id))
			}
		}
	}
	sort.Strings(problems)
	return models, settings, problems
}

func (p *ProviderConfig) buildModel(mc ModelConfig) (Model, error) {
	if mc.ID == "" {
		return Model{}, fmt.Errorf("a model has no id")
	}
	m := Model{
		ID: mc.ID, Name: mc.Name, API: mc.API, Provider: p.Name, BaseURL: mc.BaseURL,
		Input: mc.Input, ContextWindow: DefaultContextWindow, MaxTokens: DefaultMaxTokens,
		ThinkingLevels: mc.ThinkingLevels,
	}
	if m.Name == "" {
		m.Name = m.ID
	}
	if m.API == "" {
		m.API = p.API
	}
	if m.BaseURL == "" {
		m.BaseURL = p.BaseURL
	}
	if m.API == "" {
		return Model{}, fmt.Errorf("model %q has no api", mc.ID)
	}
	if m.BaseURL == "" {
		return Model{}, fmt.Errorf("model %q has no baseUrl", mc.ID)
	}
	if len(m.Input) == 0 {
		m.Input = []string{"text"}
	}
	if mc.Reasoning != nil {
		m.Reasoning = *mc.Reasoning
	}
	if mc.ContextWindow != nil && *mc.ContextWindow > 0 {
		m.ContextWindow = *mc.ContextWindow
	}
	if mc.MaxTokens != nil && *mc.MaxTokens > 0 {
		m.MaxTokens = *mc.MaxTokens
	}
	mc.Cost.apply(&m.Cost)
	m.Headers = mergeStrings(mergeStrings(nil, p.Headers), mc.Headers)
	m.Compat = mergeAny(mergeAny(nil, p.Compat), mc.Compat)
	return m, nil
}

func (ov ModelOverride) apply(m *Model) {
	if ov.Name != nil {
		m.Name = *ov.Name
	}
	if ov.Reasoning != nil {
		m.Reasoning = *ov.Reasoning
	}
	if len(ov.Input) > 0 {
		m.Input = ov.Input
	}
	if ov.ContextWindow != nil && *ov.ContextWindow > 0 {
		m.ContextWindow = *ov.ContextWindow
	}
	if ov.MaxTokens != nil && *ov.MaxTokens > 0 {
		m.MaxTokens = *ov.MaxTokens
	}
	ov.Cost.apply(&m.Cost)
	m.Headers = mergeStrings(m.Headers, ov.Headers)
	m.Compat = mergeAny(m.Compat, ov.Compat)
	if ov.ThinkingLevels != nil {
		m.ThinkingLevels = ov.ThinkingLevels
	}
}

func mergeStrings(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	out := make(map[string]string, len(dst)+len(src))
	for k, v := range dst {
		out[k] = v
	}
	for k, v := range src {
		out[k] = v
	}
	return out
}

func mergeAny(dst, src map[string]any) map[string]any {
	if len(src) == 0 {
		return dst
	}
	out := make(map[string]any, len(dst)+len(src))
	for k, v := range dst {
		out[k] = v
	}
	for k, v := range src {
		out[k] = v
	}
	return out
}

// CompatString returns a string compat option of the model ("" when unset).
func (m *Model) CompatString(key string) string {
	s, _ := m.Compat[key].(string)
	return s
}

// CompatBool returns a boolean compat option, or def when unset.
func (m *Model) CompatBool(key string, def bool) bool {
	if b, ok := m.Compat[key].(bool); ok {
		return b
	}
	return def
}
