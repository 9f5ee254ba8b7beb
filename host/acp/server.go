// Package acp is the Agent Client Protocol front end (--mode acp): JSON-RPC
// 2.0 on stdio, protocol version 1, over the same session runtime as
// host/rpc. The protocol's types and its JSON-RPC connection come from
// github.com/coder/acp-go-sdk; this package checks every input line's
// envelope first (the SDK drops malformed lines without an answer), maps
// the runtime's events to session/update notifications, and turns
// extension dialogs into session/request_permission requests. Everything
// it writes goes through one host/jsonl writer.
package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/jsonl"
)

// maxLine bounds one input message: the SDK's reader gives up on the whole
// connection past 10 MiB, so longer lines are refused here, one by one.
const maxLine = 8 << 20

// Options configure a server.
type Options struct {
	// Version is the agent's version in initialize's agentInfo.
	Version string
	// StallTimeout bounds the wait for a client that stopped reading at
	// shutdown (default 2 s).
	StallTimeout time.Duration
}

// Server serves ACP for one runtime.
type Server struct {
	rt   runtime
	out  *jsonl.Writer
	conn *sdk.AgentSideConnection
	opts Options

	ctx    context.Context
	cancel context.CancelFunc

	mu         sync.Mutex
	clientCaps sdk.ClientCapabilities
	announced  map[string]bool // session ids the client was given
	turn       *turn           // the prompt being served, or nil
	tools      map[string]*toolState
	streaming  map[int]string    // content index -> id of the tool calls of the message streaming
	msgCalls   []string          // the tool calls announced in the message streaming
	lastTool   string            // the tool call last announced and not finished
	always     map[string]string // the session's "always" answers to dialogs (see alwaysKey)
	cost       float64
	starts     map[string]bool   // ids of session/new, load and resume requests not answered yet
	unanswered map[string]bool   // ids of requests not answered yet
	prompting  map[string]string // session id -> id of its session/prompt not answered yet
	drained    chan struct{}     // closed when unanswered becomes empty (set by Shutdown)

	unsub func()
}

// turn is one session/prompt in progress.
type turn struct {
	sessionID string
	cancelled bool
	done      chan struct{} // closed by session/cancel
	lastStop  string
	lastError string
	refused   bool // the last reply was a refusal
	limited   bool // the run stopped at maxTurnRequests
}

