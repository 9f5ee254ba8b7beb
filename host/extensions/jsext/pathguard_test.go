package jsext

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestScriptsCannotReachTheAgentsDescriptors: every way a script can name
// one of the agent's descriptors through a path (the protocol runs on one)
// is refused with an error in the script, and nothing reaches the
// descriptor.
func TestScriptsCannotReachTheAgentsDescriptors(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd := strconv.Itoa(int(w.Fd()))
	h := newHarness(t)
	if err := os.Symlink("/proc/self/fd", filepath.Join(h.dir, "fdlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(h.dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	paths := []string{
		"/proc/self/fd/" + fd, "/dev/fd/" + fd, "/proc/" + pid + "/fd/" + fd, "/proc/self/../self/fd/" + fd,
		"/proc/thread-self/fd/" + fd, "/proc//self///fd/" + fd, "/dev/stdout", "/dev/stderr", "/dev/stdin",
		filepath.Join(h.dir, "fdlink", fd), h.dir + "/fdlink/../fd/" + fd,
		h.dir + "/sub/../fdlink/" + fd, "/proc/" + pid + "/environ",
	}
	list, _ := json.Marshal(paths)
	ok := filepath.Join(h.dir, "ok.txt")
	s := h.mustLoad("fdwrite.ts", `import * as fs from "node:fs";
import { execSync, execFileSync } from "node:child_process";
const paths: string[] = `+string(list)+`;
export default function (pi: any) {
  pi.on("tool_call", async () => {
    const out: string[] = [];
    const attempt = async (what: string, f: () => any) => {
      try { await f(); out.push(what + ": allowed"); } catch (e: any) { out.push(what + ": " + (e.code || e.message)); }
    };
    for (const p of paths) {
      await attempt("append " + p, () => fs.appendFileSync(p, "INJECTED\n"));
      await attempt("write " + p, () => fs.writeFileSync(p, "INJECTED\n"));
      await attempt("promise " + p, () => fs.promises.appendFile(p, "INJECTED\n"));
      await attempt("read " + p, () => fs.readFileSync(p));
      if (fs.existsSync(p)) out.push("exists " + p + ": true");
    }
    await attempt("require", () => require("/dev/stdin"));
    await attempt("cwd", () => execSync("echo INJECTED", { cwd: "/proc/self/fd" }));
    await attempt("program", () => execFileSync("/proc/self/exe", ["--version"]));
    await attempt("ok", () => fs.appendFileSync(`+strconv.Quote(ok)+`, "fine"));
    return { block: true, reason: out.join("\n") };
  });
}`)
	res, err := handle(t, s, "tool_call", map[string]any{"toolName": "x", "input": map[string]any{}}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Reason string }
	_ = json.Unmarshal([]byte(res), &got)
	lines := strings.Split(got.Reason, "\n")
	if want := len(paths)*4 + 4; len(lines) != want {
		t.Fatalf("%d outcomes, want %d:\n%s", len(lines), want, got.Reason)
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasSuffix(l, ": EACCES") && !strings.Contains(l, "refused: the path names the agent") {
			t.Errorf("not refused: %s", l)
		}
	}
	if l := lines[len(lines)-1]; l != "ok: allowed" {
		t.Errorf("a regular file: %s", l)
	}
	w.Close()
	leaked, _ := os.ReadFile("/proc/self/fd/" + strconv.Itoa(int(r.Fd())))
	if len(leaked) > 0 {
		t.Fatalf("the descriptor received %q", leaked)
	}
}
