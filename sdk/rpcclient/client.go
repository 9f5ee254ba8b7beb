package rpcclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// DefaultRequestTimeout is the deadline of a quick command when
// Options.RequestTimeout is zero.
const DefaultRequestTimeout = 30 * time.Second

// DefaultStopTimeout is how long Stop waits after SIGTERM before it sends
// SIGKILL when Options.StopTimeout is zero.
const DefaultStopTimeout = time.Second

// DefaultStderrLimit is how many bytes of the agent's stderr the client
// keeps (the most recent ones) when Options.StderrLimit is zero.
const DefaultStderrLimit = 256 << 10

// Options configure the agent process and the client.
type Options struct {
	// Executable is the agent binary: a path, or a name looked up in PATH.
	// The default is "atomic".
	Executable string
	// Args are appended after "--mode rpc" and the --provider/--model
	// flags.
	Args []string
	// NoModeFlag leaves out "--mode rpc", for binaries that serve the
	// protocol without it.
	NoModeFlag bool
	// Provider and Model, when set, are passed as --provider and --model.
	Provider string
	Model    string
	// Env holds KEY=VALUE entries added to the client's own environment
	// (a later entry wins over an earlier one with the same key).
	Env []string
	// ReplaceEnv makes Env the agent's whole environment.
	ReplaceEnv bool
	// Dir is the agent's working directory (the client's when empty).
	Dir string

	// RequestTimeout bounds quick commands (see LongLived). Zero means
	// DefaultRequestTimeout; a negative value means no deadline.
	RequestTimeout time.Duration
	// StopTimeout is the grace period between SIGTERM and SIGKILL in
	// Stop. Zero means DefaultStopTimeout.
	StopTimeout time.Duration

	// UIHandler answers extension UI requests (see UIHandler).
	UIHandler UIHandler
	// Stderr, when set, receives a copy of everything the agent writes to
	// its stderr.
	Stderr io.Writer
	// StderrLimit is how many of the most recent stderr bytes are kept
	// for Client.Stderr and error messages. Zero means
	// DefaultStderrLimit.
	StderrLimit int
	// OnLine, when set, sees every line the agent writes to stdout (with
	// its LF) before it is dispatched. It runs on the reading goroutine:
	// it must return quickly and must not keep line.
	OnLine func(line []byte)
}

// Client is a running agent process. Its methods are safe for concurrent
// use.
type Client struct {
	opts    Options
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	writeMu sync.Mutex
	stderr  *tailBuffer

	mu        sync.Mutex
	pending   map[string]*pendingCall
	nextID    uint64
	subs      map[*Subscription]struct{}
	bashOut   map[string]func(BashUpdate)
	inClosed  bool
	exitState *os.ProcessState
	exitErr   error // set once the process is gone; fails new calls

	readerDone chan struct{} // stdout was read to its end
	exited     chan struct{} // the process was reaped
	done       chan struct{} // both, and pending calls were failed

	ctx    context.Context // cancelled when the process is gone
	cancel context.CancelFunc
	uiWG   sync.WaitGroup
}

type pendingCall struct {
	command string
	ch      chan *Response
}

// Start launches the agent and returns a client for it. The process runs
// until it exits on its own, Stop is called, or CloseInput ends its input.
func Start(opts Options) (*Client, error) {
	exe := opts.Executable
	if exe == "" {
		exe = "atomic"
	}
	var args []string
	if !opts.NoModeFlag {
		args = append(args, "--mode", "rpc")
	}
	if opts.Provider != "" {
		args = append(args, "--provider", opts.Provider)
	}
	if opts.Model != "" {
		args = append(args, "--model", opts.Model)
	}
	args = append(args, opts.Args...)
	cmd := exec.Command(exe, args...)
	cmd.Dir = opts.Dir
	if opts.ReplaceEnv {
		cmd.Env = append([]string{}, opts.Env...)
	} else {
		cmd.Env = append(os.Environ(), opts.Env...)
	}
	limit := opts.StderrLimit
	if limit <= 0 {
		limit = DefaultStderrLimit
	}
	c := &Client{
		opts:       opts,
		cmd:        cmd,
		stderr:     &tailBuffer{limit: limit, copyTo: opts.Stderr},
		pending:    map[string]*pendingCall{},
		subs:       map[*Subscription]struct{}{},
		bashOut:    map[string]func(BashUpdate){},
		readerDone: make(chan struct{}),
		exited:     make(chan struct{}),
		done:       make(chan struct{}),
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// A plain pipe rather than StdoutPipe: Wait closes StdoutPipe's read
	// end as soon as the process is reaped, which could lose the last
	// records before they are read.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = outW
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		outR.Close()
		outW.Close()
		stdin.Close()
		c.cancel()
		return nil, fmt.Errorf("rpcclient: start %s: %w", exe, err)
	}
	outW.Close()
	c.stdin = stdin
	go c.readLoop(outR)
	go c.waitLoop()
	return c, nil
}

