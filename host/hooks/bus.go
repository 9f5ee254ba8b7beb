package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Subscriber is one extension's entry point into the bus, whatever runs it.
// A runtime registers one Subscriber per extension (or one per handler:
// the bus composes results across subscribers with the same rules, so
// either way gives the reference semantics).
type Subscriber interface {
	// Path identifies the extension in extension_error events.
	Path() string
	// Events lists the events the subscriber handles; the bus sends no
	// others.
	Events() []string
	// Handle runs the extension's handler for one event. It returns the
	// handler's result as JSON (nil or "null" for none) or an error. It
	// must return soon after ctx is done; the bus stops waiting for it at
	// the deadline either way.
	Handle(ctx context.Context, ev *Event) (json.RawMessage, error)
}

// HandlerSet is implemented by subscribers that hold several handlers for
// one event (several pi.on calls of a script, several On calls of a Go
// plugin). The bus calls each handler on its own, in order, and composes
// their results with the same rule as results of different extensions:
// the bus is the only place where results are combined, so a runtime
// never needs to know the composition rules.
type HandlerSet interface {
	// Handlers returns how many handlers the subscriber has for the event
	// (0 when it has none: then it is not called). A negative count means
	// the subscriber composes its handlers itself this time (a plugin of
	// an older protocol): the bus calls Handle once.
	Handlers(event string) int
	// HandleOne runs handler i (0-based, in registration order) for one
	// event, with Handle's contract.
	HandleOne(ctx context.Context, ev *Event, i int) (json.RawMessage, error)
}

// BatchSubscriber is implemented by subscribers that take several
// notifications in one call (a plugin saves a round trip per event). The
// returned errors are per event (nil entries for success); a single error
// for the whole batch may be returned as a one-element slice.
type BatchSubscriber interface {
	HandleBatch(ctx context.Context, evs []*Event) []error
}

// HandleBatch delivers several notifications to sub: in one call when sub
// takes batches (BatchSubscriber), else one Handle call per event. It is
// the rule of every wrapper that adds to a subscriber and must keep its
// batching (errors as BatchSubscriber's).
func HandleBatch(ctx context.Context, sub Subscriber, evs []*Event) []error {
	if bs, ok := sub.(BatchSubscriber); ok {
		return bs.HandleBatch(ctx, evs)
	}
	errs := make([]error, len(evs))
	for i, ev := range evs {
		_, errs[i] = sub.Handle(ctx, ev)
	}
	return errs
}

// TimeoutProvider is implemented by subscribers with their own deadlines
// (configured per extension). A zero duration means the bus default.
type TimeoutProvider interface {
	Timeout(event string) time.Duration
}

// DefaultTimeouts are the per-event deadlines used when neither the
// extension nor the settings give one. Time a handler spends waiting for
// the user in a dialog does not count (see PauseDeadline).
var DefaultTimeouts = map[string]time.Duration{
	ToolCall: 30 * time.Second, ToolResult: 30 * time.Second,
	Input: 30 * time.Second, BeforeAgentStart: 30 * time.Second, Context: 30 * time.Second,
	SessionBeforeSwitch: 30 * time.Second, SessionBeforeFork: 30 * time.Second,
	SessionBeforeCompact: 60 * time.Second, SessionBeforeTree: 60 * time.Second,
	UserBash: 30 * time.Second, ProjectTrust: 30 * time.Second,
}

// DefaultNotifyTimeout is the deadline of notification events.
const DefaultNotifyTimeout = 10 * time.Second

// ErrTimeout is the cause of a call that missed its deadline.
var ErrTimeout = errors.New("deadline exceeded")

// Bus dispatches events to subscribers in load order.
type Bus struct {
	// OnError receives every failure (handler error, panic, timeout, dead
	// plugin, malformed result). It must not block for long.
	OnError func(ExtensionError)
	// Log receives diagnostics (dropped notifications); may be nil.
	Log *slog.Logger

	mu    sync.Mutex
	subs  []*entry
	index atomic.Pointer[map[string][]*entry]
}

type entry struct {
	sub   Subscriber
	queue *notifyQueue
}

// New returns an empty bus.
func New() *Bus {
	b := &Bus{}
	empty := map[string][]*entry{}
	b.index.Store(&empty)
	return b
}

// Add appends subscribers (in load order) and rebuilds the index.
func (b *Bus) Add(subs ...Subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range subs {
		b.subs = append(b.subs, &entry{sub: s})
	}
	b.reindexLocked()
}

// Remove drops a subscriber.
func (b *Bus) Remove(s Subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, e := range b.subs {
		if e.sub == s {
			if e.queue != nil {
				e.queue.close()
			}
			b.subs = append(b.subs[:i:i], b.subs[i+1:]...)
			break
		}
	}
	b.reindexLocked()
}

// Refresh rebuilds the index after a subscriber's event list changed (a
// restarted plugin that describes itself differently).
func (b *Bus) Refresh() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reindexLocked()
}

