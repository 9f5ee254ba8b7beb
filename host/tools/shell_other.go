//go:build !unix

package tools

import (
	"os"
	"os/exec"
)

func setProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the process; without process groups its children may
// survive.
func killGroup(p *os.Process) {
	if p != nil {
		_ = p.Kill()
	}
}
