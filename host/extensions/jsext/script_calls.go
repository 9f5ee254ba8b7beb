package jsext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
)

// Calls into a script: one event, command, completion or tool call at a
// time per call id, each started on the loop and settled there.

// call is one handler, command or tool invocation in flight.
type call struct {
	ctx    context.Context
	host   extensions.Host
	update func(llm.ToolResult)
	stops  []func() bool
}

// sendCount counts the messages a script sent (pi.sendMessage,
// pi.sendUserMessage: they return at once) that the host has not taken
// yet, and hands them to the host one at a time in the order they were
// sent (as pi appends them).
type sendCount struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed while n == 0
	last chan struct{} // closed once the latest message was taken
}

// start counts one message. The host may take it once turn is closed
// (every earlier message was taken); taken marks it taken.
func (c *sendCount) start() (turn <-chan struct{}, taken func()) {
	c.mu.Lock()
	if c.n == 0 {
		c.zero = make(chan struct{})
	}
	c.n++
	prev := c.last
	if prev == nil {
		closed := make(chan struct{})
		close(closed)
		prev = closed
	}
	mine := make(chan struct{})
	c.last = mine
	c.mu.Unlock()
	return prev, func() {
		close(mine)
		c.mu.Lock()
		c.n--
		if c.n == 0 {
			close(c.zero)
		}
		c.mu.Unlock()
	}
}

// wait returns once no message is in flight, or when ctx ends.
func (c *sendCount) wait(ctx context.Context) {
	c.mu.Lock()
	if c.n == 0 {
		c.mu.Unlock()
		return
	}
	zero := c.zero
	c.mu.Unlock()
	select {
	case <-zero:
	case <-ctx.Done():
	}
}

// invoke runs one call into the script: register the call, start it on
// the loop, wait for its settled result (bounded by ctx).
func (s *Script) invoke(ctx context.Context, host extensions.Host, update func(llm.ToolResult),
	startJS func(r *goja.Runtime, id goja.Value) (goja.Value, error),
	finish func(r *goja.Runtime, val goja.Value, rejected bool) (any, error)) (any, error) {
	if err := s.disabled(); err != nil {
		return nil, err
	}
	if host == nil {
		host = s.defaultHost()
	}
	var id int64 // loop only
	v, err := s.vm.await(ctx, func(r *goja.Runtime) (goja.Value, error) {
		s.nextID++
		id = s.nextID
		s.calls[id] = &call{ctx: ctx, host: host, update: update}
		val, err := startJS(r, r.ToValue(id))
		if err != nil {
			s.endCall(id)
			return nil, s.jsError(err)
		}
		return val, nil
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		s.endCall(id)
		return finish(r, val, rejected)
	})
	if ctx.Err() != nil {
		s.vm.run(func(*goja.Runtime) { s.endCall(id) })
	}
	if errors.Is(err, errClosed) {
		if d := s.disabled(); d != nil {
			return nil, d
		}
	}
	return v, err
}

func (s *Script) endCall(id int64) {
	c := s.calls[id]
	if c == nil {
		return
	}
	delete(s.calls, id)
	for _, stop := range c.stops {
		stop()
	}
}

// callOf returns the call with this id, or a background call for code
// running outside any handler (timers, late continuations).
func (s *Script) callOf(v goja.Value) *call {
	id := v.ToInteger()
	if c := s.calls[id]; c != nil && id != 0 {
		return c
	}
	return &call{ctx: context.Background(), host: s.defaultHost()}
}

// toJSON encodes a handler's result (nil for undefined and null).
func (s *Script) toJSON(val goja.Value) (json.RawMessage, error) {
	if val == nil || goja.IsUndefined(val) || goja.IsNull(val) {
		return nil, nil
	}
	out, err := s.fn.stringify(goja.Undefined(), val)
	if err != nil {
		return nil, fmt.Errorf("the handler's result cannot be sent as JSON: %s", s.errText(err))
	}
	if out == nil || goja.IsUndefined(out) {
		return nil, nil
	}
	return json.RawMessage(out.String()), nil
}

