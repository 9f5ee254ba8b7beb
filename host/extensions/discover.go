package extensions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// ManifestFile names a plugin directory's manifest:
//
//	{"name": "my-plugin", "command": ["node", "index.js"]}
//
// command runs in the directory; a first element starting with "./" is
// relative to it.
const ManifestFile = "atomic-plugin.json"

// DiscoverOptions say where to look.
type DiscoverOptions struct {
	AgentDir string
	Cwd      string
	// CLI are the -e paths in order.
	CLI []string
	// NoExtensions keeps only the CLI paths.
	NoExtensions bool
}

// Status is one extension's fate, for diagnostics and get_extensions.
type Status struct {
	Path  string `json:"path"`
	Name  string `json:"name,omitempty"`
	Scope string `json:"scope"`
	// State is loaded, skipped, failed or disabled.
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
	// For loaded extensions: what they registered.
	Events   []string `json:"events,omitempty"`
	Commands []string `json:"commands,omitempty"`
	Tools    []string `json:"tools,omitempty"`
}

// Discovered is the result of Discover.
type Discovered struct {
	// Specs in load order, project ones included (trust is decided later).
	Specs []Spec
	// Problems are paths that could not be used.
	Problems []Status
	// ProjectSettings is the project settings file when it exists (part
	// of the project's trust fingerprint: it can list extensions and set
	// the shell that runs commands).
	ProjectSettings string
}

// Discover finds the extensions in load order.
func Discover(o DiscoverOptions) Discovered {
	var d Discovered
	seen := map[string]int{}
	add := func(path, scope string, opts Options, auto bool) {
		specs, err := resolve(path, scope, auto)
		if err != nil {
			d.Problems = append(d.Problems, Status{Path: path, Scope: scope, State: "failed", Message: err.Error()})
			return
		}
		for _, s := range specs {
			if i, ok := seen[s.Path]; ok {
				// A project cannot take over a user extension by naming
				// its path (to skip or disable it while untrusted): the
				// user's entry and options win, at the first position.
				if d.Specs[i].Scope == ScopeProject && s.Scope != ScopeProject {
					d.Specs[i].Scope, d.Specs[i].Options = s.Scope, opts
				}
				continue
			}
			seen[s.Path] = len(d.Specs)
			s.Options = opts
			d.Specs = append(d.Specs, s)
		}
	}
	for _, p := range o.CLI {
		add(absFrom(o.Cwd, p), ScopeTemporary, Options{}, false)
	}
	if o.NoExtensions {
		return d
	}
	projectDir := filepath.Join(o.Cwd, ".atomic")
	projectSettings := filepath.Join(projectDir, "settings.json")
	entries, problem := settingsEntries(projectSettings)
	if problem != nil {
		d.Problems = append(d.Problems, *problem)
	}
	if fileExists(projectSettings) {
		d.ProjectSettings = projectSettings
	}
	for _, e := range entries {
		add(absFrom(projectDir, e.path), ScopeProject, e.opts, false)
	}
	entries, problem = settingsEntries(filepath.Join(o.AgentDir, "settings.json"))
	if problem != nil {
		d.Problems = append(d.Problems, *problem)
	}
	for _, e := range entries {
		add(absFrom(o.AgentDir, e.path), ScopeUser, e.opts, false)
	}
	for _, root := range []struct{ dir, scope string }{
		{filepath.Join(projectDir, "extensions"), ScopeProject},
		{filepath.Join(o.AgentDir, "extensions"), ScopeUser},
	} {
		items, err := os.ReadDir(root.dir)
		if err != nil {
			continue
		}
		sort.Slice(items, func(i, j int) bool { return items[i].Name() < items[j].Name() })
		for _, it := range items {
			name := it.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			add(filepath.Join(root.dir, name), root.scope, Options{}, true)
		}
	}
	// Options given in settings apply to auto-discovered paths too.
	return d
}

