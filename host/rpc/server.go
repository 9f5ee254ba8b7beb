package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/internal/jsonw"
)

// Lane says how a command is scheduled.
type Lane int

const (
	// Ordinary commands run one at a time, in arrival order.
	Ordinary Lane = iota
	// Concurrent commands run at once, even while an ordinary command is
	// running (interrupts and independent work).
	Concurrent
	// Quick commands are ordinary commands that never wait (instant reads
	// of the state): when the ordinary lane is idle they run at once on
	// the goroutine that read them, saving the hand-off to the lane.
	// Their order with the other ordinary commands is kept.
	Quick
)

// Handler runs one command. It returns the response data (nil for none,
// Null for an explicit null) or an error for a failure response.
type Handler func(ctx context.Context, s *Server, req *Request) (any, error)

// Command is one entry of the command table.
type Command struct {
	Lane    Lane
	Handler Handler
	// Accept, when set, runs in arrival order before the command is
	// dispatched (so that an interrupt sent right after it finds it); it
	// may leave state for the handler in Request.Accepted.
	Accept func(s *Server, req *Request)
}

// Null is response data that is written as an explicit null.
var Null = json.RawMessage("null")

// RawJSON is response data that is already encoded and is written as it
// is, without encoding/json's re-validation (for large answers, and for
// session trees nested deeper than encoding/json accepts).
type RawJSON []byte

// Option configures a Server.
type Option func(*Server)

// WithCommand adds a command to (or replaces one in) this server's table;
// tests use it for commands of their own.
func WithCommand(name string, c Command) Option {
	return func(s *Server) { s.table[name] = c }
}

// Server serves the protocol for one runtime.
type Server struct {
	b     backend
	out   *Writer
	table map[string]Command // read-only once NewServer returns

	ctx    context.Context
	cancel context.CancelFunc

	ordinary  chan *Request
	lane      laneState
	ordWG     sync.WaitGroup
	concWG    sync.WaitGroup
	unsub     func()
	closeOnce sync.Once

	// inMu guards inClosed: dispatching holds it shared, Shutdown takes it
	// to stop dispatching before it closes the ordinary queue.
	inMu     sync.RWMutex
	inClosed bool

	// StallTimeout bounds how long Shutdown waits for a client that
	// stopped reading stdout: once one write has been blocked that long,
	// the rest of the output is dropped so that the process can exit.
	StallTimeout time.Duration

	// UI routes extension_ui_response records (set by the extension UI
	// bridge).
	UI func(raw json.RawMessage)
	// OnShutdown hooks run, in order, when the input ends, before the
	// runtime is closed (for example to drain direct bash requests).
	OnShutdown []func()

	bash *bashOwners

	// later counts the extension commands still running whose prompt is
	// answered when they finish; at the end of the input they may finish
	// (their dialogs are cancelled) for CommandGrace before the runtime
	// closes and cancels them.
	later inflight
}

// CommandGrace bounds how long the end of the input waits for running
// extension commands before the runtime is closed (which cancels them).
var CommandGrace = 10 * time.Second

// NewServer returns a server writing to out.
func NewServer(rt *app.Runtime, out io.Writer, onWriteErr func(error), opts ...Option) *Server {
	return newServer(runtimeBackend(rt), out, onWriteErr, opts...)
}

// newServer returns a server over a backend (the runtime's areas).
func newServer(b backend, out io.Writer, onWriteErr func(error), opts ...Option) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{b: b, table: commandTable(), ctx: ctx, cancel: cancel, ordinary: make(chan *Request, 1024), StallTimeout: 2 * time.Second}
	for _, o := range opts {
		o(s)
	}
	s.out = NewWriter(out, onWriteErr)
	s.bash = newBashOwners(b.bash)
	s.OnShutdown = append(s.OnShutdown, s.bash.shutdown)
	s.unsub = b.core.Subscribe(s.SendEvent)
	newUIBridge(s)
	s.ordWG.Add(1)
	go s.ordinaryLoop()
	return s
}

// Context is cancelled when the server shuts down.
func (s *Server) Context() context.Context { return s.ctx }

// SendEvent writes one event record.
func (s *Server) SendEvent(ev events.Event) {
	buf, err := events.AppendEncode(make([]byte, 0, 256), ev)
	if err != nil {
		s.b.core.Log().Error("cannot encode event", "type", ev.EventType(), "err", err)
		return
	}
	s.out.SendLine(append(buf, '\n'))
}

