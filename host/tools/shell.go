package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// ShellUpdateInterval is the minimum time between two progress updates of a
// running shell command.
const ShellUpdateInterval = 50 * time.Millisecond

// pipeGrace is how long output is still read after the shell has exited,
// for background processes that keep the output pipe open.
const pipeGrace = 500 * time.Millisecond

// ShellRequest describes a command to run with RunShell.
type ShellRequest struct {
	Command string
	// Cwd is the working directory; it must exist.
	Cwd string
	// Env holds extra KEY=VALUE pairs added to the current environment.
	Env []string
	// Timeout kills the command after this long; 0 means no limit.
	Timeout time.Duration
	// MaxLines and MaxBytes bound Output (<= 0 means the defaults).
	MaxLines, MaxBytes int
	// OnUpdate, when set, receives the output so far while the command
	// runs (at most every ShellUpdateInterval) and once more at the end.
	// It is called from one goroutine at a time.
	OnUpdate func(ShellOutput)
}

// ShellOutput is the (partial or final) outcome of RunShell.
type ShellOutput struct {
	// Output is the end of the cleaned, merged stdout and stderr, cut with
	// TruncateTail; one trailing newline is removed.
	Output     string
	Truncation Truncation
	// FullOutputPath names a temporary file (mode 0600) holding the whole
	// cleaned output; it is set once the output grows beyond MaxBytes and
	// whenever the final output was truncated.
	FullOutputPath string
	// LastLineBytes is the size of the last output line (useful when
	// Truncation.LastLinePartial is set).
	LastLineBytes int
	// ExitCode is the shell's exit status; 128+N when it died of signal N.
	ExitCode  int
	Cancelled bool // the context was cancelled and the command killed
	TimedOut  bool // the timeout expired and the command was killed
}

// UserShell returns the shell used to run commands: $SHELL when it is a
// POSIX-style shell (sh, bash, zsh, dash, ksh, ash), else bash, else sh.
func UserShell() string {
	if sh := os.Getenv("SHELL"); sh != "" && filepath.IsAbs(sh) {
		switch filepath.Base(sh) {
		case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash":
			if isExecutable(sh) {
				return sh
			}
		}
	}
	for _, sh := range []string{"/bin/bash", "/usr/bin/bash", "/bin/sh"} {
		if isExecutable(sh) {
			return sh
		}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	if p, err := exec.LookPath("sh"); err == nil {
		return p
	}
	return "/bin/sh"
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// RunShell runs req.Command with UserShell() -c in its own process group,
// with stdin from /dev/null and stdout and stderr merged. When ctx is
// cancelled or the timeout expires the whole process group is killed and
// RunShell returns promptly with Cancelled or TimedOut set. A non-zero exit
// status is reported in ExitCode, not as an error; the error is only for a
// command that could not be started (or ErrAborted when ctx was already
// done).
func RunShell(ctx context.Context, req ShellRequest) (ShellOutput, error) {
	if err := aborted(ctx); err != nil {
		return ShellOutput{}, err
	}
	if fi, err := os.Stat(req.Cwd); err != nil || !fi.IsDir() {
		return ShellOutput{}, fmt.Errorf("Working directory does not exist: %s", req.Cwd)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return ShellOutput{}, err
	}
	cmd := exec.Command(UserShell(), "-c", req.Command)
	cmd.Dir = req.Cwd
	cmd.Env = append(os.Environ(), req.Env...)
	cmd.Stdout = pw
	cmd.Stderr = pw
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return ShellOutput{}, fmt.Errorf("Failed to start shell: %v", err)
	}
	pw.Close()
	proc := cmd.Process

	col := newOutputCollector(req.MaxLines, req.MaxBytes)
	defer col.close()

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32*1024)
		for {
			n, err := pr.Read(buf)
			if n > 0 {
				col.write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()

	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	stopUpdates := make(chan struct{})
	updatesDone := make(chan struct{})
	go func() {
		defer close(updatesDone)
		if req.OnUpdate == nil {
			return
		}
		t := time.NewTicker(ShellUpdateInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if snap, ok := col.snapshot(false); ok {
					req.OnUpdate(snap)
				}
			case <-stopUpdates:
				return
			}
		}
	}()

	var timeout <-chan time.Time
	if req.Timeout > 0 {
		timer := time.NewTimer(req.Timeout)
		defer timer.Stop()
		timeout = timer.C
	}

	var out ShellOutput
	var waitErr error
	select {
	case waitErr = <-waitDone:
	case <-ctx.Done():
		out.Cancelled = true
		killGroup(proc)
		waitErr = <-waitDone
	case <-timeout:
		out.TimedOut = true
		killGroup(proc)
		waitErr = <-waitDone
	}
	if out.Cancelled || out.TimedOut {
		// Members of the group forked after the first signal.
		killGroup(proc)
	}

	// Read what is left in the pipe, but do not wait for background
	// processes that still hold it open.
	select {
	case <-readDone:
	case <-time.After(pipeGrace):
		_ = pr.SetReadDeadline(time.Now())
		<-readDone
	}
	pr.Close()
	close(stopUpdates)
	<-updatesDone

	final, _ := col.snapshot(true)
	final.Cancelled, final.TimedOut = out.Cancelled, out.TimedOut
	final.ExitCode = exitCode(waitErr)
	if req.OnUpdate != nil {
		req.OnUpdate(final)
	}
	return final, nil
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			if ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ws.ExitStatus()
		}
		return ee.ExitCode()
	}
	return -1
}