func absFrom(base, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// resolve turns a path into specs. auto is true for entries found by
// scanning an extensions directory: there, files that are neither
// executable nor scripts are ignored instead of reported.
func resolve(path, scope string, auto bool) ([]Spec, error) {
	st, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("extension not found: %s", path)
		}
		return nil, err
	}
	if !st.IsDir() {
		if isScript(path) {
			return []Spec{{Path: path, Kind: KindScript, Dir: filepath.Dir(path), Scope: scope}}, nil
		}
		if st.Mode()&0o111 == 0 {
			if auto {
				return nil, nil
			}
			return nil, fmt.Errorf("extension %s is not executable (chmod +x it, or give a directory with %s)", path, ManifestFile)
		}
		return []Spec{{Path: path, Kind: KindPlugin, Command: []string{path}, Dir: filepath.Dir(path), Scope: scope}}, nil
	}
	if m, err := os.ReadFile(filepath.Join(path, ManifestFile)); err == nil {
		var man struct {
			Command []string `json:"command"`
		}
		if err := json.Unmarshal(m, &man); err != nil || len(man.Command) == 0 {
			return nil, fmt.Errorf("%s: needs {\"command\": [\"program\", \"args\"...]}", filepath.Join(path, ManifestFile))
		}
		cmd := append([]string(nil), man.Command...)
		if strings.HasPrefix(cmd[0], "./") || strings.HasPrefix(cmd[0], "../") {
			cmd[0] = filepath.Join(path, cmd[0])
		}
		return []Spec{{Path: path, Kind: KindPlugin, Command: cmd, Dir: path, Scope: scope}}, nil
	}
	if pkg, err := os.ReadFile(filepath.Join(path, "package.json")); err == nil {
		var p struct {
			Atomic struct {
				Extensions []string `json:"extensions"`
			} `json:"atomic"`
			Pi struct {
				Extensions []string `json:"extensions"`
			} `json:"pi"`
		}
		if json.Unmarshal(pkg, &p) == nil {
			list := p.Atomic.Extensions
			if len(list) == 0 {
				list = p.Pi.Extensions
			}
			if len(list) > 0 {
				var out []Spec
				for _, e := range list {
					sub, err := resolve(filepath.Join(path, e), scope, true)
					if err == nil {
						out = append(out, sub...)
					}
				}
				return out, nil
			}
		}
	}
	for _, idx := range []string{"index.ts", "index.js"} {
		if _, err := os.Stat(filepath.Join(path, idx)); err == nil {
			return []Spec{{Path: path, Kind: KindScript, Command: []string{filepath.Join(path, idx)}, Dir: path, Scope: scope}}, nil
		}
	}
	if auto {
		return nil, nil
	}
	return nil, fmt.Errorf("%s is a directory without %s, package.json \"atomic.extensions\" or index.ts/index.js", path, ManifestFile)
}

func isScript(path string) bool {
	switch filepath.Ext(path) {
	case ".js", ".ts", ".mjs", ".cjs", ".mts", ".cts":
		return true
	}
	return false
}

type settingsEntry struct {
	path string
	opts Options
}

// settingsEntries reads the "extensions" list of a settings file. Each
// entry is a path, or an object:
//
//	{"path": "...", "timeouts": {"tool_call": 120000, "default": 5000}, "isolation": "process", "memoryLimitMB": 256, "disabled": false}
//
// with timeouts in milliseconds (or Go duration strings such as "2m").
func settingsEntries(file string) ([]settingsEntry, *Status) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc struct {
		Extensions []json.RawMessage `json:"extensions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, &Status{Path: file, State: "failed", Message: "cannot read \"extensions\": " + err.Error()}
	}
	var out []settingsEntry
	for _, raw := range doc.Extensions {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out = append(out, settingsEntry{path: s})
			continue
		}
		var obj struct {
			Path      string                     `json:"path"`
			Timeouts  map[string]json.RawMessage `json:"timeouts"`
			Timeout   json.RawMessage            `json:"timeout"`
			Isolation string                     `json:"isolation"`
			MemoryMB  int64                      `json:"memoryLimitMB"`
			Disabled  bool                       `json:"disabled"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil || obj.Path == "" {
			return out, &Status{Path: file, State: "failed", Message: fmt.Sprintf("invalid \"extensions\" entry %s: use a path or {\"path\": ...}", raw)}
		}
		if obj.MemoryMB < 0 {
			return out, &Status{Path: file, State: "failed", Message: fmt.Sprintf("extension %s: memoryLimitMB must be positive", obj.Path)}
		}
		e := settingsEntry{path: obj.Path, opts: Options{Isolation: obj.Isolation, MemoryLimitMB: obj.MemoryMB, Disabled: obj.Disabled, Timeouts: map[string]time.Duration{}}}
		if len(obj.Timeout) > 0 {
			obj.Timeouts = map[string]json.RawMessage{"default": obj.Timeout}
		}
		for ev, v := range obj.Timeouts {
			d, err := parseDuration(v)
			if err != nil {
				return out, &Status{Path: file, State: "failed", Message: fmt.Sprintf("extension %s: timeout for %s: %v", obj.Path, ev, err)}
			}
			e.opts.Timeouts[ev] = d
		}
		out = append(out, e)
	}
	return out, nil
}

func parseDuration(raw json.RawMessage) (time.Duration, error) {
	var ms float64
	if json.Unmarshal(raw, &ms) == nil {
		if ms <= 0 {
			return 0, fmt.Errorf("must be positive")
		}
		return time.Duration(ms * float64(time.Millisecond)), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, fmt.Errorf("use milliseconds or a duration such as \"30s\"")
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("use milliseconds or a duration such as \"30s\"")
	}
	return d, nil
}
