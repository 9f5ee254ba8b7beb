package hooks

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// QueueLimit bounds the notifications waiting for one slow subscriber;
// beyond it new notifications for that subscriber are dropped (and
// counted in the log) so that a stuck extension never grows memory or
// slows the agent.
const QueueLimit = 4096

// notifyQueue delivers notifications to one subscriber in order, on its own
// goroutine, so that the agent loop never waits for them.
type notifyQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []*Event
	busy    bool
	closed  bool
	dropped int
	idle    chan struct{} // closed and replaced when the queue drains
}

func (b *Bus) queueFor(e *entry) *notifyQueue {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e.queue == nil {
		q := &notifyQueue{idle: make(chan struct{})}
		q.cond = sync.NewCond(&q.mu)
		e.queue = q
		go b.drain(e.sub, q)
	}
	return e.queue
}

func (q *notifyQueue) push(ev *Event) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return true
	}
	if len(q.items) >= QueueLimit {
		q.dropped++
		return false
	}
	q.items = append(q.items, ev)
	q.cond.Signal()
	return true
}

func (q *notifyQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.items = nil
	q.cond.Broadcast()
	q.mu.Unlock()
}

// wait blocks until the queue is empty and nothing is being delivered, or
// ctx ends.
func (q *notifyQueue) wait(ctx context.Context) {
	for {
		q.mu.Lock()
		if (len(q.items) == 0 && !q.busy) || q.closed {
			q.mu.Unlock()
			return
		}
		ch := q.idle
		q.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

func (b *Bus) drain(s Subscriber, q *notifyQueue) {
	for {
		q.mu.Lock()
		for len(q.items) == 0 && !q.closed {
			q.busy = false
			close(q.idle)
			q.idle = make(chan struct{})
			q.cond.Wait()
		}
		if q.closed {
			q.busy = false
			close(q.idle)
			q.mu.Unlock()
			return
		}
		n := 1
		bs, batching := s.(BatchSubscriber)
		if batching {
			n = min(len(q.items), maxBatch)
		}
		evs := append([]*Event(nil), q.items[:n]...)
		clear(q.items[:n])
		q.items = q.items[n:]
		q.busy = true
		dropped := q.dropped
		q.dropped = 0
		q.mu.Unlock()
		if dropped > 0 && b.Log != nil {
			b.Log.Warn("extension is too slow for its notifications; some were dropped", "extension", s.Path(), "dropped", dropped)
		}
		if len(evs) > 1 {
			b.callBatch(s, bs, evs)
			continue
		}
		if _, err := b.call(context.Background(), s, -1, evs[0]); err != nil {
			b.report(s, evs[0].Name, err)
		}
	}
}

// maxBatch bounds the notifications delivered in one call.
const maxBatch = 128

// callBatch delivers several notifications in one call with the deadline
// of the first one.
func (b *Bus) callBatch(s Subscriber, bs BatchSubscriber, evs []*Event) {
	d := timeoutFor(s, evs[0].Name)
	ctx, dl := withDeadline(context.Background(), d)
	defer dl.stop()
	done := make(chan []error, 1)
	go func() {
		var errs []error
		defer func() {
			if v := recover(); v != nil {
				errs = []error{fmt.Errorf("handler panicked: %v", v)}
			}
			done <- errs
		}()
		errs = bs.HandleBatch(ctx, evs)
	}()
	var errs []error
	select {
	case errs = <-done:
		if ctx.Err() != nil {
			errs = []error{deadlineError(ctx, evs[0].Name, d)}
		}
	case <-ctx.Done():
		errs = []error{deadlineError(ctx, evs[0].Name, d)}
	}
	if len(errs) == 1 && len(evs) > 1 && errs[0] != nil {
		b.report(s, evs[0].Name, errs[0])
		return
	}
	for i, err := range errs {
		if err != nil && i < len(evs) {
			b.report(s, evs[i].Name, err)
		}
	}
}

// Notify delivers a notification event to every subscriber. It does not
// wait: each subscriber receives its notifications in order on its own
// goroutine, and before any later intercepting call to that subscriber.
func (b *Bus) Notify(name string, payload any) {
	subs := b.subscribers(name)
	if len(subs) == 0 {
		return
	}
	ev := NewEvent(name, payload)
	if _, err := ev.JSON(); err != nil {
		for _, e := range subs {
			b.report(e.sub, name, err)
		}
		return
	}
	for _, e := range subs {
		b.queueFor(e).push(ev)
	}
}

// Flush waits until every notification queued so far has been delivered,
// or until timeout (used before shutdown so session_shutdown handlers run).
func (b *Bus) Flush(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	b.mu.Lock()
	var qs []*notifyQueue
	for _, e := range b.subs {
		if e.queue != nil {
			qs = append(qs, e.queue)
		}
	}
	b.mu.Unlock()
	for _, q := range qs {
		q.wait(ctx)
	}
}

// barrier waits for a subscriber's pending notifications before an
// intercepting call, so that it sees events in order.
func (b *Bus) barrier(ctx context.Context, e *entry) {
	b.mu.Lock()
	q := e.queue
	b.mu.Unlock()
	if q != nil {
		q.wait(ctx)
	}
}
