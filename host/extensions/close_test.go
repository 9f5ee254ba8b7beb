package extensions

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/internal/leaktest"
)

// notified is an extension that records the notifications it gets.
type notified struct {
	Extension // the methods the test does not use
	mu        sync.Mutex
	got       int
	closed    bool
}

func (n *notified) Path() string                                        { return "/ext/notified.ts" }
func (n *notified) Name() string                                        { return "notified" }
func (n *notified) Events() []string                                    { return []string{hooks.TurnStart} }
func (n *notified) Tools() []ToolSpec                                   { return nil }
func (n *notified) Commands() []CommandSpec                             { return nil }
func (n *notified) Flags() []FlagSpec                                   { return nil }
func (n *notified) Accepts(*Spec) bool                                  { return true }
func (n *notified) Load(context.Context, Spec, Host) (Extension, error) { return n, nil }
func (n *notified) Handle(context.Context, *hooks.Event) (json.RawMessage, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got++
	return nil, nil
}
func (n *notified) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	return nil
}

// TestCloseUnsubscribesTheExtensions: after Close the bus no longer holds
// the closed extensions, so their notification goroutines end and nothing
// more is delivered to them.
func TestCloseUnsubscribesTheExtensions(t *testing.T) {
	leaktest.Check(t)
	ext := &notified{}
	m := NewManager(Config{Runtimes: []Runtime{ext}, AgentDir: t.TempDir(), Cwd: t.TempDir()})
	m.Start(Discovered{Specs: []Spec{{Path: ext.Path(), Kind: KindScript, Scope: ScopeTemporary}}})
	if err := m.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	bus := m.Bus()
	bus.Notify(hooks.TurnStart, hooks.TurnStartEvent{})
	bus.Flush(5 * time.Second)
	m.Close()
	if bus.Has(hooks.TurnStart) {
		t.Fatal("the bus still has a subscriber for turn_start after Close")
	}
	bus.Notify(hooks.TurnStart, hooks.TurnStartEvent{})
	ext.mu.Lock()
	defer ext.mu.Unlock()
	if !ext.closed || ext.got != 1 {
		t.Fatalf("closed %v, %d notifications (want 1)", ext.closed, ext.got)
	}
}
