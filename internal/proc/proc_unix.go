//go:build unix

package proc

import (
	"os/exec"
	"syscall"
	"time"
)

// Group makes cmd (not started) the leader of a new process group, so
// that it can be signalled together with everything it starts.
func Group(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Signal sends sig to the process group led by pid.
func Signal(pid int, sig syscall.Signal) error {
	if pid <= 0 {
		return syscall.ESRCH
	}
	return syscall.Kill(-pid, sig)
}

// Gone waits at most d until no process of the group led by pid is left
// (a zombie not yet reaped counts as left).
func Gone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for syscall.Kill(-pid, 0) == nil {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
