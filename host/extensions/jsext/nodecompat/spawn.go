package nodecompat

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/atomic-go/atomic/internal/proc"
	"github.com/dop251/goja"
)

// spawnChunk bounds one delivery of a child's output to the script.
const spawnChunk = 64 << 10

// child is a program a script started with child_process.spawn.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	mu     sync.Mutex
	done   bool
}

// Spawn starts a program for child_process.spawn (js/child_process.js,
// through the script runtime's natives; the caller has checked the
// program's path and cwd): its output streams to the script through
// callbacks on the loop, one chunk at a time (a reader waits until the
// script has taken its chunk, so output that the script does not keep up
// with stays in the pipe, not in memory), and exit is reported once both
// streams are drained. The child gets its own pipes, never the agent's
// standard streams or descriptors, and is killed when the loop ends.
//
// onEvent(kind, data) is called with ("stdout"|"stderr", string chunk),
// ("exit", code, signal) or ("error", message).
func Spawn(r *goja.Runtime, h Host, file string, args []string, cwd string, env map[string]string, onEvent goja.Callable) goja.Value {
	cmd := exec.Command(file, args...)
	if cwd == "" {
		cwd = Cwd(r) // a child starts in process.cwd(), as in Node
	}
	cmd.Dir = cwd
	proc.Group(cmd)
	if env != nil {
		cmd.Env = make([]string, 0, len(env))
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	c := &child{cmd: cmd, exited: make(chan struct{})}
	obj := r.NewObject()
	emit := func(args ...any) {
		done := make(chan struct{})
		if !h.Run(func(r *goja.Runtime) {
			defer close(done)
			vals := make([]goja.Value, len(args))
			for i, a := range args {
				vals[i] = r.ToValue(a)
			}
			if _, err := onEvent(goja.Undefined(), vals...); err != nil {
				h.Warn("child_process.spawn: a listener failed", err)
			}
		}) {
			close(done)
		}
		select {
		case <-done:
		case <-h.Done():
		}
	}
	stdin, err1 := cmd.StdinPipe()
	stdout, err2 := cmd.StdoutPipe()
	stderr, err3 := cmd.StderrPipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		panic(r.NewGoError(err))
	}
	c.stdin = stdin
	if err := cmd.Start(); err != nil {
		msg := err.Error()
		go emit("error", msg, nodeErrorCodeOf(err))
		_ = obj.Set("pid", goja.Undefined())
		return obj
	}
	_ = obj.Set("pid", cmd.Process.Pid)
	var wg sync.WaitGroup
	pump := func(name string, rd io.Reader) {
		defer wg.Done()
		buf := make([]byte, spawnChunk)
		for {
			n, err := rd.Read(buf)
			if n > 0 {
				emit(name, string(buf[:n]))
			}
			if err != nil {
				return
			}
		}
	}
	wg.Add(2)
	go pump("stdout", stdout)
	go pump("stderr", stderr)
	go func() {
		wg.Wait()
		err := cmd.Wait()
		c.mu.Lock()
		c.done = true
		c.mu.Unlock()
		close(c.exited)
		code, sig := 0, ""
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				code, sig = -1, signalName(ws.Signal())
			} else {
				code = ee.ExitCode()
			}
		}
		emit("exit", code, sig)
	}()
	go func() {
		// The script ending ends its children.
		select {
		case <-h.Done():
			c.kill(syscall.SIGKILL)
		case <-c.exited:
		}
	}()
	_ = obj.Set("kill", func(sig string) bool {
		return c.kill(signalNamed(sig))
	})
	_ = obj.Set("write", func(data string) bool {
		_, err := io.WriteString(c.stdin, data)
		return err == nil
	})
	_ = obj.Set("end", func() { _ = c.stdin.Close() })
	return obj
}

func (c *child) kill(sig syscall.Signal) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done || c.cmd.Process == nil {
		return false
	}
	_ = c.stdin.Close()
	return proc.Signal(c.cmd.Process.Pid, sig) == nil
}

var signalNames = map[string]syscall.Signal{
	"SIGTERM": syscall.SIGTERM, "SIGKILL": syscall.SIGKILL, "SIGINT": syscall.SIGINT, "SIGHUP": syscall.SIGHUP,
	"SIGQUIT": syscall.SIGQUIT, "SIGUSR1": syscall.SIGUSR1, "SIGUSR2": syscall.SIGUSR2,
}

func signalNamed(name string) syscall.Signal {
	if s, ok := signalNames[name]; ok {
		return s
	}
	return syscall.SIGTERM
}

func signalName(sig syscall.Signal) string {
	for n, s := range signalNames {
		if s == sig {
			return n
		}
	}
	return "SIG" + sig.String()
}

func nodeErrorCodeOf(err error) string {
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, exec.ErrNotFound) {
		return "ENOENT"
	}
	code, _ := nodeErrorCode(err)
	return code
}
