// Package mcp connects Model Context Protocol servers (stdio and
// streamable HTTP, on the official Go SDK) and offers their tools and
// resources to the agent: the mcp.json configuration (user file, and the
// project's file in a trusted project), a connection manager (background
// connect, states, reconnect on the next call, process-group stop of stdio
// servers), the tool adapter (mcp__<server>__<tool>), deferred exposure
// through the mcp_tool_search tool, and the resource tools.
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/internal/fsutil"
)

// A server's exposure is one of tools' Exposure values: direct declares
// each tool to the model, deferred keeps them out of the requests until
// mcp_tool_search loads them, hidden registers nothing.

// DefaultExposure is the exposure of a server that names none: deferred,
// so that a server with hundreds of tools costs one tool declaration.
const DefaultExposure = tools.ExposureDeferred

// Scopes of a server definition.
const (
	ScopeUser      = "user"
	ScopeProject   = "project"
	ScopeExtension = "extension"
)

// FileName is the name of the configuration file in the agent directory
// and in the project's .atomic directory.
const FileName = config.MCPFileName

// ServerConfig is one entry of "mcpServers", in the shape other MCP
// clients (pi, Claude Code, Cursor) write.
type ServerConfig struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// InheritEnv passes the agent's whole environment to a stdio server
	// (provider API keys included); without it the server gets
	// MinimalEnv and Env only.
	InheritEnv bool              `json:"inheritEnv,omitempty"`
	Cwd        string            `json:"cwd,omitempty"`
	URL        string            `json:"url,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	// Timeout is the per-request timeout in seconds (0: 60).
	Timeout     float64 `json:"timeout,omitempty"`
	Enabled     *bool   `json:"enabled,omitempty"`
	Description string  `json:"description,omitempty"`
	Exposure    string  `json:"exposure,omitempty"`
	// ToolExposure overrides the exposure of single tools, in the order
	// the file lists them (exact names win over patterns; among
	// patterns the first match wins).
	ToolExposure []ToolExposure `json:"-"`
}

// ToolExposure is one toolExposure entry: a tool name or a pattern where
// "*" matches any characters.
type ToolExposure struct {
	Pattern  string
	Exposure string
}

// IsEnabled reports whether the server should be connected.
func (c *ServerConfig) IsEnabled() bool { return c.Enabled == nil || *c.Enabled }

// IsHTTP reports whether the server is reached over streamable HTTP.
func (c *ServerConfig) IsHTTP() bool { return c.URL != "" }

// Transport names the transport: "stdio" or "http".
func (c *ServerConfig) Transport() string {
	if c.IsHTTP() {
		return "http"
	}
	return "stdio"
}

// ToolExposureOf returns the exposure of one of the server's tools.
func (c *ServerConfig) ToolExposureOf(tool string) string {
	for _, e := range c.ToolExposure {
		if e.Pattern == tool {
			return e.Exposure
		}
	}
	for _, e := range c.ToolExposure {
		if strings.Contains(e.Pattern, "*") && tools.MatchToolPattern(e.Pattern, tool) {
			return e.Exposure
		}
	}
	if c.Exposure == "" {
		return DefaultExposure
	}
	return c.Exposure
}

// Reaches reports which exposures the server's tools can have: whether
// any tool is direct, and whether any is deferred.
func (c *ServerConfig) Reaches() (direct, deferred bool) {
	exp := c.Exposure
	if exp == "" {
		exp = DefaultExposure
	}
	direct, deferred = exp == tools.ExposureDirect, exp == tools.ExposureDeferred
	for _, e := range c.ToolExposure {
		direct = direct || e.Exposure == tools.ExposureDirect
		deferred = deferred || e.Exposure == tools.ExposureDeferred
	}
	return direct, deferred
}

// TimeoutSeconds is the per-request timeout.
func (c *ServerConfig) TimeoutSeconds() float64 {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return 60
}

// Server is a named server and where it was defined.
type Server struct {
	Name   string
	Config ServerConfig
	// Source is the file that defines the server, or "extension:<path>"
	// for one an extension registered.
	Source string
	Scope  string
	// Override is the project file that changed enabled/exposure of a
	// user server, if any.
	Override string
}

// Loaded is the configuration read from the files.
type Loaded struct {
	Servers []Server
	// Errors are the invalid files and entries (skipped), each naming its
	// file.
	Errors []string
	// UserFile is always set; ProjectFile only for a trusted project.
	UserFile, ProjectFile string
}

// Find returns the server with this name.
func (l *Loaded) Find(name string) (Server, bool) {
	for _, s := range l.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return Server{}, false
}

// UserFile is the user's mcp.json in the agent directory.
func UserFile(agentDir string) string { return filepath.Join(agentDir, FileName) }

// ProjectFile is the project's mcp.json.
func ProjectFile(cwd string) string { return config.ProjectMCPFile(cwd) }

// Load reads the user file and, when the project is trusted, the
// project's. A project entry replaces the user entry of the same name; a
// project entry with only enabled, exposure and toolExposure changes
// those fields of the user entry and keeps the rest (credentials the
// project could not set itself).
func Load(agentDir, cwd string, projectTrusted bool) Loaded {
	l := Loaded{UserFile: UserFile(agentDir)}
	readFile(&l, l.UserFile, ScopeUser)
	if projectTrusted {
		l.ProjectFile = ProjectFile(cwd)
		readFile(&l, l.ProjectFile, ScopeProject)
	}
	return l
}

// ProjectFileSkipped reports whether an untrusted project has a mcp.json
// that Load did not read.
func ProjectFileSkipped(cwd string, projectTrusted bool) bool {
	if projectTrusted {
		return false
	}
	_, err := os.Stat(ProjectFile(cwd))
	return err == nil
}

var overrideKeys = map[string]bool{"enabled": true, "exposure": true, "toolExposure": true}

func readFile(l *Loaded, path, scope string) {
	data, err := fsutil.ReadRegular(path, fsutil.MaxSettingsFile)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		l.Errors = append(l.Errors, fmt.Sprintf("%s: %v", path, err))
		return
	}
	entries, err := parseFile(data)
	if err != nil {
		l.Errors = append(l.Errors, fmt.Sprintf("%s: %v", path, err))
		return
	}
	for _, e := range entries {
		if scope == ScopeProject && isOverride(e.fields) {
			i := indexOf(l.Servers, e.name)
			var extra []string
			for k := range e.fields {
				if !overrideKeys[k] {
					extra = append(extra, k)
				}
			}
			switch {
			case i < 0:
				l.Errors = append(l.Errors, fmt.Sprintf("%s: server %q needs \"command\" or \"url\", or a user server to override", path, e.name))
			case len(extra) > 0:
				l.Errors = append(l.Errors, fmt.Sprintf("%s: server %q: an override can only set enabled, exposure, toolExposure", path, e.name))
			default:
				base := l.Servers[i]
				cfg, err := applyOverride(base.Config, e.fields)
				if err != nil {
					l.Errors = append(l.Errors, fmt.Sprintf("%s: server %q: %v", path, e.name, err))
					continue
				}
				base.Config, base.Override = cfg, path
				l.Servers[i] = base
			}
			continue
		}
		cfg, err := Validate(e.name, e.raw)
		if err != nil {
			l.Errors = append(l.Errors, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		if clash := namespaceClash(l.Servers, e.name); clash != "" {
			l.Errors = append(l.Errors, fmt.Sprintf("%s: server %q conflicts with %q", path, e.name, clash))
			continue
		}
		s := Server{Name: e.name, Config: cfg, Source: path, Scope: scope}
		if i := indexOf(l.Servers, e.name); i >= 0 {
			l.Servers[i] = s
		} else {
			l.Servers = append(l.Servers, s)
		}
	}
}

func indexOf(servers []Server, name string) int {
	for i, s := range servers {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// namespaceClash returns another server whose name differs from name only
// in "-" and "_" (their tools would share names).
func namespaceClash(servers []Server, name string) string {
	ns := strings.ReplaceAll(name, "-", "_")
	for _, s := range servers {
		if s.Name != name && strings.ReplaceAll(s.Name, "-", "_") == ns {
			return s.Name
		}
	}
	return ""
}

type fileEntry struct {
	name   string
	raw    json.RawMessage
	fields map[string]json.RawMessage
}

// parseFile reads {"mcpServers": {...}} keeping the order of the servers.
func parseFile(data []byte) ([]fileEntry, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		if err == nil {
			err = errors.New("not an object")
		}
		return nil, fmt.Errorf("expected an object with an \"mcpServers\" object: %v", err)
	}
	raw, ok := top["mcpServers"]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	keys, values, err := orderedObject(raw)
	if err != nil {
		return nil, fmt.Errorf("\"mcpServers\" must be an object: %v", err)
	}
	out := make([]fileEntry, 0, len(keys))
	for i, k := range keys {
		e := fileEntry{name: k, raw: values[i]}
		_ = json.Unmarshal(values[i], &e.fields) // non-objects are reported by Validate
		out = append(out, e)
	}
	return out, nil
}

// orderedObject splits a JSON object into its keys and raw values, in
// order.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New("not an object")
	}
	var keys []string
	var values []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, tok.(string))
		values = append(values, v)
	}
	return keys, values, nil
}

func isOverride(fields map[string]json.RawMessage) bool {
	if fields == nil {
		return false
	}
	_, c := fields["command"]
	_, u := fields["url"]
	_, t := fields["type"]
	return !c && !u && !t
}

var serverName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// Validate checks one "mcpServers" entry (configuration files and
// extensions are a trust boundary) and returns it typed.
func Validate(name string, raw json.RawMessage) (ServerConfig, error) {
	var cfg ServerConfig
	if !serverName().MatchString(name) {
		return cfg, fmt.Errorf("invalid server name %q (use letters, digits, \"_\" and \"-\")", name)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return cfg, fmt.Errorf("server %q must be an object", name)
	}
	fail := func(msg string, args ...any) (ServerConfig, error) {
		return ServerConfig{}, fmt.Errorf("server %q: %s", name, fmt.Sprintf(msg, args...))
	}
	get := func(key string, dst any, what string) error {
		v, ok := fields[key]
		if !ok || string(v) == "null" {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return fmt.Errorf("%s must be %s", key, what)
		}
		return nil
	}
	for _, f := range []struct {
		key, what string
		dst       any
	}{
		{"type", "a string", &cfg.Type}, {"command", "a string", &cfg.Command}, {"args", "an array of strings", &cfg.Args},
		{"env", "an object mapping names to strings", &cfg.Env}, {"cwd", "a string", &cfg.Cwd},
		{"inheritEnv", "a boolean", &cfg.InheritEnv},
		{"url", "a string", &cfg.URL}, {"headers", "an object mapping names to strings", &cfg.Headers},
		{"timeout", "a positive number of seconds", &cfg.Timeout}, {"enabled", "a boolean", &cfg.Enabled},
		{"description", "a string", &cfg.Description}, {"exposure", "a string", &cfg.Exposure},
	} {
		if err := get(f.key, f.dst, f.what); err != nil {
			return fail("%v", err)
		}
	}
	if cfg.Timeout < 0 || (fields["timeout"] != nil && string(fields["timeout"]) != "null" && cfg.Timeout == 0) {
		return fail("timeout must be a positive number of seconds")
	}
	switch cfg.Type {
	case "sse":
		return fail("the legacy SSE transport is not supported; use the server's streamable HTTP URL (often /mcp instead of /sse)")
	case "", "stdio", "http", "streamable-http":
	default:
		return fail("type must be \"stdio\", \"http\" or \"streamable-http\"")
	}
	switch {
	case cfg.URL != "" && cfg.Type != "stdio":
		u, err := url.Parse(cfg.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail("url must be an http or https URL")
		}
		cfg.Command, cfg.Args, cfg.Env, cfg.Cwd, cfg.InheritEnv = "", nil, nil, "", false
	case cfg.Command != "" && (cfg.Type == "" || cfg.Type == "stdio"):
		cfg.URL, cfg.Headers = "", nil
	default:
		return fail("needs either \"command\" (stdio) or \"url\" (streamable HTTP)")
	}
	exp, err := checkExposure(cfg.Exposure)
	if err != nil {
		return fail("exposure %v", err)
	}
	cfg.Exposure = exp
	if te, ok := fields["toolExposure"]; ok && string(te) != "null" {
		list, err := parseToolExposure(te)
		if err != nil {
			return fail("%v", err)
		}
		cfg.ToolExposure = list
	}
	return cfg, nil
}

func parseToolExposure(raw json.RawMessage) ([]ToolExposure, error) {
	keys, values, err := orderedObject(raw)
	if err != nil {
		return nil, errors.New("toolExposure must map tool names to exposures")
	}
	out := make([]ToolExposure, 0, len(keys))
	for i, k := range keys {
		var s string
		if json.Unmarshal(values[i], &s) != nil {
			return nil, fmt.Errorf("toolExposure %q must be a string", k)
		}
		exp, err := checkExposure(s)
		if err != nil || exp == "" {
			return nil, fmt.Errorf("toolExposure %q must be one of \"direct\", \"deferred\", \"hidden\"", k)
		}
		out = append(out, ToolExposure{Pattern: k, Exposure: exp})
	}
	return out, nil
}

// checkExposure validates an exposure. pi's "codemode" (and its alias
// "codemode-deferred") reach tools indirectly; here the indirect way is
// mcp_tool_search, so they mean deferred.
func checkExposure(s string) (string, error) {
	switch s {
	case "", tools.ExposureDirect, tools.ExposureDeferred, tools.ExposureHidden:
		return s, nil
	case "codemode", "codemode-deferred":
		return tools.ExposureDeferred, nil
	}
	return "", fmt.Errorf("must be one of \"direct\", \"deferred\", \"hidden\" (got %q)", s)
}

func applyOverride(base ServerConfig, fields map[string]json.RawMessage) (ServerConfig, error) {
	if v, ok := fields["enabled"]; ok {
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return base, errors.New("enabled must be a boolean")
		}
		base.Enabled = &b
	}
	if v, ok := fields["exposure"]; ok {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return base, errors.New("exposure must be a string")
		}
		exp, err := checkExposure(s)
		if err != nil {
			return base, fmt.Errorf("exposure %w", err)
		}
		base.Exposure = exp
	}
	if v, ok := fields["toolExposure"]; ok {
		list, err := parseToolExposure(v)
		if err != nil {
			return base, err
		}
		base.ToolExposure = list
	}
	return base, nil
}

// SortedNames returns the names of servers, sorted.
func SortedNames(servers []Server) []string {
	out := make([]string, len(servers))
	for i, s := range servers {
		out[i] = s.Name
	}
	sort.Strings(out)
	return out
}