// PID returns the agent's process id.
func (c *Client) PID() int { return c.cmd.Process.Pid }

// Process returns the agent's OS process (to send it signals).
func (c *Client) Process() *os.Process { return c.cmd.Process }

// Stderr returns the most recent bytes the agent wrote to stderr (up to
// Options.StderrLimit).
func (c *Client) Stderr() string { return c.stderr.String() }

// Done is closed once the agent process has exited, its stdout was read
// to the end (or could not be within half a second of the exit) and every
// pending call has failed.
func (c *Client) Done() <-chan struct{} { return c.done }

// Wait waits until the process has exited (see Done) and returns its
// state, or ctx's error if ctx ends first.
func (c *Client) Wait(ctx context.Context) (*os.ProcessState, error) {
	select {
	case <-c.done:
		return c.exitState, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// CloseInput closes the agent's stdin. An agent that follows the protocol
// finishes (cancelling work in flight) and exits with status 0.
func (c *Client) CloseInput() error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.mu.Lock()
	already := c.inClosed
	c.inClosed = true
	c.mu.Unlock()
	if already {
		return nil
	}
	return c.stdin.Close()
}

// Stop ends the agent: SIGTERM, then SIGKILL if it has not exited after
// Options.StopTimeout. It returns once the process is gone and its output
// was read (ctx only bounds the waiting; the process is killed anyway).
// Stopping an agent that has already exited does nothing.
func (c *Client) Stop(ctx context.Context) error {
	select {
	case <-c.done:
		return nil
	default:
	}
	grace := c.opts.StopTimeout
	if grace <= 0 {
		grace = DefaultStopTimeout
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.exited:
	case <-t.C:
		_ = c.cmd.Process.Kill()
	case <-ctx.Done():
		_ = c.cmd.Process.Kill()
	}
	_ = c.CloseInput()
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Kill sends SIGKILL to the agent at once and waits for Done.
func (c *Client) Kill() {
	_ = c.cmd.Process.Kill()
	_ = c.CloseInput()
	<-c.done
}

func (c *Client) waitLoop() {
	_ = c.cmd.Wait()
	c.mu.Lock()
	c.exitState = c.cmd.ProcessState
	c.mu.Unlock()
	close(c.exited)
	// Give the reader a moment to deliver what is left in the pipe (a
	// grandchild holding stdout open must not keep the calls waiting).
	t := time.NewTimer(500 * time.Millisecond)
	select {
	case <-c.readerDone:
	case <-t.C:
	}
	t.Stop()
	err := &ExitError{State: c.exitState, Stderr: c.stderr.String()}
	c.mu.Lock()
	c.exitErr = err
	pending := c.pending
	c.pending = map[string]*pendingCall{}
	c.mu.Unlock()
	for _, p := range pending {
		close(p.ch) // the waiter reads c.exitErr
	}
	c.cancel()
	c.uiWG.Wait()
	_ = c.CloseInput()
	// The reader may still be blocked when a grandchild holds stdout;
	// subscribers are closed when it finishes.
	go func() {
		<-c.readerDone
		c.closeSubs()
	}()
	close(c.done)
}

func (c *Client) readLoop(r io.ReadCloser) {
	defer close(c.readerDone)
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			long = append(long, chunk...)
			line, long = long, nil
		}
		if len(line) > 0 {
			c.handleLine(line)
		}
		if err != nil {
			return
		}
	}
}

