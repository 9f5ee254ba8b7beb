package grpcext

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin/runner"

	"github.com/atomic-go/atomic/internal/proc"
)

// cmdRunner starts a plugin process the way go-plugin's own runner does,
// except that the plugin never gets the agent's standard input (it reads
// /dev/null), the agent learns at once when the process exits, and the
// plugin leads a process group of its own (internal/proc): what the plugin
// starts without detaching (an extension's child_process, a Go plugin's
// exec) ends with it, whether it exits, crashes or is killed.
type cmdRunner struct {
	cmd    *exec.Cmd
	stdout io.ReadCloser
	stderr io.ReadCloser
	exited chan struct{}
	err    error
	// afterStart are the child's ends of what it was given (ExtraFiles),
	// closed in the agent once the child has them.
	afterStart []*os.File
}

var _ runner.Runner = (*cmdRunner)(nil)

func newRunner(_ hclog.Logger, cmd *exec.Cmd) (*cmdRunner, error) {
	cmd.Stdin = nil // go-plugin sets os.Stdin; a plugin must never read the protocol
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	return &cmdRunner{cmd: cmd, stdout: stdout, stderr: stderr, exited: make(chan struct{})}, nil
}

func (r *cmdRunner) Start(context.Context) error {
	proc.Group(r.cmd)
	err := startChild(r.cmd)
	for _, f := range r.afterStart {
		f.Close()
	}
	r.afterStart = nil
	return err
}

// Wait is called once by go-plugin after the pipes are drained.
func (r *cmdRunner) Wait(context.Context) error {
	err := r.cmd.Wait()
	// Children the plugin left in its group go with it: nothing of an
	// ended extension keeps running, writing or holding files.
	_ = proc.Signal(r.cmd.Process.Pid, syscall.SIGKILL)
	r.err = err
	close(r.exited)
	return err
}

// Kill ends the plugin and everything in its process group.
func (r *cmdRunner) Kill(context.Context) error {
	if r.cmd.Process == nil {
		return nil
	}
	if proc.Signal(r.cmd.Process.Pid, syscall.SIGKILL) == nil {
		return nil
	}
	if err := r.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

func (r *cmdRunner) Stdout() io.ReadCloser { return r.stdout }
func (r *cmdRunner) Stderr() io.ReadCloser { return r.stderr }
func (r *cmdRunner) Name() string          { return r.cmd.Path }

func (r *cmdRunner) ID() string {
	if r.cmd.Process == nil {
		return ""
	}
	return strconv.Itoa(r.cmd.Process.Pid)
}

func (r *cmdRunner) Diagnose(context.Context) string {
	return fmt.Sprintf("the plugin did not complete the handshake: it must be built with the atomic SDK (sdk.Serve) or speak the go-plugin gRPC protocol with the cookie %s", "ATOMIC_PLUGIN")
}

func (r *cmdRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *cmdRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }
