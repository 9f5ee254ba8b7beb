// Package config loads the layered settings: built-in defaults, then the
// user's ~/.atomic/agent/settings.json, then the project's
// ./.atomic/settings.json, then environment variables, then command-line
// flags. It is the only user of viper. Writes go through Update, which edits
// the JSON file in place and keeps every key the program does not know.
package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/atomic-go/atomic/internal/fsutil"

	"github.com/spf13/viper"
)

// RetrySettings configures automatic retry of transient provider errors.
type RetrySettings struct {
	Enabled     bool `mapstructure:"enabled"`
	MaxRetries  int  `mapstructure:"maxRetries"`
	BaseDelayMs int  `mapstructure:"baseDelayMs"`
	MaxDelayMs  int  `mapstructure:"maxDelayMs"`
}

// CompactionSettings configures context compaction.
type CompactionSettings struct {
	Enabled          bool    `mapstructure:"enabled"`
	ReserveTokens    int     `mapstructure:"reserveTokens"`
	CompressionRatio float64 `mapstructure:"compression_ratio"`
	PreserveRecent   int     `mapstructure:"preserve_recent"`
	Query            string  `mapstructure:"query"`
}

// ImageSettings are pi 1.6's image settings atomic acts on.
type ImageSettings struct {
	// BlockImages keeps images from reaching models: each image of a
	// user or tool result message is sent as a line of text saying so.
	BlockImages bool `mapstructure:"blockImages"`
}

// TimeoutSettings are deadlines in milliseconds (0: none).
type TimeoutSettings struct {
	// Tool bounds one call of a tool the agent does not implement itself
	// (a Go plugin's, a script extension's, an MCP server's tool); the
	// call ends with an error result the model sees. Default 10 minutes.
	Tool int `mapstructure:"tool"`
}

// ToolTimeout returns Tool as a duration (0: none).
func (t TimeoutSettings) ToolTimeout() time.Duration {
	if t.Tool <= 0 {
		return 0
	}
	return time.Duration(t.Tool) * time.Millisecond
}

// Settings is the effective configuration.
type Settings struct {
	DefaultProvider      string             `mapstructure:"defaultProvider"`
	DefaultModel         string             `mapstructure:"defaultModel"`
	DefaultThinkingLevel string             `mapstructure:"defaultThinkingLevel"`
	ThinkingBudgets      map[string]int     `mapstructure:"thinkingBudgets"`
	SteeringMode         string             `mapstructure:"steeringMode"`
	FollowUpMode         string             `mapstructure:"followUpMode"`
	Retry                RetrySettings      `mapstructure:"retry"`
	Compaction           CompactionSettings `mapstructure:"compaction"`
	ShellPath            string             `mapstructure:"shellPath"`
	ShellCommandPrefix   string             `mapstructure:"shellCommandPrefix"`
	SessionDir           string             `mapstructure:"sessionDir"`
	// DefaultTools is the layered defaultTools list (nil: not set; see
	// ResolveToolList).
	DefaultTools []string `mapstructure:"defaultTools"`
	// Extensions entries are paths or objects {path, timeouts, ...};
	// host/extensions reads them from the files themselves (it needs to
	// know which file each came from).
	Extensions          []any           `mapstructure:"extensions"`
	Skills              []string        `mapstructure:"skills"`
	Prompts             []string        `mapstructure:"prompts"`
	EnableSkillCommands bool            `mapstructure:"enableSkillCommands"`
	EnabledModels       []string        `mapstructure:"enabledModels"`
	DefaultProjectTrust string          `mapstructure:"defaultProjectTrust"`
	Timeouts            TimeoutSettings `mapstructure:"timeouts"`
	Images              ImageSettings   `mapstructure:"images"`
	// HTTPProxy is pi 1.6's httpProxy: the proxy of provider and other
	// HTTP requests where HTTP_PROXY and HTTPS_PROXY are not set
	// (internal/netproxy). Read from the agent directory's settings
	// only: a project must not route requests (and the keys they carry)
	// through a proxy of its choice.
	HTTPProxy string `mapstructure:"-"`
	// HTTPIdleTimeoutMs is pi 1.6's httpIdleTimeoutMs: how long a provider
	// request waits for its headers and then between two reads of its body
	// (a number of milliseconds, 0 or "disabled" for no bound; unset: 5
	// minutes). Read it with IdleTimeout.
	HTTPIdleTimeoutMs any `mapstructure:"httpIdleTimeoutMs"`
	// ExtensionRuntime chooses the runtime of script extensions: "auto"
	// (goja when it provides everything the extension imports, else
	// Node), "goja" or "node". An extension's settings entry may choose
	// for itself ("runtime").
	ExtensionRuntime string `mapstructure:"extensionRuntime"`
	// NpmCommand is the argv npm operations run (packages); empty: npm.
	NpmCommand []string `mapstructure:"npmCommand"`
	// MaxTurnRequests bounds the model requests of one run between two
	// user inputs (0: no limit); see agent.Config.MaxTurnRequests.
	MaxTurnRequests int `mapstructure:"maxTurnRequests"`
	// ACP holds the settings of --mode acp.
	ACP ACPSettings `mapstructure:"acp"`
	// HideThinkingBlock and Theme are the terminal UI's (docs/tui.md).
	HideThinkingBlock bool   `mapstructure:"hideThinkingBlock"`
	Theme             string `mapstructure:"theme"`
}