// New returns a server writing to out; onWriteErr is called once when a
// write fails (the client went away).
func New(rt *app.Runtime, out io.Writer, onWriteErr func(error), opts Options) *Server {
	if opts.StallTimeout == 0 {
		opts.StallTimeout = 2 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{rt: rt, out: jsonl.NewWriter(out, onWriteErr), opts: opts, ctx: ctx, cancel: cancel,
		announced: map[string]bool{}, starts: map[string]bool{}, unanswered: map[string]bool{}, prompting: map[string]string{}, tools: map[string]*toolState{}, streaming: map[int]string{}, always: map[string]string{}}
	return s
}

// lineWriter hands each message the SDK writes (one marshalled line, never
// reused) to the single writer.
// After the response to session/new, load or resume it sends the
// session's available commands (the client knows the session id by then).
type lineWriter struct{ s *Server }

func (l lineWriter) Write(b []byte) (int, error) {
	s := l.s
	var r struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(b, &r)
	started := false
	if r.Method == "" && len(r.ID) > 0 {
		s.mu.Lock()
		started = s.starts[string(r.ID)]
		delete(s.starts, string(r.ID))
		delete(s.unanswered, string(r.ID))
		for sid, pid := range s.prompting {
			if pid == string(r.ID) {
				delete(s.prompting, sid)
			}
		}
		if len(s.unanswered) == 0 && s.drained != nil {
			close(s.drained)
			s.drained = nil
		}
		s.mu.Unlock()
	}
	if r.Method == sdk.ClientMethodElicitationCreate {
		b = s.scopeElicitation(b)
	}
	s.out.SendLine(b)
	if started && len(r.Result) > 0 {
		s.sendCommands(s.rt.State().SessionID)
	}
	return len(b), nil
}

// scopeElicitation adds the session (and the tool call being run) to an
// elicitation/create request: the schema requires the scope, the SDK's
// unstable type has no field for it.
func (s *Server) scopeElicitation(line []byte) []byte {
	var msg map[string]json.RawMessage
	var params map[string]any
	if json.Unmarshal(line, &msg) != nil || json.Unmarshal(msg["params"], &params) != nil {
		return line
	}
	params["sessionId"] = s.activeSession()
	s.mu.Lock()
	if s.lastTool != "" {
		params["toolCallId"] = s.lastTool
	}
	s.mu.Unlock()
	p, err := json.Marshal(params)
	if err != nil {
		return line
	}
	msg["params"] = p
	out, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return append(out, '\n')
}

// Serve reads messages from in until EOF or ctx ends, then shuts down:
// work in flight is cancelled and the output flushed.
func (s *Server) Serve(ctx context.Context, in io.Reader) error {
	pr, pw := io.Pipe()
	s.conn = sdk.NewAgentSideConnection(agent{s}, lineWriter{s}, pr)
	s.conn.SetLogger(s.rt.Log())
	s.unsub = s.rt.Subscribe(s.onEvent)
	s.rt.SetUI(&uiBridge{s: s})

	readErr := make(chan error, 1)
	go func() {
		// A line longer than maxLine is refused while it is read: only
		// its head is kept (for its id), the rest is discarded.
		forward := func(fwd []byte) {
			if fwd != nil && ctx.Err() == nil {
				_, _ = pw.Write(fwd)
			}
		}
		err := jsonl.ReadLinesMax(in, maxLine, func(line []byte) {
			if ctx.Err() == nil {
				forward(s.checkLine(line))
			}
		}, func(head []byte) {
			if ctx.Err() == nil {
				forward(s.refuseLong(head))
			}
		})
		pw.Close()
		readErr <- err
	}()
	var err error
	select {
	case err = <-readErr:
	case <-ctx.Done():
		pw.Close()
	}
	s.Shutdown()
	return err
}

// Shutdown cancels work in flight, waits (boundedly) for the answers of
// the requests read, closes the runtime and flushes the output. It is
// called once, by Serve.
func (s *Server) Shutdown() {
	s.out.WatchStall(s.opts.StallTimeout)
	s.cancel()
	s.rt.CancelTurn()
	// Every request read gets its answer before the output closes (the
	// SDK cancels the handlers' contexts when the input ends).
	s.mu.Lock()
	var drained chan struct{}
	if len(s.unanswered) > 0 {
		drained = make(chan struct{})
		s.drained = drained
	}
	s.mu.Unlock()
	if drained != nil {
		t := time.NewTimer(5 * time.Second)
		select {
		case <-drained:
		case <-t.C:
			s.rt.Log().Warn("requests left unanswered at shutdown")
		}
		t.Stop()
	}
	s.rt.Close()
	if s.unsub != nil {
		s.unsub()
	}
	_ = s.out.Close()
}

// envelope is what checkLine reads of a message.
type envelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// checkLine answers a line that is not a JSON-RPC 2.0 message with the
// standard error (-32700 parse error, -32600 invalid request, the id echoed
// when it can be read) and returns nil; a good line is returned with its
// newline, for the SDK.
func (s *Server) checkLine(line []byte) []byte {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return nil
	}
	if !json.Valid(t) {
		s.sendError(nil, -32700, "Parse error", "the line is not JSON")
		return nil
	}
	if t[0] != '{' {
		detail := "a message must be a JSON object"
		if t[0] == '[' {
			detail = "batches are not supported"
		}
		s.sendError(nil, -32600, "Invalid request", detail)
		return nil
	}
	var env envelope
	if err := json.Unmarshal(t, &env); err != nil {
		s.sendError(nil, -32600, "Invalid request", err.Error())
		return nil
	}
	id := env.ID
	if len(id) > 0 && id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') && string(id) != "null" {
		s.sendError(nil, -32600, "Invalid request", "id must be a string, a number or null")
		return nil
	}
	if env.JSONRPC == nil || *env.JSONRPC != "2.0" {
		s.sendError(id, -32600, "Invalid request", `"jsonrpc" must be "2.0"`)
		return nil
	}
	switch {
	case len(env.Method) > 0:
		var method string
		if json.Unmarshal(env.Method, &method) != nil {
			s.sendError(id, -32600, "Invalid request", `"method" must be a string`)
			return nil
		}
		if string(id) == "null" {
			// The SDK takes a null id for a notification and would never
			// answer it, and an answer could not name it: refused.
			s.sendError(id, -32600, "Invalid request", "a request's id must not be null")
			return nil
		}
		if len(id) == 0 && !s.notification(method, t) {
			return nil
		}
		if len(id) > 0 && method == sdk.AgentMethodSessionPrompt && !s.startPrompt(id, t) {
			return nil
		}
		if len(id) > 0 {
			s.mu.Lock()
			s.unanswered[string(id)] = true
			s.mu.Unlock()
		}
		if len(id) > 0 && (method == "session/new" || method == "session/load" || method == "session/resume") {
			s.mu.Lock()
			s.starts[string(id)] = true
			s.mu.Unlock()
		}
	case len(id) > 0 && (len(env.Result) > 0 || len(env.Error) > 0):
		// a response to one of our requests
	default:
		s.sendError(id, -32600, "Invalid request", `a message needs "method", or "id" with "result" or "error"`)
		return nil
	}
	out := make([]byte, len(t)+1)
	copy(out, t)
	out[len(t)] = '\n'
	return out
}

