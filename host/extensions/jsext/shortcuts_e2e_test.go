package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// Outside the interactive terminal, registerShortcut and
// registerMessageRenderer are accepted and silent, as in pi's RPC mode:
// nothing is shown, nothing fails, the custom message is sent as it is; in every engine.
func TestShortcutsAndRenderersSilentInRPC(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src := `export default function (pi: any) {
  pi.registerShortcut("alt+k", { description: "say hello", handler: async (ctx: any) => ctx.ui.notify("shortcut ran") });
  pi.registerShortcut("ctrl+l", { handler: async (ctx: any) => ctx.ui.notify("ctrl+l ran") });
  pi.registerMessageRenderer("box", (message: any) => { throw new Error("rendered in RPC mode"); });
  pi.registerCommand("send", { handler: async () => {
    pi.sendMessage({ customType: "box", content: "hello box", display: true });
  } });
}
`
			ext := filepath.Join(dir, "keys.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "answered"}})
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/send"})
			// (A Node command's message may reach the agent after the
			// command's answer.)
			a.WaitFrom(0, 10*time.Second, func(r e2e.Record) bool {
				raw, _ := json.Marshal(r)
				return r.Type() == "message_end" && strings.Contains(string(raw), `"customType":"box"`) && strings.Contains(string(raw), "hello box")
			})
			a.PromptAndWait("hi")
			cmds := a.MustSucceed(map[string]any{"type": "get_commands"})
			raw, _ := json.Marshal(cmds["data"])
			if strings.Contains(string(raw), "alt+k") || strings.Contains(string(raw), "say hello") {
				t.Errorf("a shortcut is listed as a command: %s", raw)
			}
			for _, r := range a.Records(0) {
				if r.Type() == "extension_error" || r.Type() == "extension_ui_request" {
					t.Errorf("RPC mode shows something: %v", r)
				}
			}
			if strings.Contains(a.Stderr(), "rendered in RPC mode") {
				t.Errorf("a renderer ran in RPC mode:\n%s", a.Stderr())
			}
		})
	}
}
