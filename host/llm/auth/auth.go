// Package auth finds the credentials of LLM providers: keys stored in
// <agentDir>/auth.json, environment variables, and the apiKey entries of
// models.json (literal, $VAR, ${VAR} or !command). It never logs or returns
// a key in an error.
package auth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/fsutil"
	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// EnvVars lists, per provider, the environment variables that may hold its
// API key, in order of precedence.
var EnvVars = map[string][]string{
	"anthropic":  {"ANTHROPIC_API_KEY"},
	"openai":     {"OPENAI_API_KEY"},
	"google":     {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
	"groq":       {"GROQ_API_KEY"},
	"xai":        {"XAI_API_KEY"},
	"openrouter": {"OPENROUTER_API_KEY"},
	"mistral":    {"MISTRAL_API_KEY"},
	"deepseek":   {"DEEPSEEK_API_KEY"},
	"cerebras":   {"CEREBRAS_API_KEY"},
	"zai":        {"ZAI_API_KEY"},
	"fireworks":  {"FIREWORKS_API_KEY"},
	"together":   {"TOGETHER_API_KEY"},
}

// Sources of a credential (the logout_provider authStatus.source values).
const (
	SourceStored        = "stored"
	SourceEnvironment   = "environment"
	SourceModelsKey     = "models_json_key"
	SourceModelsCommand = "models_json_command"
	SourceRuntime       = "runtime" // --api-key
)

// Status describes how a provider is authenticated.
type Status = rpcwire.AuthStatus

// Resolver answers which key a provider uses. It is safe for concurrent
// use.
type Resolver struct {
	AuthFile string
	Log      *slog.Logger
	Values   *Values

	mu        sync.Mutex
	providers map[string]llm.ProviderSettings
	keyless   map[string]bool
	override  map[string]string // SetOverride's keys
	stored    map[string]json.RawMessage
	storedMod time.Time
	storedLen int64
	warned    map[string]bool
}

// NewResolver returns a resolver reading authFile.
func NewResolver(authFile string, log *slog.Logger) *Resolver {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Resolver{AuthFile: authFile, Log: log, Values: &Values{}, keyless: map[string]bool{}, warned: map[string]bool{}}
}

// SetProviders sets the models.json provider settings.
func (r *Resolver) SetProviders(p map[string]llm.ProviderSettings) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.providers = p
}

// SetOverride gives a provider a key for this process only (pi's
// --api-key): it comes before every other source and is never stored.
func (r *Resolver) SetOverride(provider, key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.override == nil {
		r.override = map[string]string{}
	}
	r.override[provider] = key
}

// SetKeyless marks a provider that works without a key (the offline faux
// provider, local servers configured without apiKey).
func (r *Resolver) SetKeyless(provider string, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		r.keyless[provider] = true
	} else {
		delete(r.keyless, provider)
	}
}

func (r *Resolver) getenv(name string) string { return r.Values.getenv(name) }

// storedEntries reads auth.json, re-reading it only when it changed.
func (r *Resolver) storedEntries() map[string]json.RawMessage {
	fi, err := os.Stat(r.AuthFile)
	if err != nil {
		r.stored = nil
		r.storedMod = time.Time{}
		return nil
	}
	if r.stored != nil && fi.ModTime().Equal(r.storedMod) && fi.Size() == r.storedLen {
		return r.stored
	}
	if fi.Mode().Perm()&0o077 != 0 && !r.warned["mode"] {
		r.warned["mode"] = true
		r.Log.Warn("auth.json is readable by other users; run chmod 600 on it", "path", r.AuthFile)
	}
	data, err := fsutil.ReadRegular(r.AuthFile, fsutil.MaxSettingsFile)
	if err != nil {
		if !r.warned["read"] { // once, not at every credential lookup
			r.warned["read"] = true
			r.Log.Warn("cannot read auth.json", "path", r.AuthFile, "err", err)
		}
		return nil
	}
	m := map[string]json.RawMessage{}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &m); err != nil {
			r.Log.Warn("auth.json is not a JSON object; ignoring it", "path", r.AuthFile)
			return nil
		}
	}
	r.stored, r.storedMod, r.storedLen = m, fi.ModTime(), fi.Size()
	return m
}

