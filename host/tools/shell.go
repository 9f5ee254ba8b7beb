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

	"github.com/atomic-go/atomic/internal/proc"
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
	// Shell runs Command (the zero value: UserShell()).
	Shell Shell
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
	// OnOutput, when set, receives every piece of cleaned output as soon
	// as it is read, with the stream it came from (StreamStdout or
	// StreamStderr). stdout and stderr are then read from two pipes, so
	// the merged Output follows the order in which the pieces were read.
	// Calls are serialised, in that same order, and all of them happen
	// before RunShell returns. Empty pieces are not reported.
	OnOutput func(stream, text string)
	// StripCR removes carriage returns from the output (and from what
	// OnOutput receives).
	StripCR bool
	// SpillFile, when set, creates the file that receives the full output
	// once it outgrows MaxBytes (by default a new file in os.TempDir()).
	// The file's Name() is reported as FullOutputPath.
	SpillFile func() (*os.File, error)
	// MaxSpillBytes caps the spill file (0: no cap). When the cap is
	// reached the file ends with a note and SpillCapped is set.
	MaxSpillBytes int64
}

// Streams reported to ShellRequest.OnOutput.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
)

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
	Signaled  bool // the shell died of a signal (ExitCode is then 128+N)
	Cancelled bool // the context was cancelled and the command killed
	TimedOut  bool // the timeout expired and the command was killed
	// TrailingNewline says that the output ended with a newline, which
	// was removed from Output.
	TrailingNewline bool
	// SpillCapped says that the spill file reached MaxSpillBytes and does
	// not hold the whole output.
	SpillCapped bool
}

// Shell is how commands run: the shellPath and shellCommandPrefix
// settings (pi's names). The zero value runs UserShell() with no prefix.
type Shell struct {
	// Path is the shell executable ("~/" is the home directory); it must
	// exist. Empty: UserShell().
	Path string
	// CommandPrefix is put before every command, on a line of its own
	// (pi's way to load aliases or set up the environment).
	CommandPrefix string
}

// Argv returns the program and arguments that run command.
func (s Shell) Argv(command string) (string, []string, error) {
	sh := UserShell()
	if s.Path != "" {
		sh = ResolvePath("", s.Path)
		if fi, err := os.Stat(sh); err != nil || fi.IsDir() {
			return "", nil, fmt.Errorf("Custom shell path not found: %s", s.Path)
		}
	}
	if s.CommandPrefix != "" {
		command = s.CommandPrefix + "\n" + command
	}
	return sh, []string{"-c", command}, nil
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

// RunShell runs req.Command with req.Shell in its own process group,
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
	streams := []string{StreamStdout}
	if req.OnOutput != nil {
		streams = append(streams, StreamStderr)
	}
	var readers, writers []*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			f.Close()
		}
	}
	for range streams {
		pr, pw, err := os.Pipe()
		if err != nil {
			closeAll(readers)
			closeAll(writers)
			return ShellOutput{}, err
		}
		readers, writers = append(readers, pr), append(writers, pw)
	}
	sh, args, err := req.Shell.Argv(req.Command)
	if err != nil {
		return ShellOutput{}, err
	}
	cmd := exec.Command(sh, args...)
	cmd.Dir = req.Cwd
	cmd.Env = append(os.Environ(), req.Env...)
	cmd.Stdout = writers[0]
	cmd.Stderr = writers[len(writers)-1]
	proc.Group(cmd)
	if err := cmd.Start(); err != nil {
		closeAll(readers)
		closeAll(writers)
		return ShellOutput{}, fmt.Errorf("Failed to start shell: %w", err)
	}
	closeAll(writers)
	child := cmd.Process.Pid

	col := newOutputCollector(req, len(streams))
	defer col.close()

	// outMu keeps the pieces of the two streams in one order, both in the
	// merged output and for OnOutput.
	var outMu sync.Mutex
	report := func(i int, text string) {
		if text != "" && req.OnOutput != nil {
			req.OnOutput(streams[i], text)
		}
	}
	// Pieces reported to OnOutput become protocol events that may queue
	// up behind a slow client, so they are read in smaller chunks.
	readSize := 32 * 1024
	if req.OnOutput != nil {
		readSize = 8 * 1024
	}
	var readWG sync.WaitGroup
	for i, pr := range readers {
		readWG.Add(1)
		go func() {
			defer readWG.Done()
			buf := make([]byte, readSize)
			for {
				n, err := pr.Read(buf)
				if n > 0 {
					outMu.Lock()
					report(i, col.write(i, buf[:n]))
					outMu.Unlock()
				}
				if err != nil {
					outMu.Lock()
					report(i, col.flush(i))
					outMu.Unlock()
					return
				}
			}
		}()
	}
	readDone := make(chan struct{})
	go func() {
		readWG.Wait()
		close(readDone)
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
		_ = proc.Signal(child, syscall.SIGKILL)
		waitErr = <-waitDone
	case <-timeout:
		out.TimedOut = true
		_ = proc.Signal(child, syscall.SIGKILL)
		waitErr = <-waitDone
	}
	if out.Cancelled || out.TimedOut {
		// Members of the group forked after the first signal.
		_ = proc.Signal(child, syscall.SIGKILL)
	}

	// Read what is left in the pipe, but do not wait for background
	// processes that still hold it open.
	select {
	case <-readDone:
	case <-time.After(pipeGrace):
		for _, pr := range readers {
			_ = pr.SetReadDeadline(time.Now())
		}
		<-readDone
	}
	closeAll(readers)
	close(stopUpdates)
	<-updatesDone

	final, _ := col.snapshot(true)
	final.Cancelled, final.TimedOut = out.Cancelled, out.TimedOut
	final.ExitCode, final.Signaled = exitCode(waitErr)
	if req.OnUpdate != nil {
		req.OnUpdate(final)
	}
	return final, nil
}