// ACPSettings are the settings of the Agent Client Protocol front end.
type ACPSettings struct {
	// UseClientFs makes the file tools read and write through the
	// client (fs/read_text_file, fs/write_text_file) when it offers them.
	UseClientFs bool `mapstructure:"useClientFs"`
	// UseClientTerminal makes bash run in the client's terminals
	// (terminal/*) when it offers them.
	UseClientTerminal bool `mapstructure:"useClientTerminal"`
}

// ConfigDirName is the name of atomic's configuration directory: ~/.atomic
// holds the agent directory, <project>/.atomic the project's configuration.
// It is spelled here only; everyone asks ProjectDir and the file functions
// below.
const ConfigDirName = ".atomic"

// The files of the agent and project configuration directories.
const (
	SettingsFileName = "settings.json"
	MCPFileName      = "mcp.json"
)

// IdleTimeout is the httpIdleTimeoutMs setting: ok is false when it is not
// set; a value that is neither a non-negative number nor "disabled" is an
// error naming it.
func (s Settings) IdleTimeout() (d time.Duration, ok bool, err error) {
	switch v := s.HTTPIdleTimeoutMs.(type) {
	case nil:
		return 0, false, nil
	case string:
		t := strings.TrimSpace(v)
		if strings.EqualFold(t, "disabled") {
			return 0, true, nil
		}
		if ms, err := strconv.ParseFloat(t, 64); err == nil && ms >= 0 {
			return time.Duration(ms) * time.Millisecond, true, nil
		}
	case float64:
		if v >= 0 {
			return time.Duration(v) * time.Millisecond, true, nil
		}
	case int:
		if v >= 0 {
			return time.Duration(v) * time.Millisecond, true, nil
		}
	case int64:
		if v >= 0 {
			return time.Duration(v) * time.Millisecond, true, nil
		}
	}
	return 0, false, fmt.Errorf("httpIdleTimeoutMs must be a number of milliseconds (0 for none) or \"disabled\", not %v", s.HTTPIdleTimeoutMs)
}

// ProjectDir is the project's configuration directory, <cwd>/.atomic.
func ProjectDir(cwd string) string { return filepath.Join(cwd, ConfigDirName) }

// ProjectSettingsFile is the project's settings file.
func ProjectSettingsFile(cwd string) string {
	return filepath.Join(ProjectDir(cwd), SettingsFileName)
}

// ProjectMCPFile is the project's MCP server file, <cwd>/.atomic/mcp.json.
func ProjectMCPFile(cwd string) string { return filepath.Join(ProjectDir(cwd), MCPFileName) }

// Paths tells where the configuration lives.
type Paths struct {
	AgentDir   string // ~/.atomic/agent or $ATOMIC_CODING_AGENT_DIR
	ProjectDir string // <cwd>/.atomic
	Cwd        string
}

// GlobalSettingsFile is the user's settings file.
func (p Paths) GlobalSettingsFile() string { return filepath.Join(p.AgentDir, SettingsFileName) }

// ProjectSettingsFile is the project's settings file.
func (p Paths) ProjectSettingsFile() string { return filepath.Join(p.ProjectDir, SettingsFileName) }

