package jsext_test

import (
	"os"
	"path/filepath"
	"testing"
)

// An extension with several handlers of one intercepting event has each
// of them called and their results composed, in every engine: a second
// tool_call handler that blocks blocks the call although the first let it
// through (the bus used to hand such an extension the event once, and
// the second handler's answer was lost).
func TestSeveralHandlersOfOneExtensionCompose(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `export default function (pi: any) {
  pi.on("tool_call", async () => undefined);
  pi.on("tool_call", async (e: any) => (e.toolName === "bash" ? { block: true, reason: "second handler says no" } : undefined));
}
`
			ext := filepath.Join(dir, "gate.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{bashCall("echo ran"), {"text": "done"}})
			res := toolResults(a.PromptAndWait("go"))
			if len(res) != 1 || res[0]["isError"] != true || text(res[0]) != "second handler says no" {
				t.Fatalf("tool results: %v\n%s", res, a.Stderr())
			}
		})
	}
}
