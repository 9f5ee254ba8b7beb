package nodeext_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/extensions/nodeext"
)

// The built agent loads a Node-runtime package as one bundle (the debug
// log says so): its command (which reads a dependency's file next to that
// dependency) and its tool work. (That a second start takes the bundle
// from the cache is TestBundledExtensionLoadsAndKeepsItsFiles': files
// written just before a start are not cached, a rule of the cache that
// the test's clock moves past.)
func TestBundledPackageInTheAgent(t *testing.T) {
	needNode(t)
	dir := t.TempDir()
	nodeext.WriteBundleFixture(t, dir)
	env := map[string]string{"XDG_CACHE_HOME": t.TempDir(), "ATOMIC_LOG_LEVEL": "debug"}
	settings := map[string]any{"extensionRuntime": "node", "extensions": []any{dir}}
	script := []map[string]any{
		{"toolCalls": []map[string]any{{"name": "shout", "arguments": map[string]any{"text": "hey"}}}},
		{"text": "shouted"},
	}
	a := start(t, script, settings, env)
	st := statuses(t, a)[filepath.Base(dir)]
	if st["state"] != "loaded" || st["runtime"] != "node" {
		t.Fatalf("status: %v", statuses(t, a))
	}
	a.WaitStderr("Node extension bundled")
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/where"})
	ui := a.WaitType(from, "extension_ui_request")
	if msg, _ := ui["message"].(string); !strings.HasPrefix(msg, "hello from dep|"+dir+"/|") || !strings.Contains(msg, filepath.Join(dir, "index.ts")) {
		t.Fatalf("where: %v", ui)
	}
	recs := a.PromptAndWait("shout")
	found := false
	for _, r := range recs {
		b, _ := json.Marshal(r)
		if r.Type() == "tool_execution_end" && strings.Contains(string(b), "HEY hello from dep") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no tool result with the dependency's text in %v", recs)
	}
	noExtensionErrors(t, a)
}
