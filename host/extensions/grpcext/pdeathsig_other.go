//go:build !linux

package grpcext

import "os/exec"

// startChild starts cmd (no parent-death signal outside Linux).
func startChild(cmd *exec.Cmd) error { return cmd.Start() }