// startPrompt records a session/prompt as the session's prompt in
// progress, or refuses it when the session has one already: the SDK
// would cancel the running prompt on a second one for the same session,
// so the second never reaches it, and the first completes.
func (s *Server) startPrompt(id json.RawMessage, line []byte) bool {
	var r struct {
		Params struct {
			SessionID string `json:"sessionId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &r) != nil || r.Params.SessionID == "" {
		return true // the SDK answers the bad params
	}
	sid := r.Params.SessionID
	s.mu.Lock()
	_, busy := s.prompting[sid]
	if !busy {
		s.prompting[sid] = string(id)
	}
	s.mu.Unlock()
	if busy {
		s.sendError(id, -32600, "Invalid request", "a prompt is in progress in session "+sid+": wait for its answer or send session/cancel")
	}
	return !busy
}

// notification handles a notification on the reading goroutine and
// reports whether it goes on to the SDK. The SDK queues notifications (at
// most 1,024, then it drops the connection), so only $/cancel_request,
// which it handles at once, goes there: session/cancel is idempotent and
// is handled here (a flood of them cancels once), and the notifications
// the agent does not handle are dropped.
func (s *Server) notification(method string, line []byte) bool {
	switch method {
	case "$/cancel_request":
		return true
	case sdk.AgentMethodSessionCancel:
		var n struct {
			Params struct {
				SessionID string `json:"sessionId"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &n) == nil {
			s.requestCancel(n.Params.SessionID)
		}
	}
	return false
}

// refuseLong answers a message longer than maxLine, of which head is the
// beginning: a request gets -32600 (with its id when the head shows it);
// an answer to one of our requests (a file's text, say) is replaced by an
// error answer, for the SDK, so that the request fails instead of waiting.
func (s *Server) refuseLong(head []byte) []byte {
	id, request := readID(bytes.TrimSpace(head))
	if !request && len(id) > 0 {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
			"error": map[string]any{"code": -32600, "message": "the client's answer is larger than 8 MiB"}})
		if err != nil {
			return nil
		}
		return append(b, '\n')
	}
	s.sendError(id, -32600, "Invalid request", "message larger than 8 MiB")
	return nil
}

// readID extracts the id of an oversized message from its head (the
// fields before the one cut off), and whether it is a request or
// notification (it has "method").
func readID(line []byte) (id json.RawMessage, request bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return id, request
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return id, request
		}
		switch k {
		case "id":
			id = v
		case "method":
			request = true
		}
	}
	return id, request
}

func (s *Server) sendError(id json.RawMessage, code int, msg, detail string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": msg, "data": map[string]any{"details": detail}}})
	if err != nil {
		return
	}
	s.out.Send(b)
}
