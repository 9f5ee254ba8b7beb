package fault

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// An extension's source files that are not regular files (a FIFO as the
// entry file or as a file it requires, a symlink to /dev/zero) are
// refused in both script runtimes: start-up goes on, get_commands and
// get_extensions answer, the extension is reported failed naming the
// file, and the agent's memory stays low (capped: a regression that reads
// /dev/zero is killed and fails the test, not the machine).
func TestExtensionSourceSpecialFiles(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the extension path
		want  string
	}{
		{"required FIFO", func(t *testing.T, dir string) string {
			mkfifo(t, filepath.Join(dir, "dep.js"))
			return writeExt(t, dir, "ext.ts", `import "./dep.js"; export default function (pi) {}`)
		}, "dep.js is a FIFO"},
		{"entry FIFO", func(t *testing.T, dir string) string {
			return mkfifo(t, filepath.Join(dir, "ext.ts"))
		}, "ext.ts is a FIFO"},
		{"entry symlink to /dev/zero", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "ext.js")
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
			return p
		}, "/dev/zero"}, // discovery resolves the link and refuses the device
		{"required JSON symlink to /dev/zero", func(t *testing.T, dir string) string {
			if err := os.Symlink("/dev/zero", filepath.Join(dir, "conf.json")); err != nil {
				t.Fatal(err)
			}
			return writeExt(t, dir, "ext.ts", `import c from "./conf.json"; export default function (pi) { void c }`)
		}, "character device"},
	}
	for _, runtime := range []string{"goja", "node"} {
		for _, c := range cases {
			t.Run(runtime+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				ext := c.setup(t, dir)
				b, _ := json.Marshal(map[string]any{"extensionRuntime": runtime, "extensions": []any{ext}})
				a := e2e.Start(t, e2e.Options{AgentFiles: map[string]string{"settings.json": string(b)}})
				w := watchRSS(t, a.Process().Pid, 400)
				a.MustSucceed(map[string]any{"type": "get_commands"})
				exts := a.MustSucceed(map[string]any{"type": "get_extensions"})["data"].(map[string]any)["extensions"].([]any)
				w.check(t)
				if len(exts) != 1 {
					t.Fatalf("extensions: %v", exts)
				}
				st := exts[0].(map[string]any)
				if st["state"] != "failed" || !strings.Contains(st["message"].(string), c.want) {
					t.Fatalf("status %v, want failed naming %q", st, c.want)
				}
				a.MustSucceed(map[string]any{"type": "get_state"})
			})
		}
	}
}

func writeExt(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
