package jsext_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// An offline agent (--offline) gives extensions PI_OFFLINE=1 and
// PI_SKIP_VERSION_CHECK=1, as pi's --offline sets them in pi's own
// process: in process.env, in the programs an extension starts itself
// and in those pi.exec starts. Packages read PI_OFFLINE to skip their
// start-up network work (pi-subagents runs `npm root -g` otherwise).
// Online, the variables are not there.
func TestOfflineAgentSaysSoToExtensions(t *testing.T) {
	src := `import { execSync } from "node:child_process";
export default function (pi: any) {
  pi.registerCommand("env", {
    handler: async (_a: string, ctx: any) => {
      const child = String(execSync("echo child=$PI_OFFLINE", { encoding: "utf8" })).trim();
      const viaExec = (await pi.exec("sh", ["-c", "echo exec=$PI_OFFLINE"])).stdout.trim();
      ctx.ui.notify("env=" + process.env.PI_OFFLINE + " skip=" + process.env.PI_SKIP_VERSION_CHECK + " " + child + " " + viaExec);
    },
  });
}
`
	for _, runtime := range []string{"goja", "isolated", "node"} {
		for _, offline := range []bool{true, false} {
			name := runtime + "/online"
			want := "env=undefined skip=undefined child= exec="
			var args []string
			if offline {
				name, want, args = runtime+"/offline", "env=1 skip=1 child=1 exec=1", []string{"--offline"}
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ext := filepath.Join(t.TempDir(), "env.ts")
				if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				a := startInRuntimeArgs(t, runtime, ext, nil, args)
				from := a.Len()
				a.Send(map[string]any{"type": "prompt", "message": "/env"})
				got := a.WaitFrom(from, 60*time.Second, func(r e2e.Record) bool { return r["type"] == "extension_ui_request" && r["method"] == "notify" })
				if got == nil || got["message"] != want {
					t.Fatalf("got %v, want %q\n%s", got, want, a.Stderr())
				}
			})
		}
	}
}