// Handlers implements hooks.HandlerSet: the bus calls each pi.on handler
// on its own and composes their results.
func (s *Script) Handlers(event string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hooks.Kinds[event] == hooks.Notify {
		// Notifications: one call runs them all (results are ignored).
		return -1
	}
	return s.handlerCounts[event]
}

// HandleOne implements hooks.HandlerSet.
func (s *Script) HandleOne(ctx context.Context, ev *hooks.Event, i int) (json.RawMessage, error) {
	return s.handle(ctx, nil, ev, i)
}

// handle runs the script's handler i for one event (every handler when i
// is negative: notifications, or an event with one handler).
func (s *Script) handle(ctx context.Context, host extensions.Host, ev *hooks.Event, index int) (json.RawMessage, error) {
	if err := s.disabled(); err != nil && hooks.Kinds[ev.Name] == hooks.Notify && s.deadNoted.Swap(true) {
		// A disabled script is reported once for notifications (they
		// would flood the client); intercepting events keep failing.
		return nil, nil
	}
	payload, err := ev.JSON()
	if err != nil {
		return nil, err
	}
	name := ev.Name
	v, err := s.invoke(ctx, host, nil, func(r *goja.Runtime, id goja.Value) (goja.Value, error) {
		return s.fn.dispatch(goja.Undefined(), id, r.ToValue(name), r.ToValue(string(payload)), r.ToValue(index))
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		if rejected {
			return nil, s.handlerError(r, val)
		}
		return s.toJSON(val)
	})
	if err != nil {
		return nil, err
	}
	raw, _ := v.(json.RawMessage)
	return raw, nil
}