// DefaultAgentDir returns $ATOMIC_CODING_AGENT_DIR, else
// $PI_CODING_AGENT_DIR, else ~/.atomic/agent.
func DefaultAgentDir() string {
	for _, env := range []string{"ATOMIC_CODING_AGENT_DIR", "PI_CODING_AGENT_DIR"} {
		if d := os.Getenv(env); d != "" {
			return expandHome(d)
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ConfigDirName, "agent")
}

// ResolvePaths returns the paths for a working directory.
func ResolvePaths(cwd string) Paths {
	return Paths{AgentDir: DefaultAgentDir(), ProjectDir: ProjectDir(cwd), Cwd: cwd}
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

func defaults(v *viper.Viper) {
	v.SetDefault("defaultThinkingLevel", "medium")
	v.SetDefault("steeringMode", "one-at-a-time")
	v.SetDefault("followUpMode", "one-at-a-time")
	v.SetDefault("retry.enabled", true)
	v.SetDefault("retry.maxRetries", 3)
	v.SetDefault("retry.baseDelayMs", 2000)
	v.SetDefault("retry.maxDelayMs", 60000)
	v.SetDefault("compaction.enabled", true)
	v.SetDefault("compaction.reserveTokens", 16384)
	v.SetDefault("compaction.compression_ratio", 0.5)
	v.SetDefault("compaction.preserve_recent", 2)
	v.SetDefault("enableSkillCommands", true)
	v.SetDefault("defaultProjectTrust", "ask")
	v.SetDefault("extensionRuntime", "auto")
	v.SetDefault("timeouts.tool", 10*60*1000) // tools.DefaultToolTimeout
}

// Diagnostic is a problem found while loading settings.
type Diagnostic struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	// Ignored is set for a key atomic does not act on (the file was read;
	// nothing else is wrong with it).
	Ignored bool `json:"ignored,omitempty"`
}

// Loaded is the result of Load.
type Loaded struct {
	Settings    Settings
	Paths       Paths
	Diagnostics []Diagnostic
	// Merged is the files' settings as written, merged (the project's
	// over the user's, objects key by key), with the overrides applied:
	// what pi's getSettings() gives extensions.
	Merged map[string]any
}

// Load reads the layered settings. overrides are the flag values (keys in
// settings syntax, e.g. "defaultProvider"); includeProject controls whether
// the project file is read (an untrusted project's settings are not).
func Load(paths Paths, includeProject bool, overrides map[string]any) (*Loaded, error) {
	v := viper.New()
	v.SetConfigType("json")
	defaults(v)
	out := &Loaded{Paths: paths, Merged: map[string]any{}}
	files := []string{paths.GlobalSettingsFile()}
	if includeProject {
		files = append(files, paths.ProjectSettingsFile())
	}
	var defaultTools []string  // layered by pi's rule, not viper's
	named := map[string]bool{} // the keys already warned about
	for _, f := range files {
		data, err := fsutil.ReadRegular(f, fsutil.MaxSettingsFile)
		if err != nil {
			if !os.IsNotExist(err) {
				out.Diagnostics = append(out.Diagnostics, Diagnostic{Path: f, Message: err.Error()})
			}
			continue
		}
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			out.Diagnostics = append(out.Diagnostics, Diagnostic{Path: f, Message: "invalid settings JSON: " + err.Error()})
			continue
		}
		out.Diagnostics = append(out.Diagnostics, keyDiagnostics(f, data, named)...)
		var proxy struct {
			HTTPProxy *string `json:"httpProxy"`
		}
		if json.Unmarshal(data, &proxy) == nil && proxy.HTTPProxy != nil {
			if f == paths.GlobalSettingsFile() {
				out.Settings.HTTPProxy = strings.TrimSpace(*proxy.HTTPProxy)
			} else {
				out.Diagnostics = append(out.Diagnostics, Diagnostic{Path: f, Ignored: true,
					Message: "setting httpProxy is read from the agent directory's settings only; ignored here"})
			}
		}
		var all map[string]any
		if json.Unmarshal(data, &all) == nil {
			mergeInto(out.Merged, all)
		}
		var layer struct {
			DefaultTools *[]string `json:"defaultTools"`
		}
		if json.Unmarshal(data, &layer) == nil && layer.DefaultTools != nil {
			defaultTools = MergeToolLists(defaultTools, append([]string{}, *layer.DefaultTools...))
		}
	}
	bindEnv(v)
	if len(overrides) > 0 {
		if err := v.MergeConfigMap(nestMap(overrides)); err != nil {
			return nil, fmt.Errorf("apply flags: %w", err)
		}
		mergeInto(out.Merged, nestMap(overrides))
	}
	proxy := out.Settings.HTTPProxy
	defer func() { out.Settings.HTTPProxy = proxy }() // not viper's: the global file's only
	if err := v.Unmarshal(&out.Settings); err != nil {
		out.Diagnostics = append(out.Diagnostics, Diagnostic{Path: paths.GlobalSettingsFile(), Message: "settings have wrong types: " + err.Error()})
		// Fall back to defaults only, so a bad file never stops the agent.
		d := viper.New()
		defaults(d)
		_ = d.Unmarshal(&out.Settings)
	}
	if defaultTools != nil {
		out.Settings.DefaultTools = defaultTools
	}
	if v.IsSet("retry.maxAgentDelayMs") { // pi 1.6's name of retry.maxDelayMs
		out.Settings.Retry.MaxDelayMs = v.GetInt("retry.maxAgentDelayMs")
	}
	for _, name := range []string{"ATOMIC_CODING_AGENT_SESSION_DIR", "PI_CODING_AGENT_SESSION_DIR"} {
		if env := os.Getenv(name); env != "" && overrides["sessionDir"] == nil {
			out.Settings.SessionDir = env
			break
		}
	}
	out.Settings.SessionDir = expandHome(out.Settings.SessionDir)
	return out, nil
}

