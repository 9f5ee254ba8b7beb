package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
)

// The agent composes the results of several handlers (its hook bus is the
// only place with the composition rules): with the capability
// "events.per_handler" it calls every handler on its own. An extension
// therefore only runs handlers here; it never combines their results.

// Handlers returns how many handlers the extension has for an event.
func (e *Extension) Handlers(event string) int { return len(e.handlers[event]) }

// HandleEventAt runs handler i (0-based, registration order) of an event
// and returns its result as JSON (nil for none).
func (e *Extension) HandleEventAt(ctx *Context, event string, i int, payload json.RawMessage) (json.RawMessage, error) {
	hs := e.handlers[event]
	if i < 0 || i >= len(hs) {
		return nil, fmt.Errorf("%s has no handler %d", event, i)
	}
	v, err := safeCall(hs[i], ctx, payload)
	if err != nil {
		return nil, err
	}
	return marshalResult(v)
}

// errSeveralHandlers is the answer to an agent that asks for one result of
// several handlers without offering to compose them.
var errSeveralHandlers = errors.New("this extension has several handlers for the event and the agent does not compose their results (it lacks the capability events.per_handler): update the agent")

// dispatch runs every handler of one event in order. For one handler it
// returns its result; for several, results are not combined: notifications
// (whose results nobody reads) run them all and join their errors, and an
// intercepting event is refused (the agent asks handler by handler).
func (e *Extension) dispatch(ctx *Context, event string, payload json.RawMessage) (json.RawMessage, error) {
	hs := e.handlers[event]
	switch {
	case len(hs) == 0:
		return nil, nil
	case len(hs) == 1:
		return e.HandleEventAt(ctx, event, 0, payload)
	case intercepting[event]:
		return nil, errSeveralHandlers
	}
	var errs []error
	for i := range hs {
		if _, err := e.HandleEventAt(ctx, event, i, payload); err != nil {
			errs = append(errs, err)
		}
	}
	return nil, errors.Join(errs...)
}

// intercepting are the events whose results the agent reads.
var intercepting = map[string]bool{
	EventSessionBeforeSwitch: true, EventSessionBeforeFork: true, EventSessionBeforeCompact: true, EventSessionBeforeTree: true,
	EventInput: true, EventBeforeAgentStart: true, EventContext: true, EventToolCall: true, EventToolResult: true,
	EventUserBash: true, "resources_discover": true,
	EventBeforeProviderHeaders: true, EventBeforeProviderRequest: true, EventMessageEnd: true, EventContextWithSystem: true,
	EventAgentBeforeSettle: true, EventTurnEnd: true,
}

func safeCall(h HandlerFunc, ctx *Context, payload json.RawMessage) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return h(ctx, payload)
}

func marshalResult(v any) (json.RawMessage, error) {
	if isNil(v) {
		return nil, nil
	}
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the handler's result: %w", err)
	}
	return b, nil
}
