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

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/internal/fsutil"
	"github.com/atomic-go/atomic/sdk/rpcwire"
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
	// CLIPackages holds the extension paths of the -e entries that are
	// packages (keyed by the -e value; an empty list when the package
	// could not be used), which load at their -e position.
	CLIPackages map[string][]PackageEntry
	// Packages are the extension paths of the settings' packages, in load
	// order (project packages first).
	Packages []PackageEntry
}

// Status is one extension's fate, for diagnostics and get_extensions.
type Status = rpcwire.ExtensionStatus

// Discovered is the result of Discover.
type Discovered struct {
	// Specs in load order, project ones included (trust is decided later).
	Specs []Spec
	// Problems are paths that could not be used.
	Problems []Status
	// Order lists every path found (specs and problems) in discovery
	// order: -e paths first, then project and user settings, then the
	// auto-discovered directories. get_extensions reports in this order.
	Order []string
	// ProjectSettings is the project settings file when it exists (part
	// of the project's trust fingerprint: it can list extensions and set
	// the shell that runs commands).
	ProjectSettings string
}

// Discover finds the extensions in load order.
func Discover(o DiscoverOptions) Discovered {
	var d Discovered
	seen := map[string]int{}
	add := func(path, scope string, opts Options, auto bool, pkg *PackageRef) {
		specs, err := resolve(path, scope, auto)
		if err != nil {
			d.Problems = append(d.Problems, Status{Path: path, Scope: scope, Package: pkg, State: "failed", Message: err.Error()})
			d.Order = append(d.Order, path)
			return
		}
		for _, s := range specs {
			s.Package = pkg
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
			d.Order = append(d.Order, s.Path)
		}
	}
	addPackage := func(e PackageEntry, scope string) {
		ref := e.Package
		add(filepath.Clean(e.Path), scope, Options{}, false, &ref)
	}
	for _, p := range o.CLI {
		if list, ok := o.CLIPackages[p]; ok {
			for _, e := range list {
				addPackage(e, ScopeTemporary)
			}
			continue
		}
		add(absFrom(o.Cwd, p), ScopeTemporary, Options{}, false, nil)
	}
	if o.NoExtensions {
		return d
	}
	for _, e := range o.Packages {
		scope := e.Package.Scope
		if scope != ScopeProject {
			scope = ScopeUser
		}
		addPackage(e, scope)
	}
	projectDir := config.ProjectDir(o.Cwd)
	projectSettings := config.ProjectSettingsFile(o.Cwd)
	entries, problem := settingsEntries(projectSettings)
	if problem != nil {
		d.Problems = append(d.Problems, *problem)
	}
	if fileExists(projectSettings) {
		d.ProjectSettings = projectSettings
	}
	for _, e := range entries {
		add(absFrom(projectDir, e.path), ScopeProject, e.opts, false, nil)
	}
	entries, problem = settingsEntries(filepath.Join(o.AgentDir, config.SettingsFileName))
	if problem != nil {
		d.Problems = append(d.Problems, *problem)
	}
	for _, e := range entries {
		add(absFrom(o.AgentDir, e.path), ScopeUser, e.opts, false, nil)
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
			add(filepath.Join(root.dir, name), root.scope, Options{}, true, nil)
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
	if m, err := fsutil.ReadRegular(filepath.Join(path, ManifestFile), fsutil.MaxSettingsFile); err == nil {
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
	if list := manifestExtensions(path); len(list) > 0 {
		var out []Spec
		for _, e := range list {
			sub, err := resolve(filepath.Join(path, e), scope, true)
			if err == nil {
				out = append(out, sub...)
			}
		}
		return out, nil
	}
	for _, idx := range []string{"index.ts", "index.js"} {
		if _, err := os.Stat(filepath.Join(path, idx)); err == nil {
			return []Spec{{Path: path, Kind: KindScript, Command: []string{filepath.Join(path, idx)}, Dir: path, Scope: scope}}, nil
		}
	}
	if auto {
		return nil, nil
	}
	// Given explicitly, a directory is a package, as pi takes it: nothing
	// when its manifest lists other resources only (skills, prompts), else
	// its conventional extensions/ directory, else the script its
	// package.json names as its entry point.
	main, manifest := packageEntry(path)
	if manifest {
		return nil, nil
	}
	if ext := filepath.Join(path, "extensions"); isDir(ext) {
		var out []Spec
		for _, e := range EntryPaths(ext) {
			if sub, err := resolve(e, scope, true); err == nil {
				out = append(out, sub...)
			}
		}
		return out, nil
	}
	if main != "" {
		return []Spec{{Path: path, Kind: KindScript, Command: []string{main}, Dir: path, Scope: scope}}, nil
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
//	{"path": "...", "timeouts": {"tool_call": 120000, "default": 5000}, "isolation": "process", "memoryLimitMB": 256, "disabled": false, "runtime": "node"}
//
// with timeouts in milliseconds (or Go duration strings such as "2m").
func settingsEntries(file string) ([]settingsEntry, *Status) {
	data, err := fsutil.ReadRegular(file, fsutil.MaxSettingsFile)
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
			Runtime   string                     `json:"runtime"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil || obj.Path == "" {
			return out, &Status{Path: file, State: "failed", Message: fmt.Sprintf("invalid \"extensions\" entry %s: use a path or {\"path\": ...}", raw)}
		}
		if obj.MemoryMB < 0 {
			return out, &Status{Path: file, State: "failed", Message: fmt.Sprintf("extension %s: memoryLimitMB must be positive", obj.Path)}
		}
		if !ValidRuntimeChoice(obj.Runtime) {
			return out, &Status{Path: file, State: "failed", Message: fmt.Sprintf("extension %s: runtime must be \"auto\", \"goja\" or \"node\", not %q", obj.Path, obj.Runtime)}
		}
		e := settingsEntry{path: obj.Path, opts: Options{Isolation: obj.Isolation, MemoryLimitMB: obj.MemoryMB, Disabled: obj.Disabled, Runtime: obj.Runtime, Timeouts: map[string]time.Duration{}}}
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

// EntryPaths lists the extensions an extensions directory offers, as
// paths a discovery can load (files, or plugin directories), in name
// order: the directory itself when it is one extension (a plugin
// manifest, package.json "atomic"/"pi" extensions, an index.ts or
// index.js), else its script files, its executables and its
// subdirectories that are one extension. Dot entries and node_modules are
// left out. Packages use it to list what their extensions directories
// offer before filtering.
func EntryPaths(dir string) []string {
	if own := ownEntries(dir); own != nil {
		return own
	}
	items, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name() < items[j].Name() })
	var out []string
	for _, it := range items {
		name := it.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		switch {
		case st.IsDir():
			out = append(out, ownEntries(p)...)
		case isScript(p) || st.Mode()&0o111 != 0:
			out = append(out, p)
		}
	}
	return out
}

// ownEntries returns the entries of a directory that is one extension
// (nil when it is not).
func ownEntries(dir string) []string {
	if fileExists(filepath.Join(dir, ManifestFile)) {
		return []string{dir}
	}
	if list := manifestExtensions(dir); len(list) > 0 {
		var out []string
		for _, e := range list {
			if p := filepath.Join(dir, e); exists(p) {
				out = append(out, p)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, idx := range []string{"index.ts", "index.js"} {
		if p := filepath.Join(dir, idx); fileExists(p) {
			return []string{p}
		}
	}
	return nil
}

// manifestExtensions reads the "extensions" of a package.json's "atomic"
// key, else of its "pi" key.
func manifestExtensions(dir string) []string {
	pkg, err := fsutil.ReadRegular(filepath.Join(dir, "package.json"), fsutil.MaxSettingsFile)
	if err != nil {
		return nil
	}
	var p struct {
		Atomic struct {
			Extensions []string `json:"extensions"`
		} `json:"atomic"`
		Pi struct {
			Extensions []string `json:"extensions"`
		} `json:"pi"`
	}
	if json.Unmarshal(bytes.TrimPrefix(pkg, []byte("\xef\xbb\xbf")), &p) != nil {
		return nil
	}
	if len(p.Atomic.Extensions) > 0 {
		return p.Atomic.Extensions
	}
	return p.Pi.Extensions
}

// packageEntry reads a package directory's package.json: the script its
// "main" (or "exports" ".") names, when it exists, and whether it has an
// "atomic" or "pi" manifest.
func packageEntry(dir string) (main string, manifest bool) {
	pkg, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", false
	}
	var p struct {
		Main    string          `json:"main"`
		Exports json.RawMessage `json:"exports"`
		Atomic  json.RawMessage `json:"atomic"`
		Pi      json.RawMessage `json:"pi"`
	}
	if json.Unmarshal(bytes.TrimPrefix(pkg, []byte("\xef\xbb\xbf")), &p) != nil {
		return "", false
	}
	isObject := func(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }
	manifest = isObject(p.Atomic) || isObject(p.Pi)
	candidates := []string{p.Main}
	var exp any
	if json.Unmarshal(p.Exports, &exp) == nil {
		if m, ok := exp.(map[string]any); ok {
			exp = m["."]
		}
		switch e := exp.(type) {
		case string:
			candidates = append([]string{e}, candidates...)
		case map[string]any:
			for _, k := range []string{"import", "default", "require"} {
				if s, ok := e[k].(string); ok {
					candidates = append(candidates, s)
				}
			}
		}
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		f := filepath.Join(dir, filepath.FromSlash(c))
		if rel, err := filepath.Rel(dir, f); err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		if st, err := os.Stat(f); err == nil && !st.IsDir() && isScript(f) {
			return f, manifest
		}
	}
	return "", manifest
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
