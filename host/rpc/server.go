package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
)

// Lane says how a command is scheduled.
type Lane int

const (
	// Ordinary commands run one at a time, in arrival order.
	Ordinary Lane = iota
	// Concurrent commands run at once, even while an ordinary command is
	// running (interrupts and independent work).
	Concurrent
)

// Handler runs one command. It returns the response data (nil for none,
// Null for an explicit null) or an error for a failure response.
type Handler func(ctx context.Context, s *Server, req *Request) (any, error)

// Command is one entry of the command table.
type Command struct {
	Lane    Lane
	Handler Handler
}

// Null is response data that is written as an explicit null.
var Null = json.RawMessage("null")

var (
	tableMu sync.RWMutex
	table   = map[string]Command{}
)

// Register adds a command to the table. Files of this package register
// their commands in init functions, one file per area of the protocol.
func Register(name string, lane Lane, h Handler) {
	tableMu.Lock()
	defer tableMu.Unlock()
	table[name] = Command{Lane: lane, Handler: h}
}

func lookup(name string) (Command, bool) {
	tableMu.RLock()
	defer tableMu.RUnlock()
	c, ok := table[name]
	return c, ok
}

// Request is one decoded command line.
type Request struct {
	// ID is the raw JSON of the request id, nil when absent.
	ID   json.RawMessage
	Type string
	// Raw is the whole command object.
	Raw json.RawMessage

	after func()
}

// After sets a function that runs once the response has been queued (used
// by prompt so that its acknowledgement precedes the run's events).
func (r *Request) After(fn func()) { r.after = fn }

// Decode unmarshals the command into v, turning type errors into clear
// messages.
func (r *Request) Decode(v any) error {
	if err := json.Unmarshal(r.Raw, v); err != nil {
		return decodeError(err)
	}
	return nil
}

func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return fmt.Errorf("Invalid command: expected %s, got %s", te.Type.String(), te.Value)
		}
		return fmt.Errorf("Invalid command: field %q must be %s, got %s", field, jsonTypeName(te.Type.String()), te.Value)
	}
	return fmt.Errorf("Invalid command: %v", err)
}

func jsonTypeName(goType string) string {
	switch goType {
	case "string", "*string":
		return "a string"
	case "bool", "*bool":
		return "a boolean"
	case "int", "*int", "int64", "float64", "*float64":
		return "a number"
	}
	if len(goType) > 2 && goType[:2] == "[]" {
		return "an array"
	}
	return "an object"
}

// MissingField is the error for a required field that is absent.
func MissingField(name string) error {
	return fmt.Errorf("Invalid command: missing required field %q", name)
}

// Server serves the protocol for one runtime.
type Server struct {
	rt  *app.Runtime
	out *Writer

	ctx    context.Context
	cancel context.CancelFunc

	ordinary  chan *Request
	ordWG     sync.WaitGroup
	concWG    sync.WaitGroup
	unsub     func()
	closeOnce sync.Once

	// UI routes extension_ui_response records (set by the extension UI
	// bridge).
	UI func(raw json.RawMessage)
	// OnShutdown hooks run, in order, when the input ends, before the
	// runtime is closed (for example to drain direct bash requests).
	OnShutdown []func()
}

// NewServer returns a server writing to out.
func NewServer(rt *app.Runtime, out io.Writer, onWriteErr func(error)) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{rt: rt, ctx: ctx, cancel: cancel, ordinary: make(chan *Request, 1024)}
	s.out = NewWriter(out, onWriteErr)
	s.unsub = rt.Subscribe(s.SendEvent)
	newUIBridge(s)
	s.ordWG.Add(1)
	go s.ordinaryLoop()
	return s
}

// Runtime returns the runtime being served.
func (s *Server) Runtime() *app.Runtime { return s.rt }

// Context is cancelled when the server shuts down.
func (s *Server) Context() context.Context { return s.ctx }

// SendEvent writes one event record.
func (s *Server) SendEvent(ev events.Event) {
	buf, err := events.AppendEncode(make([]byte, 0, 256), ev)
	if err != nil {
		s.rt.Log().Error("cannot encode event", "type", ev.EventType(), "err", err)
		return
	}
	s.out.SendLine(append(buf, '\n'))
}