// outputCollector accumulates cleaned command output: it keeps the tail in
// memory, counts lines and bytes of the whole, and spills everything to a
// temporary file once the output outgrows maxBytes.
type outputCollector struct {
	mu       sync.Mutex
	maxLines int
	maxBytes int
	tailCap  int

	san     outputSanitizer
	buf     []byte // tail of the output (all of it unless dropped)
	dropped bool   // buf no longer starts at the beginning of the output

	totalBytes  int
	newlines    int
	curLine     int // bytes after the last newline
	prevLine    int // length of the line ended by the last newline
	changed     bool
	file        *os.File
	filePath    string
	fileFailed  bool
	finalResult *ShellOutput
}

func newOutputCollector(maxLines, maxBytes int) *outputCollector {
	maxLines, maxBytes = limitsOrDefault(maxLines, maxBytes)
	return &outputCollector{maxLines: maxLines, maxBytes: maxBytes, tailCap: 2*maxBytes + 4096}
}

func (c *outputCollector) write(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.add(c.san.Write(p))
}

// add appends cleaned text; c.mu is held.
func (c *outputCollector) add(text string) {
	if text == "" {
		return
	}
	if c.file == nil && !c.fileFailed && c.totalBytes+len(text) > c.maxBytes {
		c.openFile()
	}
	if c.file != nil {
		if _, err := c.file.WriteString(text); err != nil {
			c.file.Close()
			c.file = nil
			c.filePath = ""
			c.fileFailed = true
		}
	}
	c.totalBytes += len(text)
	for rest := text; ; {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			c.curLine += len(rest)
			break
		}
		c.newlines++
		c.prevLine = c.curLine + i
		c.curLine = 0
		rest = rest[i+1:]
	}
	c.buf = append(c.buf, text...)
	c.changed = true
	if len(c.buf) > 2*c.tailCap {
		cut := len(c.buf) - c.tailCap
		for cut < len(c.buf) && !utf8.RuneStart(c.buf[cut]) {
			cut++
		}
		c.buf = append(c.buf[:0], c.buf[cut:]...)
		c.dropped = true
	}
}

// openFile creates the spill file and writes the output so far; c.mu is
// held. It is only called while buf still holds the whole output.
func (c *outputCollector) openFile() {
	f, err := os.CreateTemp("", "atomic-bash-*.log")
	if err != nil {
		c.fileFailed = true
		return
	}
	if _, err := f.Write(c.buf); err != nil {
		f.Close()
		os.Remove(f.Name())
		c.fileFailed = true
		return
	}
	c.file = f
	c.filePath = f.Name()
}

// snapshot returns the output so far. Unless final, ok is false when
// nothing changed since the last snapshot. A final snapshot flushes the
// sanitizer and makes sure a truncated output has its full copy on disk.
func (c *outputCollector) snapshot(final bool) (ShellOutput, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if final {
		if c.finalResult != nil {
			return *c.finalResult, true
		}
		c.add(c.san.Flush())
	} else if !c.changed {
		return ShellOutput{}, false
	}
	c.changed = false

	content := string(c.buf)
	totalBytes, totalLines, lastLine := c.totalBytes, c.newlines+1, c.curLine
	if strings.HasSuffix(content, "\n") {
		content = content[:len(content)-1]
		totalBytes--
		totalLines--
		lastLine = c.prevLine
	}
	tr := TruncateTail(content, c.maxLines, c.maxBytes)
	if c.dropped {
		tr.Truncated = true
		tr.TotalBytes = totalBytes
		tr.TotalLines = totalLines
	}
	if final && tr.Truncated && c.file == nil && !c.fileFailed && !c.dropped {
		c.openFile()
	}
	if final && c.file != nil {
		c.file.Close()
		c.file = nil
	}
	out := ShellOutput{Output: tr.Content, Truncation: tr, FullOutputPath: c.filePath, LastLineBytes: lastLine}
	if final {
		c.finalResult = &out
	}
	return out, true
}

func (c *outputCollector) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file != nil {
		c.file.Close()
		c.file = nil
	}
}