// storedKey returns the raw key stored for provider, "" when none usable.
func (r *Resolver) storedKey(provider string) string {
	raw, ok := r.storedEntries()[provider]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var e struct {
		Type   string `json:"type"`
		Key    string `json:"key"`
		APIKey string `json:"apiKey"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return ""
	}
	if e.Type == "oauth" {
		if !r.warned["oauth:"+provider] {
			r.warned["oauth:"+provider] = true
			r.Log.Warn("auth.json holds an OAuth login for this provider, which this program cannot use; add an API key instead", "provider", provider)
		}
		return ""
	}
	if e.Key != "" {
		return e.Key
	}
	return e.APIKey
}

// lookup finds the raw credential of a provider and where it came from,
// in pi 1.6's order: the key for this run (--api-key), auth.json, the
// provider's apiKey in models.json, then its environment variables.
func (r *Resolver) lookup(provider string) (raw string, st Status) {
	if k, ok := r.override[provider]; ok {
		return k, Status{Configured: true, Source: SourceRuntime}
	}
	if k := r.storedKey(provider); k != "" {
		return k, Status{Configured: true, Source: SourceStored}
	}
	if ps, ok := r.providers[provider]; ok && ps.APIKey != "" {
		kind, name := r.Values.KindOf(ps.APIKey)
		switch kind {
		case KindCommand:
			return ps.APIKey, Status{Configured: true, Source: SourceModelsCommand}
		case KindEnv:
			if r.providerEnv(provider, name) != "" {
				return ps.APIKey, Status{Configured: true, Source: SourceModelsKey, Label: name}
			}
			// Unset: the provider's own variables may still have a key.
		default:
			return ps.APIKey, Status{Configured: true, Source: SourceModelsKey}
		}
	}
	for _, name := range EnvVars[provider] {
		if v := r.providerEnv(provider, name); v != "" {
			return "$" + name, Status{Configured: true, Source: SourceEnvironment, Label: name}
		}
	}
	return "", Status{}
}

// providerEnv reads an environment variable for a provider: the "env"
// object of its stored credential first (as pi's), then the process's.
func (r *Resolver) providerEnv(provider, name string) string {
	if v, ok := r.storedEnv(provider)[name]; ok && v != "" {
		return v
	}
	return r.getenv(name)
}

// storedEnv is the "env" object of the provider's auth.json entry.
func (r *Resolver) storedEnv(provider string) map[string]string {
	raw, ok := r.storedEntries()[provider]
	if !ok {
		return nil
	}
	var e struct {
		Env map[string]string `json:"env"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return nil
	}
	return e.Env
}

// resolve turns a raw credential into the value: a $VAR through the
// provider's environment (providerEnv), the rest through Values.
func (r *Resolver) resolve(provider, raw string) (string, error) {
	if kind, name := r.Values.KindOf(raw); kind == KindEnv {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.providerEnv(provider, name), nil
	}
	return r.Values.Resolve(raw)
}

// Status reports how a provider is authenticated.
func (r *Resolver) Status(provider string) Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, st := r.lookup(provider)
	return st
}

// Usable reports whether the provider can be called: it has a credential
// or needs none. Commands are not run.
func (r *Resolver) Usable(provider string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keyless[provider] {
		return true
	}
	_, st := r.lookup(provider)
	return st.Configured
}

// APIKey returns the key of a provider and whether the provider is usable.
// A keyless provider returns "", true. A "!command" runs at most once per
// process.
func (r *Resolver) APIKey(provider string) (string, bool) {
	r.mu.Lock()
	if k, ok := r.override[provider]; ok {
		r.mu.Unlock()
		return k, true // literal: no $VAR or !command
	}
	raw, st := r.lookup(provider)
	keyless := r.keyless[provider]
	r.mu.Unlock()
	if !st.Configured {
		return "", keyless
	}
	key, err := r.resolve(provider, raw)
	if err != nil {
		r.Log.Warn("cannot resolve the API key", "provider", provider, "source", st.Source, "err", err)
		return "", keyless
	}
	if key == "" {
		return "", keyless
	}
	return key, true
}

// Headers returns the request headers of a model with their values
// resolved; with authHeader set in models.json, an Authorization header
// carrying key is added.
func (r *Resolver) Headers(m llm.Model, key string) map[string]string {
	r.mu.Lock()
	ps := r.providers[m.Provider]
	r.mu.Unlock()
	if len(m.Headers) == 0 && !ps.AuthHeader {
		return nil
	}
	out := make(map[string]string, len(m.Headers)+1)
	names := make([]string, 0, len(m.Headers))
	for k := range m.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v, err := r.resolve(m.Provider, m.Headers[k])
		if err != nil {
			r.Log.Warn("cannot resolve a header value; leaving the header out", "provider", m.Provider, "header", k, "err", err)
			continue
		}
		out[k] = v
	}
	if ps.AuthHeader && key != "" {
		out["Authorization"] = "Bearer " + key
	}
	return out
}

// Secrets returns every resolved secret value currently known for a model
// (its key and header values), for redaction.
func (r *Resolver) Secrets(m llm.Model, key string) []string {
	out := []string{key}
	for _, v := range r.Headers(m, key) {
		out = append(out, v)
	}
	return out
}

// Logout removes the provider's entry from auth.json. It reports whether
// there was one.
func (r *Resolver) Logout(provider string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := os.Stat(r.AuthFile); os.IsNotExist(err) {
		return false, nil
	}
	removed := false
	err := config.Update(r.AuthFile, func(m map[string]any) {
		if _, ok := m[provider]; ok {
			delete(m, provider)
			removed = true
		}
	})
	if err != nil {
		return false, fmt.Errorf("cannot update auth.json: %w", err)
	}
	r.stored = nil
	return removed, nil
}

// HasStored reports whether auth.json has an entry for provider (of any
// kind, an OAuth login included).
func (r *Resolver) HasStored(provider string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.storedEntries()[provider]
	return ok
}

// Store saves an API key for provider in auth.json (mode 0600).
func (r *Resolver) Store(provider, key string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := config.Update(r.AuthFile, func(m map[string]any) {
		m[provider] = map[string]any{"type": "api_key", "key": key}
	})
	if err != nil {
		return fmt.Errorf("cannot update auth.json: %w", err)
	}
	r.stored = nil
	return nil
}