// handlerError is a rejected dispatch: api.js's HandlerErrors (several
// handlers of a notification failed) is one error per handler.
func (s *Script) handlerError(r *goja.Runtime, val goja.Value) error {
	if obj, ok := val.(*goja.Object); ok && obj.Get("name") != nil && obj.Get("name").String() == "HandlerErrors" {
		var out hooks.HandlerErrors
		if list, ok := obj.Get("errors").(*goja.Object); ok {
			for i := int64(0); i < list.Get("length").ToInteger(); i++ {
				out = append(out, errors.New(s.thrownText(list.Get(strconv.FormatInt(i, 10)))))
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return errors.New(s.thrownText(val))
}

// Handle implements hooks.Subscriber.
func (s *Script) Handle(ctx context.Context, ev *hooks.Event) (json.RawMessage, error) {
	return s.handle(ctx, nil, ev, -1)
}

// RunCommand implements extensions.Extension.
func (s *Script) RunCommand(ctx context.Context, name, args string) error {
	return s.runCommand(ctx, nil, name, args, false)
}

// RunShortcut implements extensions.ShortcutRunner.
func (s *Script) RunShortcut(ctx context.Context, key string) error {
	return s.runCommand(ctx, nil, key, "", true)
}

// runCommand runs a command's handler. It returns once the handler has
// settled and the host has taken the messages it sent (pi.sendMessage
// returns at once, so a handler rarely awaits it): print and json modes
// exit when the command is over, and must see what it sent.
// With shortcut set, name is a shortcut's key and its handler runs.
func (s *Script) runCommand(ctx context.Context, host extensions.Host, name, args string, shortcut bool) error {
	// The handler's sends were counted on the loop before it settled.
	defer s.sends.wait(ctx)
	_, err := s.invoke(ctx, host, nil, func(r *goja.Runtime, id goja.Value) (goja.Value, error) {
		return s.fn.runCommand(goja.Undefined(), id, r.ToValue(name), r.ToValue(args), r.ToValue(shortcut))
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		if rejected {
			return nil, errors.New(s.thrownText(val))
		}
		return nil, nil
	})
	return err
}

// Complete implements extensions.Extension.
func (s *Script) Complete(ctx context.Context, name, prefix string) ([]extensions.Completion, bool, error) {
	return s.complete(ctx, nil, name, prefix)
}

func (s *Script) complete(ctx context.Context, host extensions.Host, name, prefix string) ([]extensions.Completion, bool, error) {
	v, err := s.invoke(ctx, host, nil, func(r *goja.Runtime, id goja.Value) (goja.Value, error) {
		return s.fn.complete(goja.Undefined(), id, r.ToValue(name), r.ToValue(prefix))
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		if rejected {
			return nil, errors.New(s.thrownText(val))
		}
		return s.toJSON(val)
	})
	if err != nil {
		return nil, true, err
	}
	raw, _ := v.(json.RawMessage)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true, nil
	}
	var items []struct {
		Value       any    `json:"value"`
		Label       string `json:"label"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, true, fmt.Errorf("getArgumentCompletions must return an array of {value, label, description?} or null")
	}
	out := make([]extensions.Completion, 0, len(items))
	for _, it := range items {
		value := fmt.Sprint(it.Value)
		if s, ok := it.Value.(string); ok {
			value = s
		}
		label := it.Label
		if label == "" {
			label = value
		}
		out = append(out, extensions.Completion{Value: value, Label: label, Description: it.Description})
	}
	return out, false, nil
}

// ExecuteTool implements extensions.Extension.
func (s *Script) ExecuteTool(ctx context.Context, name, callID string, args map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	return s.executeTool(ctx, nil, name, callID, args, update)
}

func (s *Script) executeTool(ctx context.Context, host extensions.Host, name, callID string, args map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	return s.runTool(ctx, host, "tool", name, args, update, func(r *goja.Runtime, id, params goja.Value) (goja.Value, error) {
		return s.fn.executeTool(goja.Undefined(), id, r.ToValue(name), r.ToValue(callID), params)
	})
}

// StreamProvider implements extensions.ProviderStreamer: a tool call's
// path, into the API's streamProvider.
func (s *Script) StreamProvider(ctx context.Context, provider string, request map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	return s.streamProvider(ctx, nil, provider, request, update)
}

func (s *Script) streamProvider(ctx context.Context, host extensions.Host, provider string, request map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	return s.runTool(ctx, host, "provider", provider, request, update, func(r *goja.Runtime, id, params goja.Value) (goja.Value, error) {
		return s.fn.streamProvider(goja.Undefined(), id, r.ToValue(provider), params)
	})
}

// runTool runs a tool's execute (or a provider's stream) with args as
// JSON text, its partial results to update.
func (s *Script) runTool(ctx context.Context, host extensions.Host, kind, name string, args map[string]any, update func(llm.ToolResult),
	start func(r *goja.Runtime, id, params goja.Value) (goja.Value, error)) (llm.ToolResult, error) {
	params, err := json.Marshal(args)
	if err != nil {
		return llm.ToolResult{}, err
	}
	if args == nil {
		params = []byte("{}")
	}
	v, err := s.invoke(ctx, host, update, func(r *goja.Runtime, id goja.Value) (goja.Value, error) {
		return start(r, id, r.ToValue(string(params)))
	}, func(r *goja.Runtime, val goja.Value, rejected bool) (any, error) {
		if rejected {
			s.log.Info(kind+" failed", kind, name, "error", s.thrownText(val))
			return nil, errors.New(thrownMessage(val))
		}
		return s.toJSON(val)
	})
	if err != nil {
		return llm.ToolResult{}, err
	}
	raw, _ := v.(json.RawMessage)
	return toolResultFrom(raw)
}

// toolResultFrom reads a tool's result: {content, details}; a plain
// string is taken as text.
func toolResultFrom(raw json.RawMessage) (llm.ToolResult, error) {
	var res llm.ToolResult
	if len(raw) == 0 {
		res.Content = []llm.ContentBlock{}
		return res, nil
	}
	if raw[0] == '"' {
		var text string
		_ = json.Unmarshal(raw, &text)
		return llm.TextResult(text), nil
	}
	var r struct {
		Content   llm.Content `json:"content"`
		Details   any         `json:"details"`
		Terminate bool        `json:"terminate"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return res, fmt.Errorf("the tool's result must be {content: [...], details?}: %w", err)
	}
	res.Content, res.Details, res.Terminate = r.Content.Blocks, r.Details, r.Terminate
	if res.Content == nil {
		res.Content = []llm.ContentBlock{}
	}
	return res, nil
}
