// Package exttest has test doubles of extensions.Host for the extension
// runtimes' tests.
package exttest

import (
	"context"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
)

// SlowFirstSend is an extensions.Host whose SendMessage holds the first
// message until a second one was recorded (or for Hold), and records the
// custom types in the order the messages were taken. A runtime that
// hands an extension's messages to the host concurrently records the
// second first; one that keeps their order records them as sent.
type SlowFirstSend struct {
	extensions.Host
	Hold time.Duration

	mu     sync.Mutex
	n      int
	second chan struct{}
	got    []string
	took   chan struct{} // closed and replaced at every take
}

// NewSlowFirstSend wraps h.
func NewSlowFirstSend(h extensions.Host) *SlowFirstSend {
	return &SlowFirstSend{Host: h, Hold: 300 * time.Millisecond, second: make(chan struct{}), took: make(chan struct{})}
}

// SendMessage implements extensions.Host.
func (h *SlowFirstSend) SendMessage(ctx context.Context, msg hooks.CustomMessage, trigger bool, deliverAs string) error {
	h.mu.Lock()
	h.n++
	n := h.n
	h.mu.Unlock()
	if n == 1 {
		select {
		case <-h.second:
		case <-time.After(h.Hold):
		}
	}
	h.mu.Lock()
	h.got = append(h.got, msg.CustomType)
	close(h.took)
	h.took = make(chan struct{})
	h.mu.Unlock()
	if n == 2 {
		close(h.second) // after the second was recorded
	}
	return nil
}

// Wait returns the custom types taken once there are n of them, or what
// there is when ctx ends.
func (h *SlowFirstSend) Wait(ctx context.Context, n int) []string {
	for {
		h.mu.Lock()
		got, took := append([]string(nil), h.got...), h.took
		h.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-took:
		case <-ctx.Done():
			return got
		}
	}
}

// Got returns the custom types taken so far, in order.
func (h *SlowFirstSend) Got() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.got...)
}
