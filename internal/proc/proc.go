// Package proc is the one way the agent starts and ends child processes
// that may start children of their own (bash, MCP stdio servers,
// child_process in goja, npm and git): each child leads a process group
// of its own, and ending it ends the group: SIGTERM, then SIGKILL for
// whatever is left after a grace. It also keeps the bounded tail of a
// child's output that error messages quote.
package proc

import (
	"context"
	"os/exec"
	"syscall"
	"time"
)

// Run runs cmd (not started) in a process group of its own and waits for
// it. When ctx ends first, the group gets SIGTERM, and SIGKILL after
// grace for what is left; Run returns once the leader has been reaped
// (its pipes closed at most grace after that, as exec.Cmd.WaitDelay).
func Run(ctx context.Context, cmd *exec.Cmd, grace time.Duration) error {
	Group(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-done:
		case <-ctx.Done():
			Stop(cmd.Process.Pid, done, 0, grace)
		}
	}()
	cmd.WaitDelay = grace
	err := cmd.Wait()
	close(done)
	<-stopped
	if ctx.Err() != nil {
		// Children that outlived the leader (npm's lifecycle scripts)
		// go with it.
		_ = Signal(cmd.Process.Pid, syscall.SIGKILL)
		return ctx.Err()
	}
	return err
}

// Stop ends the process group led by pid once the leader has had
// patience to exit by itself (done closed: its stdin was closed, say):
// SIGTERM, then SIGKILL when it has not exited within grace; then the
// same for children left in the group after the leader is gone. It
// returns when the group is gone or after the graces.
func Stop(pid int, done <-chan struct{}, patience, grace time.Duration) {
	if pid <= 0 {
		return
	}
	wait := func(d time.Duration) bool {
		select {
		case <-done:
			return true
		case <-time.After(d):
			return false
		}
	}
	if patience <= 0 || !wait(patience) {
		_ = Signal(pid, syscall.SIGTERM)
		if !wait(grace) {
			_ = Signal(pid, syscall.SIGKILL)
			wait(grace)
		}
	}
	if Signal(pid, syscall.SIGTERM) == nil {
		// Children left in the group (one that ignores SIGTERM included)
		// get SIGKILL after the grace.
		if !Gone(pid, grace) {
			_ = Signal(pid, syscall.SIGKILL)
			Gone(pid, time.Second) // SIGKILL is delivered at once; reaping may lag
		}
	}
}
