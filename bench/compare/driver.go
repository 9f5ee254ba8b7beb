package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
)

// target is one agent under measurement: how to start it in an isolated
// agent directory that holds models.json.
type target struct {
	Name    string
	Version string
	argv    []string                   // executable and arguments, "--mode rpc" included
	env     func(home string) []string // the whole environment for a home directory
	agentIn string                     // agent directory, relative to home
}

// proc is one running agent process, driven over pipes like a client
// would, with no decoding beyond finding the record it waits for.
type proc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     *bufio.Reader
	started time.Time
	bytes   int64 // stdout bytes read so far
	updates int   // message_update records read so far
	stderr  *bytes.Buffer
}

// start launches the target in a fresh home with models.json.
func (tg target) start(work, models string) (*proc, error) {
	home, err := os.MkdirTemp(work, "home-")
	if err != nil {
		return nil, err
	}
	agentDir := filepath.Join(home, tg.agentIn)
	if err := os.MkdirAll(agentDir, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o600); err != nil {
		return nil, err
	}
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return nil, err
	}
	cmd := exec.Command(tg.argv[0], tg.argv[1:]...)
	cmd.Dir = project
	cmd.Env = tg.env(home)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20), stderr: &bytes.Buffer{}}
	cmd.Stderr = p.stderr
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *proc) send(line string) error {
	_, err := io.WriteString(p.stdin, line+"\n")
	return err
}

// waitFor reads records until one starts with prefix.
func (p *proc) waitFor(prefix string) error {
	pre := []byte(prefix)
	update := []byte(`{"type":"message_update"`)
	for {
		line, err := p.out.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A record longer than the buffer: count it and skip the rest.
			p.bytes += int64(len(line))
			head := append([]byte(nil), line[:min(len(line), 64)]...)
			rest, err := p.out.ReadBytes('\n')
			p.bytes += int64(len(rest))
			if err != nil {
				return p.fail(err)
			}
			if bytes.HasPrefix(head, update) {
				p.updates++
			} else if bytes.HasPrefix(head, pre) {
				return nil
			}
			continue
		}
		p.bytes += int64(len(line))
		if err != nil {
			return p.fail(err)
		}
		if bytes.HasPrefix(line, update) {
			p.updates++
			continue
		}
		if bytes.HasPrefix(line, pre) {
			if bytes.Contains(line, []byte(`"success":false`)) {
				return fmt.Errorf("command failed: %s", strings.TrimSpace(string(line)))
			}
			return nil
		}
	}
}

func (p *proc) fail(err error) error {
	return fmt.Errorf("%v (stderr: %s)", err, tail(p.stderr.String(), 2000))
}

// request sends a command with an id and waits for its response.
func (p *proc) request(id, body string) error {
	if err := p.send(`{"id":"` + id + `",` + body[1:]); err != nil {
		return err
	}
	return p.waitFor(`{"id":"` + id + `",`)
}

func (p *proc) close() {
	p.stdin.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, p.out)
		_ = p.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// treeField returns a /proc/<pid>/status field in KiB (VmHWM, RssAnon, …)
// summed over a process and all its descendants.
func treeField(root int, field string) (int64, error) {
	return benchkit.TreeSum(root, func(pid int) (int64, error) { return benchkit.StatusField(pid, field) })
}

// treePSS returns the PSS in KiB of a process and all its descendants.
func treePSS(root int) (int64, error) { return benchkit.TreeSum(root, benchkit.PSS) }

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// treeCPU returns the CPU time of a process and all its descendants.
func treeCPU(root int) (time.Duration, error) { return benchkit.TreeCPU(root) }
