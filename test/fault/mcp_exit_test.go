package fault

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/internal/leaktest"
)

// 500 MCP servers registered by pi.registerMcpServer and 20 from mcp.json,
// all hanging at initialize (they never read stdin and ignore SIGTERM,
// each with a child): get_state answers at once, the agent exits promptly
// when stdin closes, and no server process is left running.
func TestMCPServersEndAtExit(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	script := fmt.Sprintf("trap '' TERM; sleep 1000 & echo $$ $! >> %s; while :; do sleep 1; done", pidFile)
	entry := map[string]any{"command": "sh", "args": []string{"-c", script}}
	ext := filepath.Join(dir, "many.js")
	entryJSON, _ := json.Marshal(entry)
	src := fmt.Sprintf(`module.exports = function (pi) { for (let i = 0; i < 500; i++) pi.registerMcpServer("reg" + i, %s); };`, entryJSON)
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := map[string]any{}
	for i := range 20 {
		servers[fmt.Sprintf("file%d", i)] = entry
	}
	mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": servers})
	a := e2e.Start(t, e2e.Options{Args: []string{"-e", ext}, AgentFiles: map[string]string{"mcp.json": string(mcpJSON)}})
	a.MustSucceed(map[string]any{"type": "get_state"}) // the first exchange: servers launch after it
	deadline := time.Now().Add(30 * time.Second)
	for len(leaktest.Pids(pidFile)) < 2*16 {
		if time.Now().After(deadline) {
			t.Fatalf("the servers did not start: %d pids", len(leaktest.Pids(pidFile)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	a.MustSucceed(map[string]any{"type": "get_state"})
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("get_state took %s while servers hang at initialize", d)
	}
	a.CloseStdin()
	start = time.Now()
	a.Wait(20 * time.Second)
	took := time.Since(start)
	var left []int
	pids := leaktest.Pids(pidFile)
	for _, pid := range pids {
		if leaktest.Running(pid) {
			left = append(left, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if len(left) > 0 {
		t.Fatalf("%d of %d server processes still run after the agent exited (in %s)", len(left), len(pids), took)
	}
	// The servers are stopped together: one stop after another would take
	// minutes (520 servers, each waited on for its TERM grace). The bound
	// is loose because CI runs this beside other suites on two cores.
	if took > 15*time.Second {
		t.Fatalf("exit took %s", took)
	}
	t.Logf("%d processes started, exit took %s", len(pids), took)
}
