package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	pluginMu   sync.Mutex
	pluginBins = map[string]string{}
)

// BuildPlugin builds a Go plugin package of this module (for example
// "./internal/testplugin") once per test process and returns the binary.
func BuildPlugin(t testing.TB, pkg string) string {
	t.Helper()
	pluginMu.Lock()
	defer pluginMu.Unlock()
	if bin, ok := pluginBins[pkg]; ok {
		return bin
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := buildDir("atomic-e2e-plugin-")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	pluginBins[pkg] = bin
	return bin
}

// PluginDir writes a plugin directory (an atomic-plugin.json manifest
// running bin with args) under parent/name and returns its path.
func PluginDir(t testing.TB, parent, name, bin string, args ...string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]any{"command": append([]string{bin}, args...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "atomic-plugin.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// WriteSettings writes a settings.json into dir.
func WriteSettings(t testing.TB, dir string, settings map[string]any) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), b, 0o644); err != nil {
		t.Fatal(fmt.Errorf("write settings: %w", err))
	}
}
