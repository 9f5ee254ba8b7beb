//go:build linux

package nodeext_test

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// An agent killed with SIGKILL leaves no Node extension host behind: the
// kernel ends it with the agent (parent-death signal).
func TestNodeHostDiesWithAKilledAgent(t *testing.T) {
	needNode(t)
	a := start(t, nil, map[string]any{"extensionRuntime": "node", "extensions": []any{abs(t, "nodeonly.ts")}}, nil)
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/pid"})
	pid, err := strconv.Atoi(strings.Fields(a.WaitType(from, "extension_ui_request")["message"].(string))[1])
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd of the Node host %d: %v", pid, err)
	}
	defer unix.Close(fd)
	// The host outlives the test if it survives: end it then.
	defer func() { _ = syscall.Kill(pid, syscall.SIGKILL) }()
	if err := a.Process().Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// A pidfd is readable once its process has ended.
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := unix.Poll(fds, int(time.Until(deadline).Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("the Node host %d is still running 5s after the agent was killed", pid)
		}
		return
	}
}
