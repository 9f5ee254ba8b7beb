// Package npmpkg installs a pinned npm package into a per-version
// directory under the user's cache, once, for the interoperability tests
// and the side-by-side benchmark that run the published reference agent
// and its client.
package npmpkg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ErrUnreachable is returned (wrapped) when npm or node is missing, or
// npm cannot reach its registry: callers skip rather than fail.
var ErrUnreachable = errors.New("npm registry unreachable")

// Install is a package installed in Dir/node_modules.
type Install struct {
	Dir     string // holds node_modules and package.json
	Name    string
	Version string
}

// PackageDir returns the installed package's directory.
func (i Install) PackageDir() string {
	return filepath.Join(i.Dir, "node_modules", filepath.FromSlash(i.Name))
}

// CacheRoot is where installs are kept: $ATOMIC_NPM_CACHE, else
// <user cache dir>/atomic-go/npm.
func CacheRoot() (string, error) {
	if d := os.Getenv("ATOMIC_NPM_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "atomic-go", "npm"), nil
}

// Ensure returns an install of name@version, installing it first (with
// npm, no install scripts) if the cache does not hold it. The install is
// made in a temporary directory and renamed into place, so an interrupted
// or concurrent run never leaves a half-installed package behind.
func Ensure(ctx context.Context, name, version string) (Install, error) {
	inst := Install{Name: name, Version: version}
	root, err := CacheRoot()
	if err != nil {
		return inst, err
	}
	inst.Dir = filepath.Join(root, strings.ReplaceAll(strings.TrimPrefix(name, "@"), "/", "__")+"@"+version)
	if installedVersion(inst) == version {
		return inst, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return inst, fmt.Errorf("%w: npm is not installed", ErrUnreachable)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return inst, fmt.Errorf("%w: node is not installed", ErrUnreachable)
	}
	// Can the registry be reached at all? (A failure here is a skip; a
	// failure of the install itself is an error.)
	vctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(vctx, "npm", "view", name+"@"+version, "version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != version {
		return inst, fmt.Errorf("%w: npm view %s@%s (registry %s): %v: %s", ErrUnreachable, name, version, registry(), err, npmReason(string(out)))
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return inst, err
	}
	tmp, err := os.MkdirTemp(root, ".install-")
	if err != nil {
		return inst, err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"name":"atomic-go-npm-cache","private":true}`+"\n"), 0o644); err != nil {
		return inst, err
	}
	ictx, cancel2 := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel2()
	cmd := exec.CommandContext(ictx, "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts",
		"--omit=dev", "--save-exact", name+"@"+version)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return inst, fmt.Errorf("npm install %s@%s: %v\n%s", name, version, err, lastLines(string(out), 30))
	}
	if got := installedVersion(Install{Dir: tmp, Name: name}); got != version {
		return inst, fmt.Errorf("npm installed %s version %q, want %s", name, got, version)
	}
	if err := os.Rename(tmp, inst.Dir); err != nil {
		// Another run may have finished first.
		if installedVersion(inst) == version {
			return inst, nil
		}
		return inst, err
	}
	return inst, nil
}

func installedVersion(i Install) string {
	data, err := os.ReadFile(filepath.Join(i.PackageDir(), "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	return pkg.Version
}

// NodeVersion returns node's version as major, minor (0, 0 if unknown).
func NodeVersion() (major, minor int) {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		return 0, 0
	}
	_, _ = fmt.Sscanf(strings.TrimSpace(string(out)), "v%d.%d", &major, &minor)
	return major, minor
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func registry() string {
	out, err := exec.Command("npm", "config", "get", "registry").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

// npmReason picks the informative line of npm's error output.
func npmReason(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "reason:") || strings.Contains(line, "FetchError") || strings.Contains(line, "E404") {
			return strings.TrimSpace(strings.TrimPrefix(line, "npm error"))
		}
	}
	return strings.TrimSpace(lastLines(out, 3))
}
