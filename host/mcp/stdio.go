package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/atomic-go/atomic/internal/proc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stop timing of a stdio server: after stdin closes it has stdinGrace to
// exit, then its process group gets SIGTERM, and termGrace later SIGKILL.
var (
	stdinGrace = 500 * time.Millisecond
	termGrace  = 2 * time.Second
)

// stderrTailBytes is how much of a server's stderr is kept for diagnostics.
const stderrTailBytes = 4096

// stdioProc is the process of a stdio server: its own process group (so
// that wrappers such as npx die with it), stdout the MCP stream (the SDK's
// CommandTransport reads it; it never reaches ours), stderr to the log and
// a kept tail.
type stdioProc struct {
	cmd  *exec.Cmd
	tail *proc.Tail
	done chan struct{} // closed when stderr reached EOF
}

// expandHome replaces a leading "~/" (or a lone "~") with the home
// directory.
func expandHome(s string) string {
	if s != "~" && !strings.HasPrefix(s, "~/") {
		return s
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return s
	}
	return filepath.Join(home, s[1:])
}

// newStdioTransport prepares the command of a stdio server. env holds the
// resolved values of the entry's env; cwd is the session directory that a
// relative cwd resolves against.
func newStdioTransport(name string, cfg *ServerConfig, env map[string]string, cwd string, log *slog.Logger, redact func(string) string) (*mcp.CommandTransport, *stdioProc, error) {
	args := make([]string, len(cfg.Args))
	for i, a := range cfg.Args {
		args[i] = expandHome(a)
	}
	cmd := exec.Command(expandHome(cfg.Command), args...)
	dir := cwd
	if cfg.Cwd != "" {
		dir = expandHome(cfg.Cwd)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
	}
	cmd.Dir = dir
	cmd.Env = serverEnv(cfg.InheritEnv)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	proc.Group(cmd)
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = w // a file: Wait does not wait for the server's children holding it
	p := &stdioProc{cmd: cmd, tail: &proc.Tail{Max: stderrTailBytes}, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer r.Close()
		readLines(r, maxStderrLine, func(line string) {
			line = redact(line)
			p.tail.AddLine(line)
			log.Debug("mcp server stderr", "server", name, "line", line)
		})
	}()
	t := &mcp.CommandTransport{Command: cmd, TerminateDuration: stdinGrace} // stop signals the whole group as well
	return t, p, nil
}

// MinimalEnv names the variables of the agent's environment a stdio
// server gets (when set) besides its entry's env, as the reference MCP
// SDKs do: no provider API key or other credential reaches a server
// unless its entry names it or sets "inheritEnv".
var MinimalEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR"}

// serverEnv is the environment a stdio server starts from.
func serverEnv(inherit bool) []string {
	if inherit {
		return os.Environ()
	}
	env := make([]string, 0, len(MinimalEnv))
	for _, k := range MinimalEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// maxStderrLine is the longest stderr line kept whole; a longer one is
// cut (with a note) and the lines after it are read as usual.
const maxStderrLine = 16 << 10

// readLines calls fn with each line of r (without its newline), a line
// longer than max cut to its first max bytes and a note of how much was
// left out, until r ends.
func readLines(r io.Reader, max int, fn func(string)) {
	br := bufio.NewReaderSize(r, 4096)
	var line []byte
	cut := 0
	for {
		frag, err := br.ReadSlice('\n')
		end := err == nil
		if end {
			frag = frag[:len(frag)-1]
		}
		if room := max - len(line); room > 0 {
			take := min(room, len(frag))
			line = append(line, frag[:take]...)
			cut += len(frag) - take
		} else {
			cut += len(frag)
		}
		if end || (err != nil && err != bufio.ErrBufferFull && (len(line) > 0 || cut > 0)) {
			text := strings.TrimSuffix(string(line), "\r")
			if cut > 0 {
				text += fmt.Sprintf(" … (%d more bytes of this line left out)", cut)
			}
			fn(text)
			line, cut = line[:0], 0
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// started closes the parent's copy of the stderr pipe once the command
// runs (or failed to start).
func (p *stdioProc) started() {
	if f, ok := p.cmd.Stderr.(*os.File); ok {
		_ = f.Close()
	}
}

// stop ends the server: closeSession closes stdin and reaps the process
// (the SDK); if the server does not exit within stdinGrace its process
// group gets SIGTERM, then SIGKILL. Children left in the group after the
// server exited get SIGTERM too, and SIGKILL termGrace later.
func (p *stdioProc) stop(closeSession func()) {
	done := make(chan struct{})
	go func() {
		closeSession()
		close(done)
	}()
	if p.cmd.Process == nil {
		<-done
		return
	}
	proc.Stop(p.cmd.Process.Pid, done, stdinGrace, termGrace)
}

// exitError describes why the process ended, with the last stderr line.
func (p *stdioProc) exitError() error {
	// The exit status is not read: the SDK's transport waits for the
	// process in a goroutine of its own, so cmd.ProcessState would race.
	msg := "the server exited"
	if last := p.tail.LastLine(); last != "" {
		msg += ": " + last
	}
	return errors.New(msg)
}

// describeStartError turns a failure to start into a message.
func describeStartError(ctx context.Context, err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return fmt.Errorf("no answer to initialize within %s", timeout)
	}
	return err
}
