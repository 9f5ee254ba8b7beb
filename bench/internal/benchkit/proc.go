package benchkit

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Proc is a started process driven line by line over its stdin and
// stdout, like an RPC client talking to `atomic --mode rpc`. Its methods
// exit the program through Check on failure.
type Proc struct {
	// Cmd is the running command.
	Cmd   *exec.Cmd
	in    io.WriteCloser
	lines *bufio.Scanner
}

// Start starts cmd (whose Dir, Env and Stderr the caller has set) with
// pipes for its stdin and stdout; lines of up to 64 MiB are read.
func Start(cmd *exec.Cmd) *Proc {
	in, err := cmd.StdinPipe()
	Check(err)
	out, err := cmd.StdoutPipe()
	Check(err)
	Check(cmd.Start())
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	return &Proc{Cmd: cmd, in: in, lines: sc}
}

// Send writes line and a newline to the process's stdin. A write error is
// ignored: the next WaitFor reports the process that went away.
func (p *Proc) Send(line string) { _, _ = io.WriteString(p.in, line+"\n") }

// WaitFor reads lines until one contains every fragment and returns it;
// it fails when the output ends first.
func (p *Proc) WaitFor(fragments ...string) string {
	for p.lines.Scan() {
		line := p.lines.Text()
		ok := true
		for _, f := range fragments {
			if !strings.Contains(line, f) {
				ok = false
				break
			}
		}
		if ok {
			return line
		}
	}
	Check(fmt.Errorf("agent closed its output while waiting for %s", strings.Join(fragments, ", ")))
	return ""
}

// Stop closes stdin and waits for the process to exit, killing it after
// 10 seconds.
func (p *Proc) Stop() {
	p.in.Close()
	done := make(chan struct{})
	go func() { _ = p.Cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-done
	}
}

// StartAtomic starts `bin --mode rpc` with one `-e` flag per extension
// path, in the directory root, with HOME at root/home (its agent directory
// created at root/home/.atomic/agent, which ATOMIC_CODING_AGENT_DIR names),
// the rest of this process's environment, and env added last.
func StartAtomic(root, bin string, exts []string, env ...string) *Proc {
	home := filepath.Join(root, "home")
	agentDir := filepath.Join(home, ".atomic", "agent")
	Check(os.MkdirAll(agentDir, 0o755))
	args := []string{"--mode", "rpc"}
	for _, p := range exts {
		args = append(args, "-e", p)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), "HOME="+home, "ATOMIC_CODING_AGENT_DIR="+agentDir), env...)
	return Start(cmd)
}