// SendRecord writes one arbitrary record (for example an extension UI
// request).
func (s *Server) SendRecord(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.b.core.Log().Error("cannot encode record", "err", err)
		return
	}
	s.out.Send(b)
}

// Serve reads commands from in until EOF or ctx ends, then shuts down:
// queued commands are answered, work in flight is cancelled, and the output
// is flushed.
func (s *Server) Serve(ctx context.Context, in io.Reader) error {
	// Lines are dispatched on the reading goroutine itself (HandleLine only
	// parses and hands the command to its lane), which saves a goroutine
	// hand-off per command; after Shutdown, HandleLine drops what comes.
	readErr := make(chan error, 1)
	go func() {
		readErr <- ReadLines(in, func(line []byte) {
			if ctx.Err() != nil {
				return
			}
			cp := make([]byte, len(line))
			copy(cp, line)
			s.HandleLine(cp)
		})
	}()
	var err error
	select {
	case err = <-readErr:
	case <-ctx.Done():
	}
	s.Shutdown()
	return err
}

// Shutdown stops the server: it cancels UI waits and work in flight, lets
// every accepted command answer, and flushes the output. It returns even
// when the client stopped reading (see StallTimeout). It may be called
// more than once, from any goroutine.
func (s *Server) Shutdown() {
	s.closeOnce.Do(func() {
		s.out.WatchStall(s.StallTimeout)
		s.cancel()
		for _, fn := range s.OnShutdown {
			fn()
		}
		if !s.later.wait(CommandGrace) {
			s.b.core.Log().Warn("extension commands still running at the end of the input are cancelled", "grace", CommandGrace)
		}
		s.b.core.Close()
		s.later.wait(s.StallTimeout) // the cancelled commands' answers
		s.inMu.Lock()
		s.inClosed = true
		close(s.ordinary)
		s.inMu.Unlock()
		s.ordWG.Wait()
		s.concWG.Wait()
		s.unsub()
		_ = s.out.Close()
	})
}

// HandleLine decodes and dispatches one input line. Lines that are not
// commands are answered in turn on the ordinary lane.
func (s *Server) HandleLine(line []byte) {
	req, lerr := ParseCommand(line)
	if lerr != nil {
		s.enqueue(&Request{ID: lerr.ID, fail: lerr})
		return
	}
	if IsUIResponse(req) {
		if s.UI != nil {
			s.UI(req.Raw)
		}
		return
	}
	cmd, ok := s.table[req.Type]
	if !ok {
		req.fail = &LineError{ID: req.ID, Command: req.Type, Err: fmt.Errorf("Unknown command: %s", req.Type)}
		s.enqueue(req)
		return
	}
	if cmd.Lane != Concurrent {
		if cmd.Lane == Quick && s.runInline(cmd, req) {
			return
		}
		if cmd.Accept != nil {
			cmd.Accept(s, req)
		}
		s.enqueue(req)
		return
	}
	s.inMu.RLock()
	defer s.inMu.RUnlock()
	if s.inClosed {
		return
	}
	if cmd.Accept != nil {
		cmd.Accept(s, req)
	}
	s.concWG.Add(1)
	go func() {
		defer s.concWG.Done()
		s.run(cmd, req)
	}()
}

// enqueue hands a request to the ordinary lane; after Shutdown it is
// dropped (there is no output left to answer on).
func (s *Server) enqueue(req *Request) {
	s.inMu.RLock()
	defer s.inMu.RUnlock()
	if s.inClosed {
		return
	}
	s.lane.mu.Lock()
	s.lane.pending++
	s.lane.mu.Unlock()
	s.ordinary <- req
}

// laneState orders the ordinary lane's work between its goroutine and the
// Quick commands run inline.
type laneState struct {
	mu      sync.Mutex
	pending int        // ordinary commands queued or running, inline ones included
	busy    sync.Mutex // held while an ordinary command runs
}

