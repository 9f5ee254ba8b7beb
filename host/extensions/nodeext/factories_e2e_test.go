package nodeext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// factoriesRun runs factories.ts's scenario in one runtime, in dir, and
// returns its events (ids and times taken out; streamed partial results,
// whose number depends on timing, apart: the last one of each call).
func factoriesRun(t *testing.T, runtime, dir string) (events, lastUpdates []string) {
	script := []map[string]any{
		{"toolCalls": []map[string]any{{"name": "my_bash", "arguments": map[string]any{"command": `echo "$PREFIX $FACTORY_HOOK"; pwd`}}}},
		{"toolCalls": []map[string]any{{"name": "my_read", "arguments": map[string]any{"path": "note.txt"}}}},
		{"toolCalls": []map[string]any{{"name": "my_read", "arguments": map[string]any{"path": "missing.txt"}}}},
		{"text": "done"},
	}
	b, _ := json.Marshal(map[string]any{"extensionRuntime": runtime, "extensions": []any{abs(t, "factories.ts")}})
	a := e2e.Start(t, e2e.Options{Script: script, Dir: dir, AgentFiles: map[string]string{"settings.json": string(b)}})
	if st := statuses(t, a)["factories.ts"]; st["state"] != "loaded" || st["runtime"] != runtime {
		t.Fatalf("%s: %v", runtime, st)
	}
	recs := a.PromptAndWait("use the factories")
	var kept []e2e.Record
	last := map[string]string{}
	var order []string
	for _, r := range recs {
		if r.Type() != "tool_execution_update" {
			kept = append(kept, r)
			continue
		}
		id, _ := r["toolCallId"].(string)
		if _, ok := last[id]; !ok {
			order = append(order, id)
		}
		b, _ := json.Marshal(r["partialResult"])
		last[id] = string(b)
	}
	for _, id := range order {
		lastUpdates = append(lastUpdates, last[id])
	}
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/factories"})
	kept = append(kept, a.WaitType(from, "extension_ui_request"))
	return comparable(kept), lastUpdates
}

// TestBuiltinToolFactoriesSameInGojaAndNode: createBashTool (with a
// commandPrefix and a spawnHook, its output streamed) and createReadTool
// run the agent's built-in tools in Node as in goja, with the same
// results, errors and tool descriptions.
func TestBuiltinToolFactoriesSameInGojaAndNode(t *testing.T) {
	needNode(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("hello from a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	goja, gojaUpdates := factoriesRun(t, "goja", dir)
	node, nodeUpdates := factoriesRun(t, "node", dir)
	if strings.Join(goja, "\n") != strings.Join(node, "\n") {
		t.Fatalf("events differ\n--- goja\n%s\n--- node\n%s", strings.Join(goja, "\n"), strings.Join(node, "\n"))
	}
	if strings.Join(gojaUpdates, "\n") != strings.Join(nodeUpdates, "\n") || len(nodeUpdates) == 0 {
		t.Fatalf("last partial results differ\n--- goja\n%s\n--- node\n%s", strings.Join(gojaUpdates, "\n"), strings.Join(nodeUpdates, "\n"))
	}
	all := strings.Join(node, "\n")
	for _, want := range []string{`hooked\nyes 1\n` + dir, `hello from a file`, `missing.txt`, `"isError":true`,
		`factories: [[\"read\",\"bash\",\"edit\",\"write\"],[\"read\",\"grep\",\"find\",\"ls\"],[\"read\",\"bash\",\"edit\",\"write\",\"grep\",\"find\",\"ls\"],\"ls\"]`,
		`\"parameters\":{`} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %s in\n%s", want, all)
		}
	}
	if !strings.Contains(nodeUpdates[0], "hooked") {
		t.Errorf("the bash tool's partial result: %s", nodeUpdates[0])
	}
}
