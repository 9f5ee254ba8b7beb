package compat

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/npmpkg"
	"github.com/atomic-go/atomic/internal/testreq"
)

// What the suite shares with test/parity: its installs, its Node and the
// arguments its tool calls are made with.

// Ensure installs name@version with npm into the user cache (once;
// later runs reuse it), or skips when npm cannot reach its registry.
func Ensure(t testing.TB, name, version string) npmpkg.Install {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	inst, err := npmpkg.Ensure(ctx, name, version)
	if errors.Is(err, npmpkg.ErrUnreachable) {
		testreq.Missing(t, "npm", "npm cannot reach its registry, so the published extensions cannot be installed: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// nodeNextPackaged says whether npm has a Node build of this machine's
// kind (NodeNextPackage is Linux x64 only).
func nodeNextPackaged() bool { return runtime.GOOS == "linux" && runtime.GOARCH == "amd64" }

// NextNode is the node binary of the cases recorded with PiNextVersion: the
// Node build NodeNextPackage, installed with npm into the user cache (a
// binary shipped in a registry package), or the node on PATH where there
// is none for this machine.
func NextNode(t testing.TB) string {
	if !nodeNextPackaged() {
		p, err := exec.LookPath("node")
		if err != nil {
			testreq.Missing(t, "node", "node is not on PATH")
		}
		t.Logf("no %s for %s/%s: the node on PATH runs the pi %s cases", NodeNextPackage, runtime.GOOS, runtime.GOARCH, PiNextVersion)
		return p
	}
	return filepath.Join(Ensure(t, NodeNextPackage, NodeNextVersion).PackageDir(), "bin", "node")
}

// Sample makes arguments that satisfy a simple schema: its required
// properties, with the first enum value, a constant, or "compat", 1, true.
func Sample(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type  any   `json:"type"`
			Enum  []any `json:"enum"`
			Const any   `json:"const"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	out := map[string]any{}
	if json.Unmarshal(schema, &s) != nil {
		return out
	}
	for _, name := range s.Required {
		p := s.Properties[name]
		switch {
		case p.Const != nil:
			out[name] = p.Const
		case len(p.Enum) > 0:
			out[name] = p.Enum[0]
		case p.Type == "number" || p.Type == "integer":
			out[name] = 1
		case p.Type == "boolean":
			out[name] = true
		case p.Type == "array":
			out[name] = []any{}
		case p.Type == "object":
			out[name] = map[string]any{}
		default:
			out[name] = "compat"
		}
	}
	return out
}