// exitCode returns the exit status of a finished command and whether it
// died of a signal.
func exitCode(err error) (int, bool) {
	if err == nil {
		return 0, false
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			if ws.Signaled() {
				return 128 + int(ws.Signal()), true
			}
			return ws.ExitStatus(), false
		}
		return ee.ExitCode(), false
	}
	return -1, false
}

// outputCollector accumulates cleaned command output: it keeps the tail in
// memory, counts lines and bytes of the whole, and spills everything to a
// file once the output outgrows maxBytes.
type outputCollector struct {
	mu       sync.Mutex
	maxLines int
	maxBytes int
	tailCap  int
	stripCR  bool
	spill    func() (*os.File, error)
	maxFile  int64

	sans    []outputSanitizer // one per stream
	buf     []byte            // tail of the output (all of it unless dropped)
	dropped bool              // buf no longer starts at the beginning of the output

	totalBytes  int
	newlines    int
	curLine     int // bytes after the last newline
	prevLine    int // length of the line ended by the last newline
	changed     bool
	file        *os.File
	fileBytes   int64
	filePath    string
	fileFailed  bool
	fileCapped  bool
	finalResult *ShellOutput
}

func newOutputCollector(req ShellRequest, streams int) *outputCollector {
	maxLines, maxBytes := limitsOrDefault(req.MaxLines, req.MaxBytes)
	spill := req.SpillFile
	if spill == nil {
		spill = func() (*os.File, error) { return os.CreateTemp("", "atomic-bash-*.log") }
	}
	return &outputCollector{
		maxLines: maxLines, maxBytes: maxBytes, tailCap: 2*maxBytes + 4096,
		stripCR: req.StripCR, spill: spill, maxFile: req.MaxSpillBytes,
		sans: make([]outputSanitizer, streams),
	}
}

// write adds a chunk read from stream i and returns its cleaned text.
func (c *outputCollector) write(i int, p []byte) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.add(c.sans[i].Write(p))
}

// flush adds what stream i held back (the stream ended) and returns it.
func (c *outputCollector) flush(i int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.add(c.sans[i].Flush())
}

// add appends cleaned text and returns what was appended; c.mu is held.
func (c *outputCollector) add(text string) string {
	if c.stripCR && strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r", "")
	}
	if text == "" {
		return ""
	}
	if c.file == nil && c.filePath == "" && !c.fileFailed && c.totalBytes+len(text) > c.maxBytes {
		c.openFile()
	}
	if c.file != nil {
		c.writeFile(text)
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
	return text
}

// spillCapNote ends a spill file that reached its size cap.
const spillCapNote = "\n[atomic: output file size limit reached; the rest of the output was not saved]\n"

// writeFile writes text to the spill file, up to the size cap; c.mu is
// held. A file that cannot be written is removed.
func (c *outputCollector) writeFile(text string) {
	capped := false
	if c.maxFile > 0 && c.fileBytes+int64(len(text)) > c.maxFile {
		n := int(c.maxFile - c.fileBytes)
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text, capped = text[:n]+spillCapNote, true
	}
	n, err := c.file.WriteString(text)
	c.fileBytes += int64(n)
	if err != nil {
		c.file.Close()
		os.Remove(c.filePath)
		c.file, c.filePath, c.fileFailed = nil, "", true
		return
	}
	if capped {
		c.file.Close()
		c.file, c.fileCapped = nil, true
	}
}

// openFile creates the spill file and writes the output so far; c.mu is
// held. It is only called while buf still holds the whole output.
func (c *outputCollector) openFile() {
	f, err := c.spill()
	if err != nil {
		c.fileFailed = true
		return
	}
	c.file, c.filePath = f, f.Name()
	c.writeFile(string(c.buf))
}

// snapshot returns the output so far. Unless final, ok is false when
// nothing changed since the last snapshot. A final snapshot flushes the
// sanitizers and makes sure a truncated output has its full copy on disk.
func (c *outputCollector) snapshot(final bool) (ShellOutput, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if final {
		if c.finalResult != nil {
			return *c.finalResult, true
		}
		for i := range c.sans {
			c.add(c.sans[i].Flush())
		}
	} else if !c.changed {
		return ShellOutput{}, false
	}
	c.changed = false

	content := string(c.buf)
	totalBytes, totalLines, lastLine := c.totalBytes, c.newlines+1, c.curLine
	trailingNewline := strings.HasSuffix(content, "\n")
	if trailingNewline {
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
	if final && tr.Truncated && c.filePath == "" && !c.fileFailed && !c.dropped {
		c.openFile()
	}
	if final && c.file != nil {
		c.file.Close()
		c.file = nil
	}
	out := ShellOutput{
		Output: tr.Content, Truncation: tr, FullOutputPath: c.filePath, LastLineBytes: lastLine,
		TrailingNewline: trailingNewline, SpillCapped: c.fileCapped,
	}
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
