package rpcclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Event is one record from the agent that is not the response to a
// pending call: an event (agent_start, message_update, …), an
// extension_ui_request, or a response nobody waits for (a parse error,
// say).
type Event struct {
	Type string
	// Raw is the whole record as received.
	Raw json.RawMessage
}

// Decode decodes the record into v (one of the event types of this
// package, or anything else).
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Raw, v); err != nil {
		return fmt.Errorf("rpcclient: decode %s: %w", e.Type, err)
	}
	return nil
}

// Map decodes the record into a generic map (nil if it does not decode).
func (e Event) Map() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(e.Raw, &m)
	return m
}

// ErrClosed is returned by Subscription.Next once the subscription was
// closed, or the agent has exited and every event was delivered.
var ErrClosed = errors.New("rpcclient: subscription closed")

// Subscription receives the agent's events in the order they were
// written. Events queue without bound until they are read, so close a
// subscription that is no longer read.
type Subscription struct {
	c     *Client
	types map[string]bool

	mu     sync.Mutex
	queue  []Event
	wake   chan struct{} // capacity 1: something was queued or it ended
	closed bool          // by Close
	ended  bool          // the client is gone: nothing more will come

	chOnce sync.Once
	ch     chan Event
	stop   chan struct{}
}

// Subscribe returns a subscription to the events of the given types (all
// events when none are given). It sees only records read after it was
// made: subscribe before sending the command whose events you want.
func (c *Client) Subscribe(types ...string) *Subscription {
	s := &Subscription{c: c, wake: make(chan struct{}, 1), stop: make(chan struct{})}
	if len(types) > 0 {
		s.types = map[string]bool{}
		for _, t := range types {
			s.types[t] = true
		}
	}
	c.mu.Lock()
	if c.subs == nil {
		s.ended = true // the client has finished delivering
	} else {
		c.subs[s] = struct{}{}
	}
	c.mu.Unlock()
	return s
}

func (c *Client) publish(ev Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := range c.subs {
		if s.types == nil || s.types[ev.Type] {
			s.push(ev)
		}
	}
}

// closeSubs ends every subscription once stdout was read to its end.
func (c *Client) closeSubs() {
	c.mu.Lock()
	subs := c.subs
	c.subs = nil
	c.mu.Unlock()
	for s := range subs {
		s.end()
	}
}

func (s *Subscription) push(ev Event) {
	s.mu.Lock()
	if !s.closed {
		s.queue = append(s.queue, ev)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Subscription) end() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Next returns the next event. It returns ErrClosed after Close, or once
// the agent has exited and every event was read; ctx's error if ctx ends
// first.
func (s *Subscription) Next(ctx context.Context) (Event, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return Event{}, ErrClosed
		}
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue[0] = Event{}
			s.queue = s.queue[1:]
			if len(s.queue) == 0 {
				s.queue = nil // let the backing array go
			}
			s.mu.Unlock()
			return ev, nil
		}
		ended := s.ended
		s.mu.Unlock()
		if ended {
			return Event{}, ErrClosed
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// WaitFor reads events until one matches and returns it; the events read
// before it are dropped.
func (s *Subscription) WaitFor(ctx context.Context, match func(Event) bool) (Event, error) {
	for {
		ev, err := s.Next(ctx)
		if err != nil {
			return Event{}, err
		}
		if match(ev) {
			return ev, nil
		}
	}
}

// WaitType reads events until one of type typ and returns it.
func (s *Subscription) WaitType(ctx context.Context, typ string) (Event, error) {
	return s.WaitFor(ctx, func(ev Event) bool { return ev.Type == typ })
}

// C returns a channel that delivers the subscription's events; it is
// closed after Close, or once the agent has exited and every event was
// delivered. The first call starts a goroutine that feeds it; Close stops
// that goroutine. Use either C or Next, not both.
func (s *Subscription) C() <-chan Event {
	s.chOnce.Do(func() {
		s.ch = make(chan Event)
		go s.pump()
	})
	return s.ch
}

func (s *Subscription) pump() {
	defer close(s.ch)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		ev, err := s.Next(ctx)
		if err != nil {
			return
		}
		select {
		case s.ch <- ev:
		case <-s.stop:
			return
		}
	}
}

// Close ends the subscription and drops the events it still holds.
func (s *Subscription) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.queue = nil
	s.mu.Unlock()
	close(s.stop)
	select {
	case s.wake <- struct{}{}:
	default:
	}
	s.c.mu.Lock()
	if s.c.subs != nil {
		delete(s.c.subs, s)
	}
	s.c.mu.Unlock()
}