func (b *Bus) reindexLocked() {
	idx := map[string][]*entry{}
	for _, e := range b.subs {
		seen := map[string]bool{}
		for _, name := range e.sub.Events() {
			if seen[name] {
				continue
			}
			seen[name] = true
			idx[name] = append(idx[name], e)
		}
	}
	b.index.Store(&idx)
}

// Has reports whether any subscriber handles the event (callers skip
// building payloads otherwise).
func (b *Bus) Has(event string) bool {
	return len((*b.index.Load())[event]) > 0
}

func (b *Bus) subscribers(event string) []*entry {
	return (*b.index.Load())[event]
}

// slot is one handler the bus calls: handler i of a HandlerSet, or the
// whole subscriber (i < 0).
type slot struct {
	e *entry
	i int
}

// handlers lists every handler of an event in order: subscribers in load
// order, each subscriber's handlers in registration order.
func (b *Bus) handlers(event string) []slot {
	subs := b.subscribers(event)
	if len(subs) == 0 {
		return nil
	}
	out := make([]slot, 0, len(subs))
	for _, e := range subs {
		hs, ok := e.sub.(HandlerSet)
		n := -1
		if ok {
			n = hs.Handlers(event)
		}
		if n < 0 {
			out = append(out, slot{e: e, i: -1})
			continue
		}
		for i := 0; i < n; i++ {
			out = append(out, slot{e: e, i: i})
		}
	}
	return out
}

func (b *Bus) report(s Subscriber, event string, err error) {
	if b.OnError == nil || err == nil {
		return
	}
	var several HandlerErrors
	if errors.As(err, &several) {
		for _, e := range several {
			b.OnError(ExtensionError{ExtensionPath: s.Path(), Event: event, Error: e.Error()})
		}
		return
	}
	b.OnError(ExtensionError{ExtensionPath: s.Path(), Event: event, Error: err.Error()})
}

// HandlerErrors are the failures of several handlers of one subscriber
// that ran in one call (a notification's): each is reported as an
// extension_error of its own, as pi reports each failed handler.
type HandlerErrors []error

func (h HandlerErrors) Error() string {
	msgs := make([]string, len(h))
	for i, e := range h {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap returns the failures.
func (h HandlerErrors) Unwrap() []error { return h }

func timeoutFor(s Subscriber, event string) time.Duration {
	if tp, ok := s.(TimeoutProvider); ok {
		if d := tp.Timeout(event); d > 0 {
			return d
		}
	}
	if d, ok := DefaultTimeouts[event]; ok {
		return d
	}
	return DefaultNotifyTimeout
}

// call runs one handler with its deadline, turning panics into errors. It
// stops waiting at the deadline or when ctx ends even if the handler does
// not return.
func (b *Bus) call(ctx context.Context, s Subscriber, i int, ev *Event) (json.RawMessage, error) {
	d := timeoutFor(s, ev.Name)
	cctx, dl := withDeadline(ctx, d)
	defer dl.stop()
	type result struct {
		raw json.RawMessage
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if v := recover(); v != nil {
				r = result{err: fmt.Errorf("handler panicked: %v\n%s", v, firstLines(debug.Stack(), 12))}
			}
			done <- r
		}()
		if i >= 0 {
			r.raw, r.err = s.(HandlerSet).HandleOne(cctx, ev, i)
		} else {
			r.raw, r.err = s.Handle(cctx, ev)
		}
	}()
	select {
	case r := <-done:
		if r.err != nil && cctx.Err() != nil {
			return nil, deadlineError(cctx, ev.Name, d)
		}
		return r.raw, r.err
	case <-cctx.Done():
		return nil, deadlineError(cctx, ev.Name, d)
	}
}

func deadlineError(ctx context.Context, event string, d time.Duration) error {
	if errors.Is(context.Cause(ctx), ErrTimeout) {
		return fmt.Errorf("%s handler did not finish within %v", event, d)
	}
	return context.Canceled
}

func firstLines(b []byte, n int) []byte {
	for i, c := range b {
		if c == '\n' {
			n--
			if n == 0 {
				return b[:i]
			}
		}
	}
	return b
}

// isCancel reports whether err is the caller's cancellation (abort), which
// is not the extension's fault and is not reported.
func isCancel(ctx context.Context, err error) bool {
	return ctx.Err() != nil && errors.Is(err, context.Canceled)
}

// truthy reports whether a JSON result counts as a returned value
// (JavaScript truthiness: not undefined, null, false, 0 or "").
func truthy(raw json.RawMessage) bool {
	s := trimSpace(raw)
	switch string(s) {
	case "", "null", "false", "0", `""`, "-0":
		return false
	}
	return true
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\n' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// decodeObject decodes a truthy result that must be a JSON object.
func decodeObject(raw json.RawMessage, v any) error {
	s := trimSpace(raw)
	if len(s) == 0 || s[0] != '{' {
		return fmt.Errorf("malformed result: expected a JSON object, got %.80s", s)
	}
	if err := json.Unmarshal(s, v); err != nil {
		return fmt.Errorf("malformed result: %w", err)
	}
	return nil
}