// runInline runs a Quick command on the calling goroutine when no other
// ordinary command is queued or running and no output is waiting to be
// written (the reading goroutine must not block on a client that stopped
// reading), and reports whether it did
// (after Shutdown the command is dropped, as enqueue would drop it).
func (s *Server) runInline(cmd Command, req *Request) bool {
	s.inMu.RLock()
	if s.inClosed {
		s.inMu.RUnlock()
		return true
	}
	s.lane.mu.Lock()
	if s.lane.pending > 0 || s.out.Backlogged() {
		s.lane.mu.Unlock()
		s.inMu.RUnlock()
		return false
	}
	s.lane.pending++
	s.lane.busy.Lock()
	s.lane.mu.Unlock()
	s.concWG.Add(1) // Shutdown waits for it as for a concurrent command
	s.inMu.RUnlock()
	defer s.concWG.Done()
	s.run(cmd, req)
	s.lane.busy.Unlock()
	s.lane.mu.Lock()
	s.lane.pending--
	s.lane.mu.Unlock()
	return true
}

func (s *Server) ordinaryLoop() {
	defer s.ordWG.Done()
	for req := range s.ordinary {
		s.lane.busy.Lock()
		if req.fail != nil {
			s.respond(req, req.fail.Command, nil, req.fail.Err)
		} else {
			cmd := s.table[req.Type]
			s.run(cmd, req)
		}
		s.lane.busy.Unlock()
		s.lane.mu.Lock()
		s.lane.pending--
		s.lane.mu.Unlock()
	}
}

// run executes a handler, recovering from panics so that every command
// gets exactly one response.
func (s *Server) run(cmd Command, req *Request) {
	data, err := s.guard(req, func() (any, error) { return cmd.Handler(s.ctx, s, req) })
	if err == nil && req.later != nil {
		s.later.add()
		go func() {
			defer s.later.done()
			data, err := s.guard(req, req.later)
			s.respond(req, req.Type, data, err)
		}()
		return
	}
	s.respond(req, req.Type, data, err)
	if err == nil && req.after != nil {
		req.after()
	}
}

// guard calls fn, turning a panic into the request's error.
func (s *Server) guard(req *Request, fn func() (any, error)) (data any, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.b.core.Log().Error("command handler panicked", "command", req.Type, "panic", v)
			data, err = nil, fmt.Errorf("internal error while handling %s: %v", req.Type, v)
		}
	}()
	return fn()
}

// inflight counts the requests answered later (Request.Later) that are
// still running.
type inflight struct {
	mu   sync.Mutex
	n    int
	zero chan struct{}
}

func (f *inflight) add() {
	f.mu.Lock()
	if f.n == 0 {
		f.zero = make(chan struct{})
	}
	f.n++
	f.mu.Unlock()
}

func (f *inflight) done() {
	f.mu.Lock()
	f.n--
	if f.n == 0 {
		close(f.zero)
	}
	f.mu.Unlock()
}

// wait waits until none runs, at most d; it reports whether none does.
func (f *inflight) wait(d time.Duration) bool {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return true
	}
	zero := f.zero
	f.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-zero:
		return true
	case <-t.C:
		return false
	}
}

// respond writes the single response of a request. An empty command omits
// the "command" key.
func (s *Server) respond(req *Request, command string, data any, err error) {
	buf := make([]byte, 0, 128)
	buf = append(buf, '{')
	if req.ID != nil {
		buf = append(buf, `"id":`...)
		buf = append(buf, req.ID...)
		buf = append(buf, ',')
	}
	buf = append(buf, `"type":"response"`...)
	if command != "" {
		buf = append(buf, `,"command":`...)
		buf = jsonw.AppendString(buf, command)
	}
	if err != nil {
		buf = append(buf, `,"success":false,"error":`...)
		buf = jsonw.AppendString(buf, err.Error())
	} else {
		buf = append(buf, `,"success":true`...)
		if raw, ok := data.(RawJSON); ok {
			buf = append(make([]byte, 0, len(buf)+len(raw)+16), buf...)
			buf = append(buf, `,"data":`...)
			buf = append(buf, raw...)
		} else if data != nil {
			b, merr := json.Marshal(data)
			if merr != nil {
				s.respond(req, command, nil, fmt.Errorf("cannot encode response: %v", merr))
				return
			}
			buf = append(buf, `,"data":`...)
			buf = append(buf, b...)
		}
	}
	buf = append(buf, '}', '\n')
	s.out.SendLine(buf)
	s.b.core.StartMCP() // MCP servers launch once the first exchange is done
}