// envelope is what the dispatcher needs to know about a record.
type envelope struct {
	Type string          `json:"type"`
	ID   json.RawMessage `json:"id"`
}

func (c *Client) handleLine(line []byte) {
	if c.opts.OnLine != nil {
		c.opts.OnLine(line)
	}
	body := bytes.TrimRight(line, "\r\n")
	var env envelope
	if len(body) == 0 || json.Unmarshal(body, &env) != nil {
		return // not a protocol record; the reference clients ignore these too
	}
	id := ""
	if len(env.ID) > 0 && env.ID[0] == '"' {
		_ = json.Unmarshal(env.ID, &id)
	}
	switch env.Type {
	case "response":
		if id != "" {
			c.mu.Lock()
			p := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if p != nil {
				var resp Response
				if err := json.Unmarshal(body, &resp); err != nil {
					resp = Response{ID: id, Type: "response", Command: p.command, Error: "rpcclient: undecodable response: " + err.Error()}
				}
				p.ch <- &resp
				return
			}
		}
	case "bash_execution_update":
		if id != "" {
			c.mu.Lock()
			fn := c.bashOut[id]
			c.mu.Unlock()
			if fn != nil {
				var u BashUpdate
				if json.Unmarshal(body, &u) == nil {
					fn(u)
				}
			}
		}
	case "extension_ui_request":
		if h := c.opts.UIHandler; h != nil {
			var req UIRequest
			if json.Unmarshal(body, &req) == nil {
				req.Raw = append(json.RawMessage(nil), body...)
				c.handleUI(h, req)
			}
		}
	}
	c.publish(Event{Type: env.Type, Raw: append(json.RawMessage(nil), body...)})
}

func (c *Client) handleUI(h UIHandler, req UIRequest) {
	c.mu.Lock()
	if c.exitErr != nil {
		c.mu.Unlock()
		return
	}
	c.uiWG.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.uiWG.Done()
		resp, answer := h(c.ctx, req)
		if !answer || !req.IsDialog() || c.ctx.Err() != nil {
			return
		}
		_ = c.RespondUI(req.ID, resp)
	}()
}

// Call sends one command and waits for its response. cmd is anything that
// encodes to a JSON object with a string "type" (a map, or a struct); an
// "id" it carries (a string) is used as the request id, else the client
// makes one up. The response is returned even when it reports a failure,
// together with a *CommandError. Quick commands fail with a *TimeoutError
// after Options.RequestTimeout (see LongLived).
func (c *Client) Call(ctx context.Context, cmd any) (*Response, error) {
	line, id, typ, err := c.encode(cmd)
	if err != nil {
		return nil, err
	}
	return c.roundTrip(ctx, line, id, typ)
}

func (c *Client) encode(cmd any) (line []byte, id, typ string, err error) {
	raw, err := json.Marshal(cmd)
	if err != nil {
		return nil, "", "", fmt.Errorf("rpcclient: encode command: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, "", "", fmt.Errorf("rpcclient: a command must be a JSON object: %w", err)
	}
	if err := json.Unmarshal(fields["type"], &typ); err != nil || typ == "" {
		return nil, "", "", errors.New(`rpcclient: a command needs a string "type"`)
	}
	if rawID, ok := fields["id"]; ok {
		if err := json.Unmarshal(rawID, &id); err != nil || id == "" {
			return nil, "", "", errors.New(`rpcclient: a command's "id" must be a non-empty string`)
		}
		return raw, id, typ, nil
	}
	id = c.NewID()
	idJSON, _ := json.Marshal(id)
	// Put the id first, as the reference clients do; the rest is kept
	// byte for byte.
	line = make([]byte, 0, len(raw)+len(idJSON)+8)
	line = append(line, `{"id":`...)
	line = append(line, idJSON...)
	if len(fields) > 0 {
		line = append(line, ',')
		line = append(line, bytes.TrimSpace(raw)[1:]...)
	} else {
		line = append(line, '}')
	}
	return line, id, typ, nil
}

// NewID returns a fresh request id ("req_<n>"), for commands whose id the
// caller needs before the response (such as a bash command to abort).
func (c *Client) NewID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return "req_" + strconv.FormatUint(c.nextID, 10)
}

