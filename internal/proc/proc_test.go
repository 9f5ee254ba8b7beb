//go:build unix

package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitFile waits for a file the child writes (its grandchild's pid).
func waitPid(t *testing.T, p string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(p); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err == nil {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", p)
	return 0
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// A cancelled Run ends the grandchildren too (npm's lifecycle scripts),
// including one that ignores SIGTERM.
func TestRunCancelEndsTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("sh", "-c", `sh -c 'trap "" TERM; while :; do sleep 0.05; done' & echo $! > `+pidFile+`; wait`)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- Run(ctx, cmd, 200*time.Millisecond) }()
	grandchild := waitPid(t, pidFile)
	if !alive(grandchild) {
		t.Fatal("the grandchild is not running")
	}
	cancel()
	select {
	case err := <-errc:
		if err != context.Canceled {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the cancel")
	}
	if !Gone(cmd.Process.Pid, 2*time.Second) {
		t.Errorf("the group is still there: grandchild %d alive %v", grandchild, alive(grandchild))
	}
}

// Run returns the child's own failure when not cancelled.
func TestRunExitStatus(t *testing.T) {
	err := Run(context.Background(), exec.Command("sh", "-c", "exit 3"), time.Second)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("err %v", err)
	}
}

// Stop waits the patience for a leader that exits by itself, and ends
// the children it left in the group.
func TestStopEndsLeftovers(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("sh", "-c", `sleep 30 & echo $! > `+pidFile)
	Group(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	left := waitPid(t, pidFile)
	Stop(cmd.Process.Pid, done, 5*time.Second, 200*time.Millisecond)
	if alive(left) {
		// a zombie until init reaps it is fine; a running sleep is not
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(left) + "/stat"); !strings.Contains(string(b), ") Z ") {
			t.Errorf("the child left in the group is running: %s", b)
		}
	}
}

func TestTail(t *testing.T) {
	tl := &Tail{Max: 10}
	tl.AddLine("first line")
	tl.AddLine("two")
	tl.AddLine("three")
	if got := tl.String(); got != "two\nthree" {
		t.Errorf("String %q", got)
	}
	tl.AddLine(strings.Repeat("x", 25))
	if got := tl.String(); got != strings.Repeat("x", 10)[1:] && len(got) > 10 {
		t.Errorf("a long line: %q", got)
	}
	tl2 := &Tail{Max: 40}
	tl2.AddLine("the reason")
	tl2.AddLine("   ")
	if got := tl2.LastLine(); got != "the reason" {
		t.Errorf("LastLine %q", got)
	}
	var w Tail
	_, _ = w.Write([]byte("npm ERR! code E404\nnpm ERR! 404 Not Found\n"))
	if w.LastLine() != "npm ERR! 404 Not Found" {
		t.Errorf("LastLine %q", w.LastLine())
	}
}
