package jsext_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ctx.sessionManager has pi 1.6's whole read API in every engine, with
// buildContextEntries and buildSessionProjection over the agent's session:
// after one exchange, the branch with its model and level changes, and
// the two messages.
func TestSessionManagerReadAPI(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `export default function (pi: any) {
  pi.registerCommand("ctx", { handler: async (_a: string, ctx: any) => {
    const sm = ctx.sessionManager;
    const entries = sm.buildContextEntries();
    const p = sm.buildSessionProjection();
    ctx.ui.notify("CTX " + entries.map((e: any) => e.type).join(",") + " " + p.messages.map((m: any) => m.role).join(",") + " " + p.entries.length + " " + (entries[entries.length - 1].id === sm.getLeafId()));
  } });
}
`
			ext := filepath.Join(dir, "read.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "an answer"}})
			a.PromptAndWait("a question")
			from := a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/ctx"})
			got := ""
			for _, r := range a.Records(from) {
				if m, _ := r["message"].(string); strings.HasPrefix(m, "CTX ") {
					got = m
				}
			}
			if got != "CTX model_change,thinking_level_change,message,message user,assistant 4 true" {
				t.Errorf("the read API: %q\n%s", got, a.Stderr())
			}
		})
	}
}
