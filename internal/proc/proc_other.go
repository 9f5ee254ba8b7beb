//go:build !unix

package proc

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Group does nothing without process groups: only the child itself can
// be signalled, and its children may survive it.
func Group(cmd *exec.Cmd) {}

// Signal kills the process pid (the only signal there is here).
func Signal(pid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// Gone cannot tell: it reports true.
func Gone(pid int, d time.Duration) bool { return true }
