package app

import (
	"sync"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
)

// messageQueues are the steering and follow-up queues, their delivery
// modes and the pause (pause_queued_messages), with the queue_update event
// that reports each change of the lists.
//
// Locks (see the order at Runtime):
//   - change serialises a change of the lists with its queue_update
//     event, so that the last event a client sees matches the queues. It
//     is the outermost lock of the runtime: held while rt.mu is taken
//     (update) and while the event is emitted. The lists change only with
//     it held.
//   - mu guards the fields below. A leaf: taken only inside these methods
//     (possibly with rt.mu held, so that a read or a change made under
//     rt.mu is one with the session state), never while another lock is
//     taken or an event is emitted.
type messageQueues struct {
	emit func(events.Event)

	change sync.Mutex

	mu           sync.Mutex
	steering     []queued
	followUp     []queued
	steeringMode string
	followUpMode string
	// paused holds queued messages: they are not delivered, and prompts
	// are queued instead of starting runs.
	paused bool
}

type queued struct {
	text string
	msg  llm.Message
}

// queueStatus is what the state reports of the queues.
type queueStatus struct {
	steeringMode, followUpMode string
	pending                    int
	paused                     bool
}

func newMessageQueues(emit func(events.Event), steeringMode, followUpMode string) *messageQueues {
	return &messageQueues{emit: emit, steeringMode: queueMode(steeringMode), followUpMode: queueMode(followUpMode)}
}

func queueMode(s string) string {
	if s == "all" {
		return "all"
	}
	return "one-at-a-time"
}

// push queues a message as steering or follow-up.
func (q *messageQueues) push(steer bool, m queued) {
	q.change.Lock()
	defer q.change.Unlock()
	q.mu.Lock()
	if steer {
		q.steering = append(q.steering, m)
	} else {
		q.followUp = append(q.followUp, m)
	}
	ev := q.eventLocked()
	q.mu.Unlock()
	q.emit(ev)
}

// dequeue takes queued messages according to the mode (none while
// paused).
func (q *messageQueues) dequeue(steer bool) []llm.Message {
	q.change.Lock()
	defer q.change.Unlock()
	q.mu.Lock()
	var out []llm.Message
	if !q.paused {
		out = q.takeLocked(steer)
	}
	if out == nil {
		q.mu.Unlock()
		return nil
	}
	ev := q.eventLocked()
	q.mu.Unlock()
	q.emit(ev)
	return out
}

// clear removes every queued message and returns their texts.
func (q *messageQueues) clear() (steering, followUp []string) {
	q.change.Lock()
	defer q.change.Unlock()
	q.mu.Lock()
	ev := q.eventLocked()
	changed := len(q.steering)+len(q.followUp) > 0
	q.steering, q.followUp = nil, nil
	q.mu.Unlock()
	if changed {
		q.emit(events.QueueUpdate{Steering: []string{}, FollowUp: []string{}})
	}
	return ev.Steering, ev.FollowUp
}

// update runs fn with the change lock held; fn may take rt.mu and change
// the lists (takeNext, drop) together with the session state. When fn
// reports a change, the queue_update event follows, before another change
// can start.
func (q *messageQueues) update(fn func() (changed bool)) {
	q.change.Lock()
	defer q.change.Unlock()
	if fn() {
		q.mu.Lock()
		ev := q.eventLocked()
		q.mu.Unlock()
		q.emit(ev)
	}
}

// takeNext takes what a continuation run starts with: steering messages,
// or else follow-ups; none while paused. Only inside update.
func (q *messageQueues) takeNext() []llm.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.paused {
		return nil
	}
	if msgs := q.takeLocked(true); len(msgs) > 0 {
		return msgs
	}
	return q.takeLocked(false)
}

// drop empties the lists and reports whether they held anything. Only
// inside update.
func (q *messageQueues) drop() (had bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	had = len(q.steering)+len(q.followUp) > 0
	q.steering, q.followUp = nil, nil
	return had
}

// takeLocked removes queued messages according to the mode (one, or all)
// and returns them stamped with the time of delivery; q.mu is held.
func (q *messageQueues) takeLocked(steer bool) []llm.Message {
	list, mode := &q.followUp, q.followUpMode
	if steer {
		list, mode = &q.steering, q.steeringMode
	}
	if len(*list) == 0 {
		return nil
	}
	n := 1
	if mode == "all" {
		n = len(*list)
	}
	taken := (*list)[:n]
	*list = append([]queued(nil), (*list)[n:]...)
	out := make([]llm.Message, len(taken))
	for i, t := range taken {
		out[i] = t.msg
		out[i].Timestamp = llm.Now()
	}
	return out
}

func (q *messageQueues) eventLocked() events.QueueUpdate {
	ev := events.QueueUpdate{Steering: []string{}, FollowUp: []string{}}
	for _, m := range q.steering {
		ev.Steering = append(ev.Steering, m.text)
	}
	for _, m := range q.followUp {
		ev.FollowUp = append(ev.FollowUp, m.text)
	}
	return ev
}

// pause holds the queued messages.
func (q *messageQueues) pause() {
	q.mu.Lock()
	q.paused = true
	q.mu.Unlock()
}

// resume ends a pause and reports whether any message was held.
func (q *messageQueues) resume() (released bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	released = q.paused && len(q.steering)+len(q.followUp) > 0
	q.paused = false
	return released
}

func (q *messageQueues) isPaused() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.paused
}

// setMode sets how steering (steer) or follow-up messages are delivered.
func (q *messageQueues) setMode(steer bool, mode string) {
	q.mu.Lock()
	if steer {
		q.steeringMode = mode
	} else {
		q.followUpMode = mode
	}
	q.mu.Unlock()
}

func (q *messageQueues) status() queueStatus {
	q.mu.Lock()
	defer q.mu.Unlock()
	return queueStatus{
		steeringMode: q.steeringMode, followUpMode: q.followUpMode,
		pending: len(q.steering) + len(q.followUp), paused: q.paused,
	}
}
