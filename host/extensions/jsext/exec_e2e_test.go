package jsext_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pi.exec's timeout ends the program and what it started: the host runs
// it in a process group of its own (internal/proc).
func TestExecTimeoutEndsTheProgramsChildren(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	src := `export default function (pi: any) {
  pi.on("tool_call", async () => {
    const r = await pi.exec("sh", ["-c", "sleep 300 >/dev/null 2>&1 & echo $! > ` + pidFile + `; exec sleep 300"], { timeout: 300 });
    return r.killed ? undefined : { block: true, reason: "exec was not killed: " + JSON.stringify(r) };
  });
}
`
	ext := filepath.Join(dir, "exec.ts")
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	a := startInRuntime(t, "goja", ext, []map[string]any{bashCall("echo ran"), {"text": "done"}})
	res := toolResults(a.PromptAndWait("go"))
	if len(res) != 1 || res[0]["isError"] == true {
		t.Fatalf("tool results: %v\n%s", res, a.Stderr())
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the program's child %d outlived pi.exec's timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
