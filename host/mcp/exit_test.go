package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/internal/leaktest"
)

// Servers still starting when the manager closes (one never reads stdin
// and ignores SIGTERM, with a child; others queued behind the start
// limit) and connected ones: after Close none of their processes runs.
func TestCloseEndsEveryProcess(t *testing.T) {
	pids := t.TempDir()
	t.Cleanup(func() { // a failing run leaves nothing behind either
		for _, pid := range leaktest.Pids(pids) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	h := newHarness(t)
	var defs []Server
	// Hanging at initialize, deaf to EOF and SIGTERM, with a child in its group.
	for i := range MaxStarting + 4 {
		script := fmt.Sprintf("trap '' TERM; sleep 1000 & echo $$ $! > %s/h%d; while :; do sleep 1; done", pids, i)
		defs = append(defs, Server{Name: fmt.Sprintf("hang%d", i), Source: "test", Config: ServerConfig{Command: "sh", Args: []string{"-c", script}, Exposure: tools.ExposureDeferred}})
	}
	for i := range 3 {
		defs = append(defs, stdioServer(fmt.Sprintf("ok%d", i), map[string]any{"env": map[string]string{"MCP_TEST_PID_FILE": filepath.Join(pids, fmt.Sprintf("ok%d", i))}}))
	}
	h.m.Apply(defs, nil)
	// Wait until the first MaxStarting hanging servers run (the rest wait
	// for a slot: not started yet).
	deadline := time.Now().Add(20 * time.Second)
	for len(leaktest.Pids(pids)) < 2*MaxStarting {
		if time.Now().After(deadline) {
			t.Fatalf("servers did not start: %v", leaktest.Pids(pids))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(leaktest.Pids(pids)); n > 2*MaxStarting+6 {
		t.Fatalf("more than %d servers started at once (%d pids)", MaxStarting, n)
	}
	start := time.Now()
	h.m.Close()
	took := time.Since(start)
	running := leaktest.Pids(pids)
	var left []int
	for _, pid := range running {
		if leaktest.Running(pid) {
			left = append(left, pid)
		}
	}
	if len(left) > 0 {
		var files []string
		ents, _ := os.ReadDir(pids)
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(pids, e.Name()))
			files = append(files, e.Name()+"="+strings.TrimSpace(string(b)))
		}
		t.Fatalf("%d of %d processes still run after Close (took %s): %v (%v)", len(left), len(running), took, left, files)
	}
	if took > stdinGrace+2*termGrace+2*time.Second {
		t.Fatalf("Close took %s", took)
	}
	for _, d := range defs {
		if st := h.m.get(d.Name); st != nil {
			t.Fatalf("server %s still listed", d.Name)
		}
	}
}
