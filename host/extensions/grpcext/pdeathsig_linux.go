//go:build linux

package grpcext

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startChild starts cmd so that the kernel kills it when the agent dies,
// even by SIGKILL (PR_SET_PDEATHSIG). The signal is tied to the thread
// that forked the child: the goroutine is locked to its thread for the
// fork, and Go does not end a thread that no locked goroutine left, so
// the thread lives as long as the agent.
func startChild(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Start()
}