func (c *Client) roundTrip(ctx context.Context, line []byte, id, typ string) (*Response, error) {
	p := &pendingCall{command: typ, ch: make(chan *Response, 1)}
	c.mu.Lock()
	if c.exitErr != nil {
		err := c.exitErr
		c.mu.Unlock()
		return nil, callErr(err, typ)
	}
	if _, dup := c.pending[id]; dup {
		c.mu.Unlock()
		return nil, fmt.Errorf("rpcclient: request id %q is already waiting for a response", id)
	}
	c.pending[id] = p
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		if c.pending[id] == p {
			delete(c.pending, id)
		}
		c.mu.Unlock()
	}
	if err := c.writeLine(line); err != nil {
		forget()
		c.mu.Lock()
		exitErr := c.exitErr
		c.mu.Unlock()
		if exitErr != nil {
			return nil, callErr(exitErr, typ)
		}
		return nil, fmt.Errorf("rpcclient: send %s: %w", typ, err)
	}
	var timeout <-chan time.Time
	if d := c.requestTimeout(); d > 0 && !LongLived(typ) {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case resp, ok := <-p.ch:
		if !ok {
			c.mu.Lock()
			err := c.exitErr
			c.mu.Unlock()
			return nil, callErr(err, typ)
		}
		if !resp.Success {
			return resp, &CommandError{Command: resp.Command, Message: resp.Error, Code: resp.ErrorCode, Details: resp.ErrorDetails}
		}
		return resp, nil
	case <-timeout:
		forget()
		return nil, &TimeoutError{Command: typ, After: c.requestTimeout(), Stderr: c.stderr.String()}
	case <-ctx.Done():
		forget()
		return nil, fmt.Errorf("rpcclient: %s: %w", typ, ctx.Err())
	}
}

func callErr(exit error, typ string) error {
	var ee *ExitError
	if errors.As(exit, &ee) {
		cp := *ee
		cp.Command = typ
		return &cp
	}
	return exit
}

func (c *Client) requestTimeout() time.Duration {
	switch d := c.opts.RequestTimeout; {
	case d < 0:
		return 0
	case d == 0:
		return DefaultRequestTimeout
	default:
		return d
	}
}

// SendRaw writes data to the agent's stdin as it is, with no id and no
// waiting (malformed input for tests, or records that get no response).
// Write whole lines: data is written in one piece, never interleaved with
// other commands.
func (c *Client) SendRaw(data []byte) error {
	return c.writeLine(data)
}

func (c *Client) writeLine(line []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.mu.Lock()
	closed := c.inClosed
	c.mu.Unlock()
	if closed {
		return errors.New("rpcclient: the agent's input is closed")
	}
	if len(line) > 0 && line[len(line)-1] == '\n' {
		_, err := c.stdin.Write(line)
		return err
	}
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	_, err := c.stdin.Write(buf)
	return err
}

// LongLived reports whether a command has no deadline of its own: it may
// rightly take as long as the work it starts or waits for (the reference
// client's list).
func LongLived(command string) bool {
	switch command {
	case "prompt", "steer", "follow_up", "abort", "abort_bash", "abort_compaction", "abort_retry",
		"cancel_login_provider", "login_provider", "bash", "user_bash", "compact",
		"new_session", "switch_session", "import_session", "fork", "clone", "navigate_tree",
		"invoke_shortcut", "mcp_reconnect":
		return true
	}
	return false
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu     sync.Mutex
	buf    []byte
	limit  int
	copyTo io.Writer
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		// Keep the tail; compact occasionally rather than on every write.
		if over > b.limit/4 || cap(b.buf) > 2*b.limit {
			b.buf = append(b.buf[:0:0], b.buf[over:]...)
		}
	}
	w := b.copyTo
	b.mu.Unlock()
	if w != nil {
		_, _ = w.Write(p)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf
	if len(s) > b.limit {
		s = s[len(s)-b.limit:]
	}
	return string(s)
}