// SendRecord writes one arbitrary record (for example an extension UI
// request).
func (s *Server) SendRecord(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.rt.Log().Error("cannot encode record", "err", err)
		return
	}
	s.out.Send(b)
}

// Serve reads commands from in until EOF or ctx ends, then shuts down:
// queued commands are answered, work in flight is cancelled, and the output
// is flushed.
func (s *Server) Serve(ctx context.Context, in io.Reader) error {
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		readErr <- ReadLines(in, func(line []byte) {
			cp := make([]byte, len(line))
			copy(cp, line)
			select {
			case lines <- cp:
			case <-ctx.Done():
			}
		})
		close(lines)
	}()
	var err error
loop:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				err = <-readErr
				break loop
			}
			s.HandleLine(line)
		case <-ctx.Done():
			break loop
		}
	}
	s.Shutdown()
	return err
}

// Shutdown stops the server: it cancels UI waits and work in flight, lets
// every accepted command answer, and flushes the output.
func (s *Server) Shutdown() {
	s.closeOnce.Do(func() {
		s.cancel()
		s.rt.Close()
		close(s.ordinary)
		s.ordWG.Wait()
		for _, fn := range s.OnShutdown {
			fn()
		}
		s.concWG.Wait()
		s.unsub()
		_ = s.out.Close()
	})
}

// HandleLine decodes and dispatches one input line.
func (s *Server) HandleLine(line []byte) {
	if isBlank(line) || !json.Valid(line) {
		s.respondParseError(line)
		return
	}
	var env struct {
		ID   json.RawMessage `json:"id"`
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		s.respond(&Request{}, "unknown", nil, errors.New("Invalid command: a command must be a JSON object"))
		return
	}
	req := &Request{ID: compactID(env.ID), Raw: line}
	if env.Type == nil {
		s.respond(req, "", nil, errors.New("Unknown command: undefined"))
		return
	}
	if err := json.Unmarshal(env.Type, &req.Type); err != nil {
		s.respond(req, "unknown", nil, errors.New("Invalid command: field \"type\" must be a string"))
		return
	}
	if req.Type == "extension_ui_response" {
		if s.UI != nil {
			s.UI(line)
		}
		return
	}
	cmd, ok := lookup(req.Type)
	if !ok {
		s.respond(req, req.Type, nil, fmt.Errorf("Unknown command: %s", req.Type))
		return
	}
	if cmd.Lane == Concurrent {
		s.concWG.Add(1)
		go func() {
			defer s.concWG.Done()
			s.run(cmd, req)
		}()
		return
	}
	s.ordinary <- req
}

func (s *Server) ordinaryLoop() {
	defer s.ordWG.Done()
	for req := range s.ordinary {
		cmd, _ := lookup(req.Type)
		s.run(cmd, req)
	}
}

// run executes a handler, recovering from panics so that every command
// gets exactly one response.
func (s *Server) run(cmd Command, req *Request) {
	var data any
	var err error
	func() {
		defer func() {
			if v := recover(); v != nil {
				s.rt.Log().Error("command handler panicked", "command", req.Type, "panic", v)
				err = fmt.Errorf("internal error while handling %s: %v", req.Type, v)
				data = nil
			}
		}()
		data, err = cmd.Handler(s.ctx, s, req)
	}()
	s.respond(req, req.Type, data, err)
	if err == nil && req.after != nil {
		req.after()
	}
}

func (s *Server) respondParseError(line []byte) {
	var v any
	msg := "Unexpected end of JSON input"
	if len(line) > 0 && !isBlank(line) {
		if err := json.Unmarshal(line, &v); err != nil {
			msg = err.Error()
		}
	}
	s.respond(&Request{}, "parse", nil, errors.New("Failed to parse command: "+msg))
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
		buf = llm.AppendString(buf, command)
	}
	if err != nil {
		buf = append(buf, `,"success":false,"error":`...)
		buf = llm.AppendString(buf, err.Error())
	} else {
		buf = append(buf, `,"success":true`...)
		if data != nil {
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
}

func compactID(id json.RawMessage) json.RawMessage {
	if id == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, id); err != nil {
		return id
	}
	return buf.Bytes()
}
