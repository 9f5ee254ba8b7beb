package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// pi.on returns pi's unsubscribe function (it removes that registration
// only), a handler added after loading is called for an event the
// extension did not handle before, and pi.getSettings() is the effective
// settings, in every engine (with process isolation, handlers are
// registered while loading, so the late one is left out there).
func TestHandlerLifecycleAndSettings(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "settings.json")
			src := `import * as fs from "fs";
export default function (pi: any) {
  let off: any;
  pi.registerCommand("late", { handler: async () => { off = pi.on("turn_end", async (_e: any, ctx: any) => { ctx.ui.notify("turn_end seen"); }); } });
  pi.registerCommand("off", { handler: async () => { off(); } });
  pi.registerCommand("report", { handler: async () => { fs.writeFileSync(` + strconv.Quote(out) + `, JSON.stringify(pi.getSettings())); } });
  const start = async (_e: any, ctx: any) => { ctx.ui.notify("agent_start seen"); };
  const first = pi.on("agent_start", start);
  pi.on("agent_start", start);
  first(); // one of the two registrations of the same function
  pi.on("agent_end", async (_e: any, ctx: any) => { ctx.ui.notify("agent_end seen"); });
}
`
			ext := filepath.Join(dir, "lifecycle.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "one"}, {"text": "two"}},
				map[string]any{"custom": map[string]any{"nested": map[string]any{"a": 1}}})
			notices := func(from int, prefix string) int {
				n := 0
				for _, r := range a.Records(from) {
					if m, _ := r["message"].(string); r.Type() == "extension_ui_request" && strings.HasPrefix(m, prefix) {
						n++
					}
				}
				return n
			}
			run := func() int {
				from := a.Len()
				a.PromptAndWait("go")
				// The extension's notifications come in the events' order:
				// agent_end's is the last of the run.
				a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
					m, _ := r["message"].(string)
					return r.Type() == "extension_ui_request" && m == "agent_end seen"
				})
				return from
			}
			late := runtime != "isolated"
			if late {
				a.MustSucceed(map[string]any{"type": "prompt", "message": "/late"})
			}
			from := run()
			if n := notices(from, "agent_start seen"); n != 1 {
				t.Errorf("agent_start handled %d times, want 1 (one registration removed)", n)
			}
			if n := notices(from, "turn_end seen"); late && n != 1 {
				t.Errorf("the handler added after loading ran %d times, want 1\n%s", n, a.Stderr())
			}
			if late {
				a.MustSucceed(map[string]any{"type": "prompt", "message": "/off"})
				from = run()
				if n := notices(from, "turn_end seen"); n != 0 {
					t.Errorf("the unsubscribed handler ran %d times", n)
				}
			}
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/report"})
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("no settings written: %v\n%s", err, a.Stderr())
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			nested, _ := got["custom"].(map[string]any)["nested"].(map[string]any)
			if nested["a"] != float64(1) || got["extensionRuntime"] == nil {
				t.Errorf("getSettings(): %s", b)
			}
		})
	}
}
