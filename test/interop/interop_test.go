// Package interop checks that clients we did not write work with atomic:
// the published pi RpcClient (npm @mariozechner/pi-coding-agent) drives
// the built binary through a launcher script.
package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/internal/npmpkg"
	"github.com/atomic-go/atomic/internal/testreq"
)

// The reference client, pinned.
const (
	piPackage = "@mariozechner/pi-coding-agent"
	piVersion = "0.73.1"
)

// installPi returns the cached install of the pinned package, installing
// it on first use. It skips the test only when npm cannot reach its
// registry (or node/npm are missing).
func installPi(t *testing.T) npmpkg.Install {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	inst, err := npmpkg.Ensure(ctx, piPackage, piVersion)
	if errors.Is(err, npmpkg.ErrUnreachable) {
		testreq.Missing(t, "npm", "interop with %s@%s: %v", piPackage, piVersion, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if major, minor := npmpkg.NodeVersion(); major < 20 || (major == 20 && minor < 6) {
		t.Fatalf("%s@%s needs node >= 20.6, found v%d.%d", piPackage, piVersion, major, minor)
	}
	return inst
}

// result is what the driver recorded for one step.
type result struct {
	Name   string            `json:"name"`
	Value  json.RawMessage   `json:"value"`
	Error  string            `json:"error"`
	Events []json.RawMessage `json:"events"`
}

type driverResults struct {
	Steps  []result `json:"steps"`
	Fatal  string   `json:"fatal"`
	Stderr string   `json:"stderr"`
}

// runDriver runs testdata/driver.mjs with the pi client against our
// binary and returns what it recorded.
func runDriver(t *testing.T, inst npmpkg.Install, env []string, cwd string) driverResults {
	t.Helper()
	work := t.TempDir()
	for _, f := range []string{"driver.mjs", "launcher.mjs"} {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The driver imports the package by name: resolve it from the cached
	// install through the package's own exports map.
	if err := os.Symlink(filepath.Join(inst.Dir, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "results.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(work, "driver.mjs"), filepath.Join(work, "launcher.mjs"), cwd, out)
	cmd.Dir = work
	cmd.Env = env
	combined, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("driver: %v\n%s", err, combined)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no results: %v\n%s", err, combined)
	}
	var res driverResults
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if res.Fatal != "" {
		t.Fatalf("driver failed: %s\nagent stderr:\n%s", res.Fatal, res.Stderr)
	}
	return res
}

func TestPiRpcClientDrivesAtomic(t *testing.T) {
	inst := installPi(t)
	srv := llmtest.Start(t)
	srv.Enqueue(
		llmtest.OpenAIChat(llmtest.Turn{ID: "chatcmpl-1", Model: "local-other", Text: "Hello from the local model.", Chunks: 3,
			Usage: llmtest.Usage{Input: 120, Output: 7}}),
		llmtest.OpenAIChat(llmtest.Turn{ID: "chatcmpl-2", Model: "local-other", Text: "Running it.", Chunks: 2,
			ToolCalls: []llmtest.Call{{ID: "call_interop_1", Name: "bash", Args: `{"command":"echo interop-$((6*7))"}`}},
			Usage:     llmtest.Usage{Input: 150, Output: 12}}),
		llmtest.OpenAIChat(llmtest.Turn{ID: "chatcmpl-3", Model: "local-other", Text: "The command printed interop-42.", Chunks: 2,
			Usage: llmtest.Usage{Input: 180, CacheRead: 100, Output: 9}}),
	)
	models := fmt.Sprintf(`{"providers": {"local": {
	  "baseUrl": %q, "api": "openai-completions", "apiKey": "interop-key",
	  "models": [
	    {"id": "local-model", "name": "Local Model", "contextWindow": 16000, "maxTokens": 1024,
	     "cost": {"input": 1, "output": 2, "cacheRead": 0.5, "cacheWrite": 0}},
	    {"id": "local-other", "name": "Local Other", "contextWindow": 32000, "maxTokens": 2048,
	     "cost": {"input": 3, "output": 6, "cacheRead": 1, "cacheWrite": 0}}
	  ]}}}`, srv.URL+"/v1")
	cwd := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cwd, ".atomic", "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	tmpl := "---\ndescription: Check the interop set-up\nargument-hint: <what>\n---\nCheck $1 please.\n"
	if err := os.WriteFile(filepath.Join(cwd, ".atomic", "prompts", "interop-check.md"), []byte(tmpl), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same isolation as the black-box tests: a fresh HOME and agent
	// directory, no credentials. The project template is used only in a
	// trusted project; the client starts the agent itself, so the user's
	// settings trust it.
	cmd, env := e2e.Command(t, e2e.Options{Dir: cwd, AgentFiles: map[string]string{
		"models.json": models, "settings.json": `{"defaultProjectTrust":"always"}`}})
	procEnv := append(cmd.Env, "ATOMIC_INTEROP_BIN="+cmd.Path)
	res := runDriver(t, inst, procEnv, cwd)
	checkScenario(t, res, env, cwd, srv)
}