// bindEnv maps the environment variables the agent honours onto settings.
func bindEnv(v *viper.Viper) {
	for key, env := range map[string]string{
		"defaultProvider":      "ATOMIC_DEFAULT_PROVIDER",
		"defaultModel":         "ATOMIC_DEFAULT_MODEL",
		"defaultThinkingLevel": "ATOMIC_THINKING_LEVEL",
		"shellPath":            "ATOMIC_SHELL",
	} {
		_ = v.BindEnv(key, env)
	}
}

// mergeInto merges over into dst: objects key by key, anything else
// replaced.
func mergeInto(dst, over map[string]any) {
	for k, v := range over {
		if vm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeInto(dm, vm)
				continue
			}
			cp := map[string]any{}
			mergeInto(cp, vm)
			dst[k] = cp
			continue
		}
		dst[k] = v
	}
}

// nestMap turns dotted keys ("retry.enabled") into nested maps.
func nestMap(flat map[string]any) map[string]any {
	out := map[string]any{}
	for k, val := range flat {
		parts := strings.Split(k, ".")
		m := out
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[parts[len(parts)-1]] = val
	}
	return out
}

// Update edits a settings file in place: it reads the JSON object (keeping
// every key), lets fn change it, and writes it back atomically with mode
// 0600. A missing file is created.
func Update(path string, fn func(m map[string]any)) error {
	unlock, err := lockFile(path)
	if err != nil {
		return err
	}
	defer unlock()
	m := map[string]any{}
	data, err := fsutil.ReadRegular(path, fsutil.MaxSettingsFile)
	if err == nil {
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &m); err != nil {
				return fmt.Errorf("settings file %s is not valid JSON; not overwriting it: %w", path, err)
			}
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	fn(m)
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(out, '\n'), 0o600)
}

// SetPath sets a dotted key in a nested map.
func SetPath(m map[string]any, key string, val any) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = val
}

// WriteFileAtomic writes data to a temporary file beside path, syncs it and
// renames it into place, creating missing directories with mode 0700. A
// settings file reached through a symbolic link (dotfiles) is written where
// the link points; the link stays.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return fsutil.WriteBytes(path, data, fsutil.Options{Perm: perm, DirPerm: 0o700, Sync: true, FollowLinks: true})
}

// UpdateText edits a settings file as text, under the settings lock:
// edit gets the current content (nil when the file does not exist; a
// leading byte order mark is removed and put back) and returns the new
// content, which is written atomically (keeping the mode; 0600 for a new
// file). Whatever edit
// leaves alone stays byte for byte. An edit error leaves the file as it
// was.
func UpdateText(path string, edit func(old []byte) ([]byte, error)) error {
	unlock, err := lockFile(path)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := fsutil.ReadRegular(path, fsutil.MaxSettingsFile)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	perm := os.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	bom := bytes.HasPrefix(data, []byte("\xef\xbb\xbf"))
	out, err := edit(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if err != nil {
		return err
	}
	if bom {
		out = append([]byte("\xef\xbb\xbf"), out...)
	}
	return WriteFileAtomic(path, out, perm)
}
